// DeepSeek-V2-style MLA checkpoints: config, tensor checks, the forward pass. See deepseek.h.
#include "deepseek.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "activations.h"
#include "errors.h"
#include "input_file.h"
#include "json_input.h"
#include "llama.h"
#include "rope.h"

namespace attn {

namespace {

constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;

std::string layer_name(std::size_t i, const char* tail) { return "model.layers." + std::to_string(i) + "." + tail; }

// nn.Linear's (out, in) weight as the chapter's (in, out).
Tensor read_linear(const Checkpoint& ck, const std::string& name, std::size_t out, std::size_t in) {
  return transpose(ck.read(name, {out, in}));
}

// Columns c0 … c0 + width − 1 of w (R, C), taken from each of n blocks of `stride` columns:
// (R, n·width). Cuts head i's part out of a fused projection.
Tensor columns_per_block(const Tensor& w, std::size_t n, std::size_t stride, std::size_t c0, std::size_t width) {
  Tensor out({w.dim(0), n * width});
  for (std::size_t r = 0; r < w.dim(0); ++r)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < width; ++c) out(r, i * width + c) = w(r, i * stride + c0 + c);
  return out;
}

}  // namespace

bool is_mla_family(const std::string& t) { return t == "deepseek_v2"; }

MlaModel::MlaModel(const std::string& folder) : ck_(folder) {
  const std::string cfg_path = folder + "/config.json";
  const std::string text = read_regular_file(cfg_path, kMaxConfigBytes, "--weights");
  const nlohmann::json j = parse_json_input(text, cfg_path);
  m_ = parse_hf_config(text, cfg_path);  // sizes, MLA widths, experts; validated
  auto unsupported = [&](const char* key) { throw UsageError("llama.err.mla_unsupported", {{"file", cfg_path}, {"key", key}}); };
  if (m_.model_type != "deepseek_v2") unsupported("model_type");
  if (m_.n_routed > 0) unsupported("n_routed_experts");
  if (m_.d_cq > 0) unsupported("q_lora_rank");
  if (m_.mla_kv_norm) unsupported("kv_a_layernorm");
  if (m_.d_v != m_.d_nope) unsupported("v_head_dim");
  if (m_.d_R == 0 || m_.d_R % 2 != 0) unsupported("qk_rope_head_dim");
  auto number = [&](const char* key, double fallback) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || !(it->get<double>() > 0))
      throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", key}});
    return it->get<double>();
  };
  if (number("rope_theta", kRopeBase) != kRopeBase) unsupported("rope_theta");
  if (j.contains("rope_scaling") && !j["rope_scaling"].is_null()) unsupported("rope_scaling");
  auto act = j.find("hidden_act");
  if (act != j.end() && !(act->is_string() && (*act == "silu" || *act == "swish"))) unsupported("hidden_act");
  rms_eps_ = number("rms_norm_eps", 1e-6);
  if (!(rms_eps_ < 1)) throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "rms_norm_eps"}});
  max_positions_ = static_cast<u64>(number("max_position_embeddings", 0));

  const std::size_t V = m_.vocab, D = m_.d, H = m_.n_h, Dh = m_.d_nope, C = m_.d_c, R = m_.d_R, F = m_.d_ff;
  ck_.entry("model.embed_tokens.weight", {V, D});
  ck_.entry("model.norm.weight", {D});
  if (!m_.tied_embeddings || ck_.has("lm_head.weight")) ck_.entry("lm_head.weight", {V, D});
  for (std::size_t i = 0; i < m_.l; ++i) {
    if (ck_.has(layer_name(i, "self_attn.kv_a_layernorm.weight"))) unsupported("kv_a_layernorm");
    ck_.entry(layer_name(i, "input_layernorm.weight"), {D});
    ck_.entry(layer_name(i, "post_attention_layernorm.weight"), {D});
    ck_.entry(layer_name(i, "self_attn.q_proj.weight"), {H * (Dh + R), D});
    ck_.entry(layer_name(i, "self_attn.kv_a_proj_with_mqa.weight"), {C + R, D});
    ck_.entry(layer_name(i, "self_attn.kv_b_proj.weight"), {H * 2 * Dh, C});
    ck_.entry(layer_name(i, "self_attn.o_proj.weight"), {D, H * Dh});
    ck_.entry(layer_name(i, "mlp.gate_proj.weight"), {F, D});
    ck_.entry(layer_name(i, "mlp.up_proj.weight"), {F, D});
    ck_.entry(layer_name(i, "mlp.down_proj.weight"), {D, F});
  }
}

MlaDims MlaModel::dims(std::size_t T) const {
  MlaDims d{T, as_size(m_.d), as_size(m_.n_h), as_size(m_.d_nope), as_size(m_.d_c)};
  d.R = m_.d_R;
  return d;
}

Tensor MlaModel::embed(const std::vector<std::int64_t>& ids) const {
  const std::size_t T = ids.size(), D = as_size(m_.d);
  Tensor x({T, D});
  for (std::size_t t = 0; t < T; ++t) {
    Tensor row = ck_.read_rows("model.embed_tokens.weight", {as_size(m_.vocab), D}, static_cast<std::size_t>(ids[t]), 1);
    for (std::size_t c = 0; c < D; ++c) x(t, c) = row.data[c];
  }
  require_finite_activation(x, {ck_.folder(), 0}, "embed");
  return x;
}

MlaLayerWeights MlaModel::layer(std::size_t i) const {
  const std::size_t D = m_.d, H = m_.n_h, Dh = m_.d_nope, C = m_.d_c, R = m_.d_R, F = m_.d_ff;
  MlaLayerWeights w;
  w.index = i;
  w.attn_norm = ck_.read(layer_name(i, "input_layernorm.weight"), {D});
  const Tensor q = read_linear(ck_, layer_name(i, "self_attn.q_proj.weight"), H * (Dh + R), D);      // (D, H·(Dh+R))
  w.w.W_Q = columns_per_block(q, H, Dh + R, 0, Dh);                                                   // (D, H·Dh)
  w.w.W_QR = columns_per_block(q, H, Dh + R, Dh, R);                                                  // (D, H·R)
  const Tensor kva = read_linear(ck_, layer_name(i, "self_attn.kv_a_proj_with_mqa.weight"), C + R, D);  // (D, C+R)
  w.w.W_DKV = columns_per_block(kva, 1, C + R, 0, C);                                                 // (D, C)
  w.w.W_KR = columns_per_block(kva, 1, C + R, C, R);                                                  // (D, R)
  const Tensor kvb = read_linear(ck_, layer_name(i, "self_attn.kv_b_proj.weight"), H * 2 * Dh, C);    // (C, H·2Dh)
  w.w.W_UK = columns_per_block(kvb, H, 2 * Dh, 0, Dh);                                                // (C, H·Dh)
  w.w.W_UV = columns_per_block(kvb, H, 2 * Dh, Dh, Dh);                                               // (C, H·Dh)
  w.w.W_O = read_linear(ck_, layer_name(i, "self_attn.o_proj.weight"), D, H * Dh);                    // (H·Dh, D)
  w.mlp_norm = ck_.read(layer_name(i, "post_attention_layernorm.weight"), {D});
  w.W_gate = read_linear(ck_, layer_name(i, "mlp.gate_proj.weight"), F, D);  // (D, F)
  w.W_up = read_linear(ck_, layer_name(i, "mlp.up_proj.weight"), F, D);      // (D, F)
  w.W_down = read_linear(ck_, layer_name(i, "mlp.down_proj.weight"), D, F);  // (F, D)
  return w;
}

MlaLayerPass MlaModel::run_layer(const MlaLayerWeights& w, const Tensor& x) const {
  const ActivationSite at{ck_.folder(), w.index};
  MlaLayerPass p;
  p.x_in = x;
  p.norm1 = rmsnorm(x, w.attn_norm, rms_eps_);
  require_finite_norm(p.norm1, at, "norm1");
  try {
    p.attn = mla_naive(p.norm1.out, w.w, dims(x.dim(0)), true);
  } catch (const std::invalid_argument&) {
    // a query row whose every score overflowed to −inf: the softmax refuses it
    throw UsageError("checkpoint.err.activation_not_finite", {{"folder", ck_.folder()}, {"layer", w.index + 1}, {"l0", w.index}, {"tensor", "scores"}});
  }
  const MlaNaive& n = p.attn;
  require_finite_activation(n.c_KV, at, "k");
  require_finite_activation(n.K_C, at, "k");
  require_finite_activation(n.V_C, at, "v");
  require_finite_activation(n.Q_C, at, "q");
  require_finite_activation(n.Q_R, at, "q");
  require_finite_activation(n.K_R, at, "k");
  require_finite_activation(n.scores, at, "scores", FiniteRule::Causal);
  require_finite_activation(n.output, at, "attn_out");
  p.x_mid = add(x, n.output);
  require_finite_activation(p.x_mid, at, "resid_mid");
  p.norm2 = rmsnorm(p.x_mid, w.mlp_norm, rms_eps_);
  require_finite_norm(p.norm2, at, "norm2");
  p.mlp = swiglu_forward(p.norm2.out, w.W_gate, w.W_up, w.W_down);
  require_finite_activation(p.mlp.hidden, at, "mlp_hidden");
  require_finite_activation(p.mlp.y, at, "mlp_out");
  p.x_out = add(p.x_mid, p.mlp.y);
  require_finite_activation(p.x_out, at, "block_out");
  return p;
}

Tensor MlaModel::logits(const Tensor& x) const { return rms_head_logits(ck_, m_, rms_eps_, x); }

MlaRun mla_forward(const MlaModel& model, const std::vector<std::int64_t>& ids, bool with_logits) {
  MlaRun r;
  Tensor x = model.embed(ids);
  for (std::size_t i = 0; i < model.config().l; ++i) {
    r.residuals.push_back(x);
    MlaLayerPass p = model.run_layer(model.layer(i), x);
    r.attention.push_back(std::move(p.attn.weights));
    x = std::move(p.x_out);
  }
  r.residuals.push_back(x);
  if (with_logits) r.logits = model.logits(x);
  return r;
}

MlaLayerPass mla_layer_pass(const MlaModel& model, const std::vector<std::int64_t>& ids, std::size_t layer,
                            MlaLayerWeights* weights_out) {
  Tensor x = model.embed(ids);
  for (std::size_t i = 0; i < layer; ++i) x = model.run_layer(model.layer(i), x).x_out;
  MlaLayerWeights w = model.layer(layer);
  MlaLayerPass p = model.run_layer(w, x);
  if (weights_out != nullptr) *weights_out = std::move(w);
  return p;
}

}  // namespace attn
