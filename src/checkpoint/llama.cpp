// Llama-family checkpoints: config, tensor checks, the forward pass. See llama.h.
#include "llama.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "activations.h"
#include "errors.h"
#include "gqa.h"
#include "input_file.h"
#include "json_input.h"
#include "rope_half.h"

namespace attn {

namespace {

constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;

// A positive finite number under `key`, or `fallback` when absent (null counts as absent).
double number_key(const nlohmann::json& j, const char* key, double fallback, const std::string& file) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>()))
    throw UsageError("checkpoint.err.config_value", {{"file", file}, {"key", key}});
  return it->get<double>();
}

std::string layer_name(std::size_t i, const char* tail) { return "model.layers." + std::to_string(i) + "." + tail; }

// nn.Linear's (out, in) weight as the chapter's (in, out).
Tensor read_linear(const Checkpoint& ck, const std::string& name, std::size_t out, std::size_t in) {
  return transpose(ck.read(name, {out, in}));
}

Tensor read_or_zeros(const Checkpoint& ck, const std::string& name, std::size_t n, bool present) {
  return present ? ck.read(name, {n}) : Tensor({n});
}

}  // namespace

bool is_llama_family(const std::string& t) { return t == "llama" || t == "mistral" || t == "qwen2"; }

std::string config_model_type(const std::string& folder) {
  std::string text;
  try {
    text = read_regular_file(folder + "/config.json", kMaxConfigBytes, "--weights");
  } catch (const UsageError&) {
    return "";
  }
  nlohmann::json j;
  try {
    j = parse_json_input(text, folder + "/config.json");
  } catch (const UsageError&) {
    return "";  // the reader that follows names the error
  }
  if (!j.is_object() || !j.contains("model_type") || !j["model_type"].is_string()) return "";
  return j["model_type"].get<std::string>();
}

LlamaModel::LlamaModel(const std::string& folder) : ck_(folder) {
  std::string cfg_path = folder + "/config.json";
  std::string text = read_regular_file(cfg_path, kMaxConfigBytes, "--weights");
  nlohmann::json j = parse_json_input(text, cfg_path);
  std::string type = j.is_object() && j.contains("model_type") && j["model_type"].is_string()
                         ? j["model_type"].get<std::string>() : "";
  if (j.is_object() && !is_llama_family(type))
    throw UsageError("llama.err.arch", {{"file", cfg_path}, {"type", type.empty() ? "?" : type}});
  m_ = parse_hf_config(text, cfg_path);  // sizes, GQA, biases, tied head; validated
  if (m_.mlp_bias) throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "mlp_bias"}});
  auto act = j.find("hidden_act");
  if (act != j.end() && !(act->is_string() && (*act == "silu" || *act == "swish")))
    throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "hidden_act"}});
  if (m_.d_h % 2 != 0) throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "head_dim"}});
  s_.rms_eps = number_key(j, "rms_norm_eps", 1e-6, cfg_path);
  if (!(s_.rms_eps < 1)) throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "rms_norm_eps"}});
  s_.rope_theta = number_key(j, "rope_theta", 10000.0, cfg_path);
  if (!(s_.rope_theta > 1)) throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "rope_theta"}});
  s_.max_positions = static_cast<u64>(number_key(j, "max_position_embeddings", 0, cfg_path));
  inv_freq_ = rope_inv_freq(m_.d_h, s_.rope_theta);
  auto sc = j.find("rope_scaling");
  if (sc != j.end() && !sc->is_null()) {
    if (!sc->is_object()) throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "rope_scaling"}});
    std::string kind;
    for (const char* k : {"rope_type", "type"})
      if (sc->contains(k) && (*sc)[k].is_string()) kind = (*sc)[k].get<std::string>();
    double factor = number_key(*sc, "factor", 0, cfg_path);
    if (kind == "default") {
      kind.clear();
    } else if (kind == "linear" && factor > 0) {
      inv_freq_ = rope_scale_linear(inv_freq_, factor);
    } else if (kind == "llama3" && factor > 0) {
      double low = number_key(*sc, "low_freq_factor", 0, cfg_path), high = number_key(*sc, "high_freq_factor", 0, cfg_path);
      double old = number_key(*sc, "original_max_position_embeddings", 0, cfg_path);
      if (!(low > 0 && high > low && old > 0))
        throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "rope_scaling"}});
      inv_freq_ = rope_scale_llama3(inv_freq_, factor, low, high, old);
    } else {
      throw UsageError("llama.err.rope_scaling", {{"file", cfg_path}, {"type", kind.empty() ? "?" : kind}});
    }
    s_.rope_type = kind;
  }

  std::size_t V = m_.vocab, D = m_.d, H = m_.n_h, G = m_.n_g, Dh = m_.d_h, F = m_.d_ff;
  ck_.entry("model.embed_tokens.weight", {V, D});
  ck_.entry("model.norm.weight", {D});
  if (!m_.tied_embeddings || ck_.has("lm_head.weight")) ck_.entry("lm_head.weight", {V, D});
  for (std::size_t i = 0; i < m_.l; ++i) {
    ck_.entry(layer_name(i, "input_layernorm.weight"), {D});
    ck_.entry(layer_name(i, "post_attention_layernorm.weight"), {D});
    ck_.entry(layer_name(i, "self_attn.q_proj.weight"), {H * Dh, D});
    ck_.entry(layer_name(i, "self_attn.k_proj.weight"), {G * Dh, D});
    ck_.entry(layer_name(i, "self_attn.v_proj.weight"), {G * Dh, D});
    ck_.entry(layer_name(i, "self_attn.o_proj.weight"), {D, H * Dh});
    if (m_.qkv_bias) {
      ck_.entry(layer_name(i, "self_attn.q_proj.bias"), {H * Dh});
      ck_.entry(layer_name(i, "self_attn.k_proj.bias"), {G * Dh});
      ck_.entry(layer_name(i, "self_attn.v_proj.bias"), {G * Dh});
    }
    if (m_.o_bias) ck_.entry(layer_name(i, "self_attn.o_proj.bias"), {D});
    ck_.entry(layer_name(i, "mlp.gate_proj.weight"), {F, D});
    ck_.entry(layer_name(i, "mlp.up_proj.weight"), {F, D});
    ck_.entry(layer_name(i, "mlp.down_proj.weight"), {D, F});
  }
}

u64 LlamaModel::max_tokens() const {
  u64 n = s_.max_positions;
  if (std::find(m_.sliding.begin(), m_.sliding.end(), true) != m_.sliding.end() && m_.window > 0)
    n = n == 0 ? m_.window : std::min(n, m_.window);
  return n;
}

Tensor LlamaModel::embed(const std::vector<std::int64_t>& ids) const {
  std::size_t T = ids.size(), D = m_.d;
  Tensor x({T, D});
  for (std::size_t t = 0; t < T; ++t) {
    Tensor row = ck_.read_rows("model.embed_tokens.weight", {as_size(m_.vocab), D}, static_cast<std::size_t>(ids[t]), 1);
    for (std::size_t c = 0; c < D; ++c) x(t, c) = row.data[c];
  }
  require_finite_activation(x, {ck_.folder(), 0}, "embed");
  return x;
}

LlamaLayerWeights LlamaModel::layer(std::size_t i) const {
  std::size_t D = m_.d, H = m_.n_h, G = m_.n_g, Dh = m_.d_h, F = m_.d_ff;
  LlamaLayerWeights w;
  w.index = i;
  w.attn_norm = ck_.read(layer_name(i, "input_layernorm.weight"), {D});
  w.W_Q = read_linear(ck_, layer_name(i, "self_attn.q_proj.weight"), H * Dh, D);  // (D, H·Dh)
  w.W_K = read_linear(ck_, layer_name(i, "self_attn.k_proj.weight"), G * Dh, D);  // (D, G·Dh)
  w.W_V = read_linear(ck_, layer_name(i, "self_attn.v_proj.weight"), G * Dh, D);  // (D, G·Dh)
  w.W_O = read_linear(ck_, layer_name(i, "self_attn.o_proj.weight"), D, H * Dh);  // (H·Dh, D)
  w.b_Q = read_or_zeros(ck_, layer_name(i, "self_attn.q_proj.bias"), H * Dh, m_.qkv_bias);
  w.b_K = read_or_zeros(ck_, layer_name(i, "self_attn.k_proj.bias"), G * Dh, m_.qkv_bias);
  w.b_V = read_or_zeros(ck_, layer_name(i, "self_attn.v_proj.bias"), G * Dh, m_.qkv_bias);
  w.b_O = read_or_zeros(ck_, layer_name(i, "self_attn.o_proj.bias"), D, m_.o_bias);
  w.mlp_norm = ck_.read(layer_name(i, "post_attention_layernorm.weight"), {D});
  w.W_gate = read_linear(ck_, layer_name(i, "mlp.gate_proj.weight"), F, D);  // (D, F)
  w.W_up = read_linear(ck_, layer_name(i, "mlp.up_proj.weight"), F, D);      // (D, F)
  w.W_down = read_linear(ck_, layer_name(i, "mlp.down_proj.weight"), D, F);  // (F, D)
  return w;
}

LlamaLayerPass LlamaModel::run_layer(const LlamaLayerWeights& w, const Tensor& x) const {
  std::size_t H = m_.n_h, G = m_.n_g;
  const ActivationSite at{ck_.folder(), w.index};
  LlamaLayerPass p;
  p.x_in = x;
  p.norm1 = rmsnorm(x, w.attn_norm, s_.rms_eps);
  require_finite_norm(p.norm1, at, "norm1");
  AttentionPass& a = p.attn;
  a.Q = add_bias(matmul(p.norm1.out, w.W_Q), w.b_Q);  // (T, H·Dh)
  a.K = add_bias(matmul(p.norm1.out, w.W_K), w.b_K);  // (T, G·Dh)
  a.V = add_bias(matmul(p.norm1.out, w.W_V), w.b_V);  // (T, G·Dh)
  require_finite_activation(a.Q, at, "q");
  require_finite_activation(a.K, at, "k");
  require_finite_activation(a.V, at, "v");
  a.Q_heads = split_heads(a.Q, H);                    // (H, T, Dh)
  a.K_heads = split_heads(a.K, G);                    // (G, T, Dh)
  a.V_heads = split_heads(a.V, G);                    // (G, T, Dh)
  p.Q_rot = apply_rope_half(a.Q_heads, inv_freq_);    // (H, T, Dh)
  p.K_rot = apply_rope_half(a.K_heads, inv_freq_);    // (G, T, Dh)
  a.K_expanded = repeat_kv(p.K_rot, H);               // (H, T, Dh)
  a.V_expanded = repeat_kv(a.V_heads, H);             // (H, T, Dh)
  Tensor scores = attention_scores(p.Q_rot, a.K_expanded);  // (H, T, T), before the causal mask
  require_finite_activation(scores, at, "scores", FiniteRule::Causal);
  HeadsAttention h = attend(std::move(scores), a.V_expanded, true);
  a.scores = std::move(h.scores);
  a.weights = std::move(h.weights);
  a.heads = std::move(h.heads);
  a.concat = merge_heads(a.heads);                            // (T, H·Dh)
  a.output = add_bias(matmul(a.concat, w.W_O), w.b_O);        // (T, D)
  require_finite_activation(a.output, at, "attn_out");
  p.x_mid = add(x, a.output);
  require_finite_activation(p.x_mid, at, "resid_mid");
  p.norm2 = rmsnorm(p.x_mid, w.mlp_norm, s_.rms_eps);
  require_finite_norm(p.norm2, at, "norm2");
  p.mlp = swiglu_forward(p.norm2.out, w.W_gate, w.W_up, w.W_down);
  require_finite_activation(p.mlp.hidden, at, "mlp_hidden");  // SiLU(gate) ⊙ up: an infinite gate or up makes it one too
  require_finite_activation(p.mlp.y, at, "mlp_out");
  p.x_out = add(p.x_mid, p.mlp.y);
  require_finite_activation(p.x_out, at, "block_out");
  return p;
}

Tensor rms_head_logits(const Checkpoint& ck, const ModelConfig& m, double eps, const Tensor& x) {
  std::size_t D = m.d, V = m.vocab, T = x.dim(0);
  const ActivationSite at{ck.folder(), as_size(m.l)};
  RmsNormPass norm = rmsnorm(x, ck.read("model.norm.weight", {D}), eps);
  require_finite_norm(norm, at, "final_norm");
  const Tensor& f = norm.out;  // (T, D)
  std::string head = ck.has("lm_head.weight") ? "lm_head.weight" : "model.embed_tokens.weight";
  Tensor out({T, V});
  constexpr std::size_t kBlock = 4096;
  for (std::size_t v0 = 0; v0 < V; v0 += kBlock) {
    std::size_t n = std::min(kBlock, V - v0);
    Tensor rows = ck.read_rows(head, {V, D}, v0, n);  // (n, D)
    Tensor part = matmul_bt(f, rows);                  // (T, n)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < n; ++j) out(t, v0 + j) = part(t, j);
  }
  require_finite_activation(out, at, "logits");
  return out;
}

Tensor LlamaModel::logits(const Tensor& x) const { return rms_head_logits(ck_, m_, s_.rms_eps, x); }

LlamaRun llama_forward(const LlamaModel& model, const std::vector<std::int64_t>& ids, bool with_logits) {
  LlamaRun r;
  Tensor x = model.embed(ids);
  for (std::size_t i = 0; i < model.config().l; ++i) {
    r.residuals.push_back(x);
    LlamaLayerPass p = model.run_layer(model.layer(i), x);
    r.attention.push_back(std::move(p.attn.weights));
    x = std::move(p.x_out);
  }
  r.residuals.push_back(x);
  if (with_logits) r.logits = model.logits(x);
  return r;
}

LlamaLayerPass llama_layer_pass(const LlamaModel& model, const std::vector<std::int64_t>& ids, std::size_t layer,
                                LlamaLayerWeights* weights_out) {
  Tensor x = model.embed(ids);
  for (std::size_t i = 0; i < layer; ++i) x = model.run_layer(model.layer(i), x).x_out;
  LlamaLayerWeights w = model.layer(layer);
  LlamaLayerPass p = model.run_layer(w, x);
  if (weights_out != nullptr) *weights_out = std::move(w);
  return p;
}

}  // namespace attn
