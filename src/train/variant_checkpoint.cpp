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

LlamaTensors llama_tensors(const decoder::Decoder& m) {
  LlamaTensors out;
  out.storage.reserve(m.layout.tensors.size());
  const double* p = m.params.data();
  auto as_is = [&](std::string name, const gpt::ParamTensor& t) {
    out.tensors.push_back({std::move(name), t.shape, p + t.offset});
  };
  auto transposed = [&](std::string name, const gpt::ParamTensor& t) {  // (in, out) -> (out, in)
    const std::size_t rows = t.shape[0], cols = t.shape[1];
    std::vector<double> tr(rows * cols);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) tr[c * rows + r] = p[t.offset + r * cols + c];
    out.storage.push_back(std::move(tr));
    out.tensors.push_back({std::move(name), Shape{cols, rows}, out.storage.back().data()});
  };
  auto find = [&](const std::string& name) -> const gpt::ParamTensor& {
    for (const gpt::ParamTensor& t : m.layout.tensors)
      if (t.name == name) return t;
    throw std::logic_error("llama_tensors: no " + name);
  };
  as_is("model.embed_tokens.weight", find("wte"));
  for (std::size_t l = 0; l < m.config.n_layer; ++l) {
    const std::string a = "layers." + std::to_string(l) + ".", b = "model.layers." + std::to_string(l) + ".";
    as_is(b + "input_layernorm.weight", find(a + "norm_1.weight"));
    transposed(b + "self_attn.q_proj.weight", find(a + "attn.W_Q"));
    transposed(b + "self_attn.k_proj.weight", find(a + "attn.W_K"));
    transposed(b + "self_attn.v_proj.weight", find(a + "attn.W_V"));
    transposed(b + "self_attn.o_proj.weight", find(a + "attn.W_O"));
    as_is(b + "post_attention_layernorm.weight", find(a + "norm_2.weight"));
    transposed(b + "mlp.gate_proj.weight", find(a + "ffn.W_gate"));
    transposed(b + "mlp.up_proj.weight", find(a + "ffn.W_up"));
    transposed(b + "mlp.down_proj.weight", find(a + "ffn.W_down"));
  }
  as_is("model.norm.weight", find("norm_f.weight"));
  return out;
}

std::string llama_config_json(const decoder::DecoderConfig& c, bool f64, const std::string& extra) {
  nlohmann::ordered_json j;
  j["architectures"] = {"LlamaForCausalLM"};
  j["model_type"] = "llama";
  j["vocab_size"] = c.vocab;
  j["hidden_size"] = c.d_model;
  j["intermediate_size"] = c.F();
  j["num_hidden_layers"] = c.n_layer;
  j["num_attention_heads"] = c.n_head;
  j["num_key_value_heads"] = c.kv_heads();
  j["head_dim"] = c.hs();
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
  return j.dump(2) + "\n";
}

}  // namespace attn::train
