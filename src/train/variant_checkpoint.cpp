#include "variant_checkpoint.h"

#include <nlohmann/json.hpp>

namespace attn::train {

using decoder::Attention;

std::string llama_incompatibility(const decoder::DecoderConfig& c) {
  if (c.positions != decoder::Positions::Rope) return "positions";
  if (c.norm != decoder::Norm::RmsNorm) return "norm";
  if (c.ffn != decoder::Ffn::Swiglu) return "ffn";
  if (c.attention == Attention::Mla) return "attention";
  return "";
}

namespace {

// The tensors of a checkpoint as they are written: each points into the decoder's buffer or into a
// copy kept in `out.storage`.
struct Writer {
  const decoder::Decoder& m;
  LlamaTensors& out;

  const gpt::ParamTensor& find(const std::string& name) const {
    for (const gpt::ParamTensor& t : m.layout.tensors)
      if (t.name == name) return t;
    throw std::logic_error("variant_checkpoint: no " + name);
  }
  double at(const gpt::ParamTensor& t, std::size_t r, std::size_t c) const { return m.params[t.offset + r * t.shape[1] + c]; }
  void as_is(std::string name, const std::string& from) {
    const gpt::ParamTensor& t = find(from);
    out.tensors.push_back({std::move(name), t.shape, m.params.data() + t.offset});
  }
  // rows: the output rows of an nn.Linear weight (out, in), each a column of an (in, out) matrix
  void rows(std::string name, std::vector<std::vector<double>> rs) {
    const std::size_t n = rs.size(), in = rs.empty() ? 0 : rs[0].size();
    std::vector<double> w;
    w.reserve(n * in);
    for (const std::vector<double>& r : rs) w.insert(w.end(), r.begin(), r.end());
    out.storage.push_back(std::move(w));
    out.tensors.push_back({std::move(name), Shape{n, in}, out.storage.back().data()});
  }
  // column c of the (in, out) matrix `from`: one row of the nn.Linear weight
  std::vector<double> column(const gpt::ParamTensor& t, std::size_t c) const {
    std::vector<double> col(t.shape[0]);
    for (std::size_t r = 0; r < t.shape[0]; ++r) col[r] = at(t, r, c);
    return col;
  }
  void transposed(std::string name, const std::string& from) {  // (in, out) -> (out, in)
    const gpt::ParamTensor& t = find(from);
    std::vector<std::vector<double>> rs;
    for (std::size_t c = 0; c < t.shape[1]; ++c) rs.push_back(column(t, c));
    rows(std::move(name), std::move(rs));
  }
  // A RoPE block of width R starting at column c0, in consecutive pairs: rotate_half column i goes
  // to 2i, column i + R/2 to 2i + 1.
  void rope_block(std::vector<std::vector<double>>& rs, const gpt::ParamTensor& t, std::size_t c0, std::size_t R) const {
    for (std::size_t i = 0; i < R / 2; ++i) {
      rs.push_back(column(t, c0 + i));
      rs.push_back(column(t, c0 + i + R / 2));
    }
  }
  // Llama's and DeepSeek-V2's shared parts of layer l: the two norms and the SwiGLU.
  void norms_and_ffn(std::size_t l) {
    const std::string a = "layers." + std::to_string(l) + ".", b = "model.layers." + std::to_string(l) + ".";
    as_is(b + "post_attention_layernorm.weight", a + "norm_2.weight");
    transposed(b + "mlp.gate_proj.weight", a + "ffn.W_gate");
    transposed(b + "mlp.up_proj.weight", a + "ffn.W_up");
    transposed(b + "mlp.down_proj.weight", a + "ffn.W_down");
  }
};

// The keys Llama and DeepSeek-V2 configs share.
nlohmann::ordered_json common_config(const decoder::DecoderConfig& c) {
  nlohmann::ordered_json j;
  j["vocab_size"] = c.vocab;
  j["hidden_size"] = c.d_model;
  j["intermediate_size"] = c.F();
  j["num_hidden_layers"] = c.n_layer;
  j["num_attention_heads"] = c.n_head;
  j["num_key_value_heads"] = c.kv_heads();
  return j;
}

void finish_config(nlohmann::ordered_json& j, const decoder::DecoderConfig& c, bool f64, const std::string& extra) {
  j["max_position_embeddings"] = c.n_positions;
  j["hidden_act"] = "silu";
  j["rms_norm_eps"] = decoder::kNormEps;
  j["rope_theta"] = c.rope_theta;
  j["rope_scaling"] = nullptr;
  j["attention_bias"] = false;
  j["mlp_bias"] = false;
  j["tie_word_embeddings"] = true;
  j["initializer_range"] = 0.02;
  j["bos_token_id"] = 0;
  j["eos_token_id"] = 0;
  j["torch_dtype"] = f64 ? "float64" : "float32";
  if (!extra.empty()) {
    const nlohmann::ordered_json more = nlohmann::ordered_json::parse(extra);
    for (const auto& [k, v] : more.items()) j[k] = v;
  }
}

}  // namespace

LlamaTensors llama_tensors(const decoder::Decoder& m) {
  LlamaTensors out;
  out.storage.reserve(m.layout.tensors.size());
  Writer w{m, out};
  w.as_is("model.embed_tokens.weight", "wte");
  for (std::size_t l = 0; l < m.config.n_layer; ++l) {
    const std::string a = "layers." + std::to_string(l) + ".", b = "model.layers." + std::to_string(l) + ".";
    w.as_is(b + "input_layernorm.weight", a + "norm_1.weight");
    w.transposed(b + "self_attn.q_proj.weight", a + "attn.W_Q");
    w.transposed(b + "self_attn.k_proj.weight", a + "attn.W_K");
    w.transposed(b + "self_attn.v_proj.weight", a + "attn.W_V");
    w.transposed(b + "self_attn.o_proj.weight", a + "attn.W_O");
    w.norms_and_ffn(l);
  }
  w.as_is("model.norm.weight", "norm_f.weight");
  return out;
}

std::string deepseek_incompatibility(const decoder::DecoderConfig& c) {
  if (c.attention != Attention::Mla) return "attention";
  if (c.positions != decoder::Positions::Rope || c.rope_dim == 0) return "positions";
  if (c.norm != decoder::Norm::RmsNorm) return "norm";
  if (c.ffn != decoder::Ffn::Swiglu) return "ffn";
  return "";
}

LlamaTensors deepseek_tensors(const decoder::Decoder& m) {
  LlamaTensors out;
  out.storage.reserve(4 * m.config.n_layer + 8);  // the copies are never moved: pointers stay valid
  Writer w{m, out};
  const std::size_t H = m.config.n_head, hs = m.config.hs(), R = m.config.rope_dim, Dc = m.config.kv_lora_rank;
  w.as_is("model.embed_tokens.weight", "wte");
  for (std::size_t l = 0; l < m.config.n_layer; ++l) {
    const std::string a = "layers." + std::to_string(l) + ".", b = "model.layers." + std::to_string(l) + ".";
    w.as_is(b + "input_layernorm.weight", a + "norm_1.weight");
    const gpt::ParamTensor &wq = w.find(a + "attn.W_Q"), &wqr = w.find(a + "attn.W_QR");
    std::vector<std::vector<double>> q;  // head i: hs content rows, then R RoPE rows
    for (std::size_t i = 0; i < H; ++i) {
      for (std::size_t c = 0; c < hs; ++c) q.push_back(w.column(wq, i * hs + c));
      w.rope_block(q, wqr, i * R, R);
    }
    w.rows(b + "self_attn.q_proj.weight", std::move(q));
    const gpt::ParamTensor &wdkv = w.find(a + "attn.W_DKV"), &wkr = w.find(a + "attn.W_KR");
    std::vector<std::vector<double>> kva;  // Dc latent rows, then the shared RoPE key's R rows
    for (std::size_t c = 0; c < Dc; ++c) kva.push_back(w.column(wdkv, c));
    w.rope_block(kva, wkr, 0, R);
    w.rows(b + "self_attn.kv_a_proj_with_mqa.weight", std::move(kva));
    const gpt::ParamTensor &wuk = w.find(a + "attn.W_UK"), &wuv = w.find(a + "attn.W_UV");
    std::vector<std::vector<double>> kvb;  // head i: hs key rows, then hs value rows
    for (std::size_t i = 0; i < H; ++i) {
      for (std::size_t c = 0; c < hs; ++c) kvb.push_back(w.column(wuk, i * hs + c));
      for (std::size_t c = 0; c < hs; ++c) kvb.push_back(w.column(wuv, i * hs + c));
    }
    w.rows(b + "self_attn.kv_b_proj.weight", std::move(kvb));
    w.transposed(b + "self_attn.o_proj.weight", a + "attn.W_O");
    w.norms_and_ffn(l);
  }
  w.as_is("model.norm.weight", "norm_f.weight");
  return out;
}

std::string deepseek_config_json(const decoder::DecoderConfig& c, bool f64, const std::string& extra) {
  nlohmann::ordered_json j;
  j["architectures"] = {"DeepseekV2ForCausalLM"};
  j["model_type"] = "deepseek_v2";
  const nlohmann::ordered_json common = common_config(c);
  for (const auto& [k, v] : common.items()) j[k] = v;
  j["num_key_value_heads"] = c.n_head;  // DeepSeek's convention: MLA rebuilds every head's K and V
  j["q_lora_rank"] = nullptr;
  j["kv_lora_rank"] = c.kv_lora_rank;
  j["qk_nope_head_dim"] = c.hs();
  j["qk_rope_head_dim"] = c.rope_dim;
  j["v_head_dim"] = c.hs();
  j["n_routed_experts"] = nullptr;
  j["n_shared_experts"] = nullptr;
  j["first_k_dense_replace"] = c.n_layer;
  j["moe_intermediate_size"] = c.F();
  finish_config(j, c, f64, "");
  j["attnlab_mla"] = {{"kv_a_layernorm", false}, {"rope_pairs", "consecutive"}};
  if (!extra.empty()) {
    const nlohmann::ordered_json more = nlohmann::ordered_json::parse(extra);
    for (const auto& [k, v] : more.items()) j[k] = v;
  }
  return j.dump(2) + "\n";
}

std::string llama_config_json(const decoder::DecoderConfig& c, bool f64, const std::string& extra) {
  nlohmann::ordered_json j;
  j["architectures"] = {"LlamaForCausalLM"};
  j["model_type"] = "llama";
  const nlohmann::ordered_json common = common_config(c);
  for (const auto& [k, v] : common.items()) j[k] = v;
  j["head_dim"] = c.hs();
  finish_config(j, c, f64, extra);
  return j.dump(2) + "\n";
}

}  // namespace attn::train
