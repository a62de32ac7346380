// Reading models: Hugging Face config.json files (each family's conventions that the file does
// not spell out), the bundled presets in data/models/ (config.json + an "_attnlab" block with
// the source and the official count), and validation in one place.
//
// Legend: d = hidden_size, l = num_hidden_layers, n_h = num_attention_heads,
// n_g = num_key_value_heads, d_h = head_dim, d_ff = intermediate_size.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "errors.h"
#include "input_file.h"
#include "json_input.h"
#include "models.h"

namespace attn {

using json = nlohmann::json;

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> types = {"gpt2",        "llama",       "mistral", "qwen2",    "qwen3",
                                                 "qwen3_moe",   "gemma2",      "falcon",  "chatglm",  "deepseek_v2",
                                                 "deepseek_v3", "minicpm3",    "llama4",  "llama4_text"};
  return types;
}

namespace {

constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;  // a config.json is a few KiB
constexpr u64 kMaxConfigLayers = 100000;  // the deepest real models have a few hundred

// Typed access to one config.json; every error names the file and the key.
struct Reader {
  const json& j;
  const std::string& where;
  std::string prefix = "";  // "text_config." when reading a nested text model (Llama 4)

  std::string name(const char* key) const { return prefix + key; }

  const json* find(std::initializer_list<const char*> keys) const {
    for (const char* k : keys) {
      auto it = j.find(k);
      if (it != j.end() && !it->is_null()) return &*it;
    }
    return nullptr;
  }
  u64 num(const json& v, const char* key) const {
    if (v.is_number_unsigned()) return v.get<u64>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<u64>(v.get<std::int64_t>());
    throw UsageError("calc.err.key_not_uint", {{"where", where}, {"key", name(key)}, {"value", json_preview(v)}});
  }
  u64 req(std::initializer_list<const char*> keys) const {
    const json* v = find(keys);
    if (!v) throw UsageError("calc.err.key_missing", {{"where", where}, {"key", name(*keys.begin())}});
    return num(*v, *keys.begin());
  }
  u64 opt(std::initializer_list<const char*> keys, u64 fallback) const {
    const json* v = find(keys);
    return v ? num(*v, *keys.begin()) : fallback;
  }
  bool flag(const char* key, bool fallback) const {
    const json* v = find({key});
    if (!v) return fallback;
    if (!v->is_boolean()) throw UsageError("calc.err.key_not_bool", {{"where", where}, {"key", name(key)}, {"value", json_preview(*v)}});
    return v->get<bool>();
  }
  std::string str(const char* key, const std::string& fallback) const {
    const json* v = find({key});
    if (v && !v->is_string())
      throw UsageError("input.err.key_not_string", {{"where", where}, {"key", name(key)}, {"value", json_preview(*v)}});
    return v ? v->get<std::string>() : fallback;
  }
  // A count with a range a real model stays within (a layer count of 3e9 would have the
  // per-layer tables built one entry at a time).
  u64 bounded(std::initializer_list<const char*> keys, u64 fallback, u64 lo, u64 hi, bool required = false) const {
    u64 v = required ? req(keys) : opt(keys, fallback);
    if (v < lo || v > hi)
      throw UsageError("input.err.key_range", {{"where", where}, {"key", name(*keys.begin())}, {"value", v}, {"min", lo}, {"max", hi}});
    return v;
  }
};

u64 divide(u64 a, u64 b, const std::string& where, const char* a_key, const char* b_key) {
  if (b == 0 || a % b != 0)
    throw UsageError("calc.err.key_multiple", {{"where", where}, {"a_key", a_key}, {"a", a}, {"b_key", b_key}, {"b", b}});
  return a / b;
}

// "layer_types": ["sliding_attention", "full_attention", ...] (newer transformers) wins.
void read_layer_types(const Reader& r, ModelConfig& m) {
  const json* v = r.find({"layer_types"});
  if (!v) return;
  if (!v->is_array() || v->size() != m.l)
    throw UsageError("calc.err.layer_types", {{"where", r.where}, {"l", m.l}});
  m.sliding.assign(m.l, false);
  for (u64 i = 0; i < m.l; ++i) m.sliding[i] = (*v)[i] == "sliding_attention";
}

void read_gpt2(const Reader& r, ModelConfig& m) {
  m.vocab = r.req({"vocab_size"});
  m.d = r.req({"n_embd", "hidden_size"});
  m.l = r.bounded({"n_layer", "num_hidden_layers"}, 0, 0, kMaxConfigLayers, true);
  m.n_h = r.req({"n_head", "num_attention_heads"});
  m.n_g = m.n_h;
  m.d_h = divide(m.d, m.n_h, r.where, "n_embd", "n_head");
  m.d_ff = r.opt({"n_inner"}, mul(4, m.d, "n_inner"));
  m.positions = r.req({"n_positions", "max_position_embeddings"});
  m.gated_ffn = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.norm_bias = true;
  m.tied_embeddings = r.flag("tie_word_embeddings", true);
  // A model `attnlab train` wrote without its MLP: each block is x += attn(ln_1(x)), no ln_2, no MLP.
  if (r.flag("attnlab_attention_only", false)) {
    m.ffn = false;
    m.d_ff = 0;
    m.mlp_bias = false;
    m.norms_per_layer = 1;
  }
}

// llama, mistral, qwen2, qwen3, gemma2: the same skeleton with per-family conventions.
void read_llama_like(const Reader& r, ModelConfig& m, const std::string& type) {
  m.vocab = r.req({"vocab_size"});
  m.d = r.req({"hidden_size"});
  m.d_ff = r.req({"intermediate_size"});
  m.l = r.bounded({"num_hidden_layers"}, 0, 0, kMaxConfigLayers, true);
  m.n_h = r.req({"num_attention_heads"});
  m.n_g = r.opt({"num_key_value_heads"}, m.n_h);
  bool qwen3 = type == "qwen3" || type == "qwen3_moe";
  u64 default_head = qwen3 ? 128 : type == "gemma2" ? 256 : 0;
  m.d_h = r.opt({"head_dim"}, default_head);
  if (m.d_h == 0) m.d_h = divide(m.d, m.n_h, r.where, "hidden_size", "num_attention_heads");
  bool attention_bias = r.flag("attention_bias", false);
  m.qkv_bias = type == "qwen2" || attention_bias;  // Qwen2 always biases q, k and v
  m.o_bias = type != "qwen2" && attention_bias;
  m.mlp_bias = r.flag("mlp_bias", false);
  m.qk_norm = qwen3;
  if (type == "qwen3_moe") {
    // Every layer an MoE of num_experts SwiGLU experts and a router (no shared expert, no bias);
    // only decoder_sparse_step 1 with no mlp_only_layers (Qwen3's MoE models) is modelled.
    m.n_routed = r.req({"num_experts"});
    m.top_k = r.req({"num_experts_per_tok"});
    m.moe_d_ff = r.req({"moe_intermediate_size"});
    const json* dense = r.find({"mlp_only_layers"});
    if (r.opt({"decoder_sparse_step"}, 1) != 1 || (dense && dense->is_array() && !dense->empty()))
      throw UsageError("calc.err.qwen3_moe_layers", {{"where", r.where}});
  }
  m.norms_per_layer = type == "gemma2" ? 4 : 2;  // Gemma 2: pre- and post-norms around both blocks
  m.tied_embeddings = r.flag("tie_word_embeddings", type == "gemma2");
  m.window = r.opt({"sliding_window"}, type == "gemma2" ? 4096 : 0);
  if (m.window > 0) {
    m.sliding.assign(m.l, false);
    for (u64 i = 0; i < m.l; ++i) {
      if (type == "mistral") m.sliding[i] = true;
      if (type == "gemma2") m.sliding[i] = i % 2 == 0;  // even layers local, odd layers global
      if ((type == "qwen2" || qwen3) && r.flag("use_sliding_window", false))
        m.sliding[i] = i >= r.opt({"max_window_layers"}, 0);
    }
    read_layer_types(r, m);
  }
}

void read_falcon(const Reader& r, ModelConfig& m) {
  m.vocab = r.req({"vocab_size"});
  m.d = r.req({"hidden_size"});
  m.l = r.bounded({"num_hidden_layers", "n_layer"}, 0, 0, kMaxConfigLayers, true);
  m.n_h = r.req({"num_attention_heads", "n_head"});
  m.d_h = r.opt({"head_dim"}, 0);
  if (m.d_h == 0) m.d_h = divide(m.d, m.n_h, r.where, "hidden_size", "num_attention_heads");
  bool new_arch = r.flag("new_decoder_architecture", false);
  if (new_arch) m.n_g = r.opt({"num_kv_heads", "n_head_kv"}, m.n_h);
  else m.n_g = r.flag("multi_query", true) ? 1 : m.n_h;
  m.d_ff = r.opt({"ffn_hidden_size"}, mul(4, m.d, "ffn_hidden_size"));
  m.gated_ffn = false;
  m.norm_bias = true;
  m.qkv_bias = m.o_bias = m.mlp_bias = r.flag("bias", false);
  // New architecture: ln_attn + ln_mlp; old: one input_layernorm when attention and MLP run in parallel.
  m.norms_per_layer = new_arch ? r.bounded({"num_ln_in_parallel_attn"}, 2, 1, 2) : r.flag("parallel_attn", true) ? 1 : 2;
  m.tied_embeddings = r.flag("tie_word_embeddings", true);
}

void read_deepseek(const Reader& r, ModelConfig& m, bool v3) {
  m.vocab = r.req({"vocab_size"});
  m.d = r.req({"hidden_size"});
  m.d_ff = r.req({"intermediate_size"});
  m.l = r.bounded({"num_hidden_layers"}, 0, 0, kMaxConfigLayers, true);
  m.n_h = r.req({"num_attention_heads"});
  m.n_g = m.n_h;  // MLA: every head has its own K and V, rebuilt from the shared latent
  m.mla = true;
  m.d_cq = r.opt({"q_lora_rank"}, 0);
  m.d_c = r.req({"kv_lora_rank"});
  m.d_nope = r.req({"qk_nope_head_dim"});
  m.d_R = r.req({"qk_rope_head_dim"});
  m.d_v = r.req({"v_head_dim"});
  m.d_h = add(m.d_nope, m.d_R, "head_dim");
  // attnlab's trained MLA (train --attention mla --save) has no RMSNorm on the latent and says so
  auto own = r.j.find("attnlab_mla");
  if (own != r.j.end() && own->is_object() && own->contains("kv_a_layernorm") && (*own)["kv_a_layernorm"] == false)
    m.mla_kv_norm = false;
  m.n_routed = r.opt({"n_routed_experts"}, 0);
  if (m.n_routed > 0) {
    m.n_shared = r.opt({"n_shared_experts"}, 0);
    m.top_k = r.req({"num_experts_per_tok"});
    m.moe_d_ff = r.req({"moe_intermediate_size"});
    m.first_dense = r.opt({"first_k_dense_replace"}, 0);
    m.moe_every = r.opt({"moe_layer_freq"}, 1);
    m.router_bias = r.str("topk_method", v3 ? "noaux_tc" : "greedy") == "noaux_tc";
  }
  m.mtp_layers = r.bounded({"num_nextn_predict_layers"}, 0, 0, kMaxConfigLayers);
  m.tied_embeddings = r.flag("tie_word_embeddings", false);
}

// ChatGLM (GLM-4-9B, ChatGLM2/3): the THUDM names. num_layers, kv_channels (d_h),
// multi_query_group_num (n_g, when multi_query_attention), ffn_hidden_size (a SwiGLU:
// dense_h_to_4h is [d, 2·d_ff], dense_4h_to_h [d_ff, d]), padded_vocab_size. One fused
// query_key_value [d, (n_h + 2·n_g)·d_h] with a bias when add_qkv_bias; add_bias_linear puts
// biases on every other linear. RMSNorm unless rmsnorm is false; a final norm when
// post_layer_norm; output_layer is its own matrix (not tied).
void read_chatglm(const Reader& r, ModelConfig& m) {
  m.vocab = r.req({"padded_vocab_size", "vocab_size"});
  m.d = r.req({"hidden_size"});
  m.l = r.bounded({"num_layers", "num_hidden_layers"}, 0, 0, kMaxConfigLayers, true);
  m.n_h = r.req({"num_attention_heads"});
  m.d_h = r.opt({"kv_channels"}, 0);
  if (m.d_h == 0) m.d_h = divide(m.d, m.n_h, r.where, "hidden_size", "num_attention_heads");
  m.n_g = m.n_h;
  if (r.flag("multi_query_attention", false)) {
    m.n_g = r.req({"multi_query_group_num"});
    divide(m.n_h, m.n_g, r.where, "num_attention_heads", "multi_query_group_num");
  }
  m.d_ff = r.req({"ffn_hidden_size"});
  bool linear_bias = r.flag("add_bias_linear", false);
  m.qkv_bias = linear_bias || r.flag("add_qkv_bias", false);
  m.o_bias = m.mlp_bias = linear_bias;
  m.norm_bias = !r.flag("rmsnorm", true);
  m.final_norm = r.flag("post_layer_norm", true);
  m.tied_embeddings = r.flag("tie_word_embeddings", false);
}

// MiniCPM3: MLA as in DeepSeek-V2 (q through q_lora_rank, K and V through the cached latent
// kv_lora_rank plus a shared RoPE key of qk_rope_head_dim), a dense SwiGLU in every layer.
// v_head_dim defaults to hidden_size / num_attention_heads and tie_word_embeddings to true
// (MiniCPM3Config's defaults). scale_emb, scale_depth and dim_model_base scale activations
// (muP) and change no count, so they are not read.
void read_minicpm3(const Reader& r, ModelConfig& m) {
  m.vocab = r.req({"vocab_size"});
  m.d = r.req({"hidden_size"});
  m.d_ff = r.req({"intermediate_size"});
  m.l = r.bounded({"num_hidden_layers"}, 0, 0, kMaxConfigLayers, true);
  m.n_h = r.req({"num_attention_heads"});
  m.n_g = m.n_h;  // MLA: every head has its own K and V, rebuilt from the shared latent
  m.mla = true;
  m.d_cq = r.opt({"q_lora_rank"}, 0);
  m.d_c = r.req({"kv_lora_rank"});
  m.d_nope = r.req({"qk_nope_head_dim"});
  m.d_R = r.req({"qk_rope_head_dim"});
  m.d_v = r.opt({"v_head_dim"}, 0);
  if (m.d_v == 0) m.d_v = divide(m.d, m.n_h, r.where, "hidden_size", "num_attention_heads");
  m.d_h = add(m.d_nope, m.d_R, "head_dim");
  if (r.flag("attention_bias", false))  // biases on q_a_proj, kv_a_proj and o_proj: not modelled
    throw UsageError("presets.err.not_modelled", {{"where", r.where}, {"key", "attention_bias"}, {"value", "true"}});
  m.tied_embeddings = r.flag("tie_word_embeddings", true);
}

// Llama 4. model_type "llama4" nests the text model under "text_config" beside a vision tower
// ("vision_config") that is not counted; "llama4_text" is the text model alone.
// Attention: GQA. Layers with RoPE use chunked local attention (a token sees only its own block
// of attention_chunk_size tokens, so they cache at most one chunk); the others are global and use
// no RoPE (NoPE). Which is which: layer_types ("chunked_attention" / "full_attention"), else
// no_rope_layers (1 = RoPE, chunked; 0 = NoPE, global), else every no_rope_layer_interval-th
// layer (default 4: layers 3, 7, 11, ...) is global.
// FFN: an MoE of num_local_experts routed SwiGLU experts of intermediate_size, num_experts_per_tok
// per token, one shared expert of the same size, a router [d, E] without bias, in layers
// step-1, 2·step-1, ... (step = interleave_moe_layer_step); the others a dense SwiGLU of
// intermediate_size_mlp. use_qk_norm is an L2 norm without weights (no parameters).
void read_llama4(const Reader& root, ModelConfig& m) {
  const json* text = &root.j;
  std::string prefix;
  if (m.model_type == "llama4") {
    text = root.find({"text_config"});
    if (!text) throw UsageError("calc.err.key_missing", {{"where", root.where}, {"key", "text_config"}});
    if (!text->is_object())
      throw UsageError("presets.err.not_object", {{"where", root.where}, {"key", "text_config"}, {"value", json_preview(*text)}});
    prefix = "text_config.";
  }
  Reader r{*text, root.where, prefix};
  m.vocab = r.req({"vocab_size"});
  m.d = r.req({"hidden_size"});
  m.l = r.bounded({"num_hidden_layers"}, 0, 0, kMaxConfigLayers, true);
  m.n_h = r.req({"num_attention_heads"});
  m.n_g = r.opt({"num_key_value_heads"}, m.n_h);
  m.d_h = r.opt({"head_dim"}, 0);
  if (m.d_h == 0) m.d_h = divide(m.d, m.n_h, r.where, "hidden_size", "num_attention_heads");
  m.qkv_bias = m.o_bias = r.flag("attention_bias", false);
  m.d_ff = r.req({"intermediate_size_mlp"});
  m.n_routed = r.req({"num_local_experts"});
  if (m.n_routed > 0) {
    m.n_shared = 1;
    m.top_k = r.req({"num_experts_per_tok"});
    m.moe_d_ff = r.req({"intermediate_size"});
    m.moe_every = r.bounded({"interleave_moe_layer_step"}, 1, 1, kMaxConfigLayers);
    m.moe_phase = m.moe_every - 1;
  }
  // The head may be tied at either level; the text model's own key wins.
  m.tied_embeddings = r.flag("tie_word_embeddings", root.flag("tie_word_embeddings", false));
  if (!r.find({"attention_chunk_size"})) return;  // no chunked layers: every layer global
  m.window = r.bounded({"attention_chunk_size"}, 0, 1, u64{1} << 40, true);
  m.chunked = true;
  m.sliding.assign(m.l, false);
  const json* types = r.find({"layer_types"});
  const json* rope = r.find({"no_rope_layers"});
  if (types) {
    if (!types->is_array() || types->size() != m.l)
      throw UsageError("presets.err.layer_list", {{"where", r.where}, {"key", r.name("layer_types")}, {"l", m.l}, {"kind", "types"}});
    for (u64 i = 0; i < m.l; ++i) {
      const json& e = (*types)[i];
      if (!e.is_string() || (e != "chunked_attention" && e != "full_attention"))
        throw UsageError("presets.err.layer_list", {{"where", r.where}, {"key", r.name("layer_types")}, {"l", m.l}, {"kind", "types"}});
      m.sliding[i] = e == "chunked_attention";
    }
  } else if (rope && !(rope->is_array() && rope->empty())) {  // [] means "derive from the interval"
    if (!rope->is_array() || rope->size() != m.l)
      throw UsageError("presets.err.layer_list", {{"where", r.where}, {"key", r.name("no_rope_layers")}, {"l", m.l}, {"kind", "rope"}});
    for (u64 i = 0; i < m.l; ++i) {
      const json& e = (*rope)[i];
      if (!e.is_number_integer() || (e != 0 && e != 1))
        throw UsageError("presets.err.layer_list", {{"where", r.where}, {"key", r.name("no_rope_layers")}, {"l", m.l}, {"kind", "rope"}});
      m.sliding[i] = e == 1;
    }
  } else {
    u64 interval = r.bounded({"no_rope_layer_interval"}, 4, 1, kMaxConfigLayers);
    for (u64 i = 0; i < m.l; ++i) m.sliding[i] = (i + 1) % interval != 0;
  }
}

struct KeyName {
  const char* hf;
  const char* flag;
};
const char* key(bool hf, KeyName k) { return hf ? k.hf : k.flag; }

}  // namespace

void validate(const ModelConfig& m, const std::string& where, bool hf) {
  auto positive = [&](u64 v, KeyName k) {
    if (v == 0) throw UsageError("calc.err.positive", {{"where", where}, {"hf", hf}, {"key", key(hf, k)}});
  };
  if (hf) positive(m.vocab, {"vocab_size", "--vocab"});
  positive(m.d, {"hidden_size", "--d-model"});
  positive(m.l, {"num_hidden_layers", "--layers"});
  positive(m.n_h, {"num_attention_heads", "--heads"});
  positive(m.n_g, {"num_key_value_heads", "--kv-heads"});
  positive(m.d_h, {"head_dim", "--head-dim"});
  bool dense_layers = m.n_routed == 0 || m.first_dense > 0 || m.moe_every > 1;  // some layer has the dense FFN
  if (dense_layers && m.ffn) positive(m.d_ff, {m.model_type == "chatglm" ? "ffn_hidden_size" : m.model_type.rfind("llama4", 0) == 0 ? "intermediate_size_mlp" : "intermediate_size", "--d-ff"});
  if (m.n_g > m.n_h || m.n_h % m.n_g != 0)
    throw UsageError("calc.err.kv_divide", {{"where", where}, {"hf", hf},
                                            {"kv_key", key(hf, {"num_key_value_heads", "--kv-heads"})}, {"n_g", m.n_g},
                                            {"h_key", key(hf, {"num_attention_heads", "--heads"})}, {"n_h", m.n_h}});
  if (m.mla) {
    positive(m.d_c, {"kv_lora_rank", "--latent-dim"});
    positive(m.d_R, {"qk_rope_head_dim", "--rope-dim"});
    positive(m.d_nope, {"qk_nope_head_dim", "--head-dim"});
    positive(m.d_v, {"v_head_dim", "--head-dim"});
  }
  if (m.n_routed > 0) {
    positive(m.top_k, {"num_experts_per_tok", "num_experts_per_tok"});
    const char* expert_key = m.model_type.rfind("llama4", 0) == 0 ? "intermediate_size" : "moe_intermediate_size";
    positive(m.moe_d_ff, {expert_key, expert_key});
    positive(m.moe_every, {"moe_layer_freq", "moe_layer_freq"});
    if (m.top_k > m.n_routed)
      throw UsageError("calc.err.top_k", {{"where", where}, {"top_k", m.top_k}, {"n_routed", m.n_routed}});
  }
  if (!m.sliding.empty() && m.window == 0) positive(m.window, {"sliding_window", "--window"});
  try {
    count_params(m);  // a size that overflows 64 bits is an error here, not later
    kv_elements_per_layer(m);
  } catch (const UsageError& e) {
    Args args = e.msg.args;  // an overflow: the same message, now naming where
    for (Arg& a : args)
      if (a.name == "where") a.value = where;
    throw UsageError(e.msg.key, std::move(args));
  }
}

ModelConfig parse_hf_config(std::string_view text, const std::string& where) {
  json j = parse_json_input(text, where);
  if (!j.is_object()) throw UsageError("calc.err.not_object", {{"where", where}});
  Reader r{j, where};
  const json* type = r.find({"model_type"});
  if (type && !type->is_string())
    throw UsageError("input.err.key_not_string", {{"where", where}, {"key", "model_type"}, {"value", json_preview(*type)}});
  if (!type)
    throw UsageError("calc.err.model_type_missing",
                     {{"where", where}, {"types", fmt::format("{}", fmt::join(supported_model_types(), ", "))}});
  ModelConfig m;
  m.model_type = type->get<std::string>();
  m.name = where;
  const auto& types = supported_model_types();
  if (std::find(types.begin(), types.end(), m.model_type) == types.end())
    throw UsageError("calc.err.model_type_unknown",
                     {{"where", where}, {"type", m.model_type}, {"types", fmt::format("{}", fmt::join(types, ", "))}});
  if (m.model_type == "gpt2") read_gpt2(r, m);
  else if (m.model_type == "falcon") read_falcon(r, m);
  else if (m.model_type.rfind("deepseek", 0) == 0) read_deepseek(r, m, m.model_type == "deepseek_v3");
  else if (m.model_type == "chatglm") read_chatglm(r, m);
  else if (m.model_type == "minicpm3") read_minicpm3(r, m);
  else if (m.model_type.rfind("llama4", 0) == 0) read_llama4(r, m);
  else read_llama_like(r, m, m.model_type);
  try {
    validate(m, where, true);
  } catch (const UsageError& e) {
    if (m.model_type != "llama4") throw;
    Args args = e.msg.args;  // the keys validate names live under text_config: say so
    for (Arg& a : args)
      if (auto* k = std::get_if<std::string>(&a.value); k && (a.name == "key" || a.name == "kv_key" || a.name == "h_key"))
        *k = "text_config." + *k;
    throw UsageError(e.msg.key, std::move(args));
  }
  return m;
}

ModelConfig load_config_file(const std::string& path) {
  return parse_hf_config(read_regular_file(path, kMaxConfigBytes, "--config"), path);
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& f : embedded_files()) {
    std::string_view p = f.path;
    if (p.rfind("models/", 0) == 0 && p.size() > 12 && p.substr(p.size() - 5) == ".json")
      names.emplace_back(p.substr(7, p.size() - 12));
  }
  std::sort(names.begin(), names.end());
  return names;
}

ModelConfig load_preset(const std::string& name) {
  auto text = embedded_file("models/" + name + ".json");
  if (!text)
    throw UsageError("calc.err.preset_unknown", {{"name", name}, {"presets", fmt::format("{}", fmt::join(preset_names(), ", "))}});
  std::string where = "data/models/" + name + ".json";
  ModelConfig m = parse_hf_config(*text, where);
  json meta = json::parse(text->begin(), text->end()).value("_attnlab", json::object());
  m.name = name;
  m.title = meta.value("title", name);  // the name only; the words are the catalog's (calc.preset.NAME.*)
  m.preset = true;
  m.source = meta.value("source", "");
  if (meta.contains("official_total_params") && meta["official_total_params"].is_number_unsigned())
    m.official_total = meta["official_total_params"].get<u64>();
  return m;
}

ModelConfig model_from_dims(const ModelDims& x) {
  if (x.ffn != "gelu" && x.ffn != "swiglu")
    throw UsageError("calc.err.ffn_unknown", {{"value", x.ffn}});
  if (x.heads == 0) throw UsageError("calc.err.heads_missing");
  ModelConfig m;
  m.name = "custom";
  m.model_type = "custom";
  m.title_msg = {"calc.title.dims"};
  m.vocab = x.vocab;
  m.d = x.d_model;
  m.l = x.layers;
  m.n_h = x.heads;
  m.n_g = x.kv_heads > 0 ? x.kv_heads : x.heads;
  if (x.head_dim == 0 && m.d % m.n_h != 0)
    throw UsageError("calc.err.dims_not_multiple", {{"d", m.d}, {"h", m.n_h}});
  m.d_h = x.head_dim > 0 ? x.head_dim : m.d / m.n_h;
  bool gpt = x.ffn == "gelu";
  m.d_ff = x.d_ff > 0 ? x.d_ff : mul(m.d, 4, "--d-ff");
  m.gated_ffn = !gpt;
  m.qkv_bias = m.o_bias = m.mlp_bias = gpt && !x.no_bias;
  m.norm_bias = gpt;
  m.tied_embeddings = gpt;
  validate(m, "-", false);  // "-": the flags, named in the message itself
  return m;
}

ModelConfig select_model(const std::string& preset, const std::string& config_path, const ModelDims& dims) {
  int given = (preset.empty() ? 0 : 1) + (config_path.empty() ? 0 : 1) + (dims.d_model > 0 ? 1 : 0);
  if (given > 1) throw UsageError("calc.err.alternatives");
  if (!preset.empty()) return load_preset(preset);
  if (!config_path.empty()) return load_config_file(config_path);
  if (dims.d_model > 0) return model_from_dims(dims);
  if (dims.heads > 0) {
    // Heads alone (the chapter's "12 query heads, 4 KV groups"): heads of --head-dim, default
    // 64 as in the chapter's d_k = 768 / 12, so d_model = heads · head_dim.
    ModelDims filled = dims;
    u64 head_dim = dims.head_dim > 0 ? dims.head_dim : 64;
    filled.d_model = mul(dims.heads, head_dim, "--heads x --head-dim");
    filled.head_dim = head_dim;
    ModelConfig m = model_from_dims(filled);
    m.title_msg = {"calc.title.dims_heads", {{"heads", dims.heads}, {"head_dim", head_dim}}};
    return m;
  }
  throw UsageError("calc.err.give_model", {{"presets", fmt::format("{}", fmt::join(preset_names(), ", "))}});
}

}  // namespace attn
