// GPT-2 checkpoints: config, tensor checks, the forward pass. See gpt2.h.
#include "gpt2.h"

#include <nlohmann/json.hpp>

#include "activations.h"
#include "errors.h"
#include "input_file.h"
#include "json_input.h"

namespace attn {

namespace {

constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;  // a config.json is a few KiB

Tensor bias_add(const Tensor& x, const Tensor& b) { return add_bias(x, b); }

}  // namespace

Gpt2Model::Gpt2Model(const std::string& folder) : ck_(folder) {
  std::string cfg_path = folder + "/config.json";
  std::string text = read_regular_file(cfg_path, kMaxConfigBytes, "--weights");
  nlohmann::json j = parse_json_input(text, cfg_path);  // depth, numbers and syntax checked
  std::string type = j.is_object() && j.contains("model_type") && j["model_type"].is_string()
                         ? j["model_type"].get<std::string>() : "";
  if (j.is_object() && type != "gpt2")
    throw UsageError("checkpoint.err.arch", {{"file", cfg_path}, {"type", type.empty() ? "?" : type}});
  m_ = parse_hf_config(text, cfg_path);
  validate(m_, cfg_path, true);
  if (j.contains("layer_norm_epsilon") && j["layer_norm_epsilon"].is_number())
    eps_ = j["layer_norm_epsilon"].get<double>();
  if (j.contains("attnlab_attention_only")) {
    if (!j["attnlab_attention_only"].is_boolean())
      throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "attnlab_attention_only"}});
    attention_only_ = j["attnlab_attention_only"].get<bool>();
  }
  if (!(eps_ > 0 && eps_ < 1)) throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "layer_norm_epsilon"}});
  std::string act = j.contains("activation_function") && j["activation_function"].is_string()
                        ? j["activation_function"].get<std::string>() : "gelu_new";
  if (act == "gelu_new" || act == "gelu_pytorch_tanh" || act == "gelu_fast") act_ = Activation::GeluTanh;
  else if (act == "gelu") act_ = Activation::Gelu;
  else if (act == "relu") act_ = Activation::Relu;
  else if (act == "silu" || act == "swish") act_ = Activation::Silu;
  else throw UsageError("checkpoint.err.config_value", {{"file", cfg_path}, {"key", "activation_function"}});

  prefix_ = ck_.has("transformer.wte.weight") ? "transformer." : "";
  std::size_t V = m_.vocab, D = m_.d, P = m_.positions, F = m_.d_ff;
  ck_.entry(name("wte.weight"), {V, D});
  ck_.entry(name("wpe.weight"), {P, D});
  ck_.entry(name("ln_f.weight"), {D});
  ck_.entry(name("ln_f.bias"), {D});
  if (ck_.has("lm_head.weight")) ck_.entry("lm_head.weight", {V, D});
  for (std::size_t i = 0; i < m_.l; ++i) {
    std::string p = "h." + std::to_string(i) + ".";
    for (const char* n : {"ln_1.weight", "ln_1.bias", "attn.c_proj.bias"}) ck_.entry(name(p + n), {D});
    ck_.entry(name(p + "attn.c_attn.weight"), {D, 3 * D});
    ck_.entry(name(p + "attn.c_attn.bias"), {3 * D});
    ck_.entry(name(p + "attn.c_proj.weight"), {D, D});
    if (attention_only_) continue;
    for (const char* n : {"ln_2.weight", "ln_2.bias", "mlp.c_proj.bias"}) ck_.entry(name(p + n), {D});
    ck_.entry(name(p + "mlp.c_fc.weight"), {D, F});
    ck_.entry(name(p + "mlp.c_fc.bias"), {F});
    ck_.entry(name(p + "mlp.c_proj.weight"), {F, D});
  }
}

Tensor Gpt2Model::embed(const std::vector<std::int64_t>& ids, std::size_t first_position) const {
  std::size_t T = ids.size(), D = as_size(m_.d);
  Tensor x({T, D});
  Tensor pos = ck_.read_rows(name("wpe.weight"), {as_size(m_.positions), D}, first_position, T);
  for (std::size_t t = 0; t < T; ++t) {
    Tensor row = ck_.read_rows(name("wte.weight"), {as_size(m_.vocab), D}, static_cast<std::size_t>(ids[t]), 1);
    for (std::size_t c = 0; c < D; ++c) x(t, c) = row.data[c] + pos(t, c);
  }
  require_finite_activation(x, {ck_.folder(), 0}, "embed");
  return x;
}

Gpt2LayerWeights Gpt2Model::layer(std::size_t i) const {
  std::size_t D = m_.d, F = m_.d_ff;
  std::string p = "h." + std::to_string(i) + ".";
  Gpt2LayerWeights w;
  w.index = i;
  w.ln1_g = ck_.read(name(p + "ln_1.weight"), {D});
  w.ln1_b = ck_.read(name(p + "ln_1.bias"), {D});
  Tensor c_attn = ck_.read(name(p + "attn.c_attn.weight"), {D, 3 * D});  // (D, 3D)
  w.W_Q = col_block(c_attn, 0, D);
  w.W_K = col_block(c_attn, 1, D);
  w.W_V = col_block(c_attn, 2, D);
  Tensor b = ck_.read(name(p + "attn.c_attn.bias"), {3 * D});  // (3D)
  w.b_Q = Tensor({D}, std::vector<double>(b.data.begin(), b.data.begin() + D));
  w.b_K = Tensor({D}, std::vector<double>(b.data.begin() + D, b.data.begin() + 2 * D));
  w.b_V = Tensor({D}, std::vector<double>(b.data.begin() + 2 * D, b.data.end()));
  w.W_O = ck_.read(name(p + "attn.c_proj.weight"), {D, D});
  w.b_O = ck_.read(name(p + "attn.c_proj.bias"), {D});
  if (attention_only_) return w;
  w.ln2_g = ck_.read(name(p + "ln_2.weight"), {D});
  w.ln2_b = ck_.read(name(p + "ln_2.bias"), {D});
  w.W_1 = ck_.read(name(p + "mlp.c_fc.weight"), {D, F});
  w.b_1 = ck_.read(name(p + "mlp.c_fc.bias"), {F});
  w.W_2 = ck_.read(name(p + "mlp.c_proj.weight"), {F, D});
  w.b_2 = ck_.read(name(p + "mlp.c_proj.bias"), {D});
  return w;
}

Gpt2LayerPass Gpt2Model::run_layer(const Gpt2LayerWeights& w, const Tensor& x) const {
  const ActivationSite at{ck_.folder(), w.index};
  Gpt2LayerPass p;
  p.x_in = x;
  p.ln1 = layernorm(x, w.ln1_g, w.ln1_b, eps_);
  require_finite_norm(p.ln1, at, "norm1");
  AttentionPass& a = p.attn;
  a.Q = bias_add(matmul(p.ln1.out, w.W_Q), w.b_Q);  // (T, D)
  a.K = bias_add(matmul(p.ln1.out, w.W_K), w.b_K);  // (T, D)
  a.V = bias_add(matmul(p.ln1.out, w.W_V), w.b_V);  // (T, D)
  require_finite_activation(a.Q, at, "q");
  require_finite_activation(a.K, at, "k");
  require_finite_activation(a.V, at, "v");
  std::size_t H = m_.n_h;
  a.Q_heads = split_heads(a.Q, H);  // (H, T, Dh)
  a.K_heads = split_heads(a.K, H);
  a.V_heads = split_heads(a.V, H);
  a.K_expanded = a.K_heads;
  a.V_expanded = a.V_heads;
  Tensor scores = attention_scores(a.Q_heads, a.K_heads);  // (H, T, T), before the causal mask
  require_finite_activation(scores, at, "scores", FiniteRule::Causal);
  HeadsAttention h = attend(std::move(scores), a.V_heads, true);
  a.scores = std::move(h.scores);
  a.weights = std::move(h.weights);
  a.heads = std::move(h.heads);
  a.concat = merge_heads(a.heads);                          // (T, D)
  a.output = bias_add(matmul(a.concat, w.W_O), w.b_O);      // (T, D)
  require_finite_activation(a.output, at, "attn_out");
  p.x_mid = add(x, a.output);
  require_finite_activation(p.x_mid, at, "resid_mid");
  if (attention_only_) {
    p.x_out = p.x_mid;
    return p;
  }
  p.ln2 = layernorm(p.x_mid, w.ln2_g, w.ln2_b, eps_);
  require_finite_norm(p.ln2, at, "norm2");
  p.ffn = ffn_forward(p.ln2.out, w.W_1, w.b_1, w.W_2, w.b_2, act_);
  require_finite_activation(p.ffn.z, at, "mlp_hidden");  // before the activation: ReLU(−∞) would be 0
  require_finite_activation(p.ffn.h, at, "mlp_hidden");
  require_finite_activation(p.ffn.y, at, "mlp_out");
  p.x_out = add(p.x_mid, p.ffn.y);
  require_finite_activation(p.x_out, at, "block_out");
  return p;
}

Tensor Gpt2Model::logits(const Tensor& x) const {
  std::size_t D = m_.d, V = m_.vocab, T = x.dim(0);
  Tensor g = ck_.read(name("ln_f.weight"), {D}), b = ck_.read(name("ln_f.bias"), {D});
  const ActivationSite at{ck_.folder(), as_size(m_.l)};
  LayerNormPass norm = layernorm(x, g, b, eps_);
  require_finite_norm(norm, at, "final_norm");
  const Tensor& f = norm.out;  // (T, D)
  std::string head = ck_.has("lm_head.weight") ? "lm_head.weight" : name("wte.weight");
  Tensor out({T, V});
  constexpr std::size_t kBlock = 4096;
  for (std::size_t v0 = 0; v0 < V; v0 += kBlock) {
    std::size_t n = std::min(kBlock, V - v0);
    Tensor rows = ck_.read_rows(head, {V, D}, v0, n);  // (n, D)
    Tensor part = matmul_bt(f, rows);                   // (T, n)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < n; ++j) out(t, v0 + j) = part(t, j);
  }
  require_finite_activation(out, at, "logits");
  return out;
}

Gpt2Run gpt2_forward(const Gpt2Model& model, const std::vector<std::int64_t>& ids, bool with_logits) {
  Gpt2Run r;
  Tensor x = model.embed(ids);
  for (std::size_t i = 0; i < model.config().l; ++i) {
    r.residuals.push_back(x);
    Gpt2LayerPass p = model.run_layer(model.layer(i), x);
    r.attention.push_back(std::move(p.attn.weights));
    x = std::move(p.x_out);
  }
  r.residuals.push_back(x);
  if (with_logits) r.logits = model.logits(x);
  return r;
}

Gpt2LayerPass gpt2_layer_pass(const Gpt2Model& model, const std::vector<std::int64_t>& ids, std::size_t layer,
                              Gpt2LayerWeights* weights_out) {
  Tensor x = model.embed(ids);
  for (std::size_t i = 0; i < layer; ++i) x = model.run_layer(model.layer(i), x).x_out;
  Gpt2LayerWeights w = model.layer(layer);
  Gpt2LayerPass p = model.run_layer(w, x);
  if (weights_out != nullptr) *weights_out = std::move(w);
  return p;
}

}  // namespace attn
