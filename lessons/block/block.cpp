// Lesson `block`: a preview of the next chapter — one pre-LayerNorm transformer block, GPT-2 style.
//   x -> resid1 = x + MHA(LN_1(x)) -> output = resid1 + FFN(LN_2(resid1))
// Legend: T tokens, D = d_model, H heads, Dh = D / H, F = d_ff. Words: lessons/block/LANG.cat.
#include <cmath>

#include "locate.h"
#include "block.h"
#include "errors.h"
#include "ffn_common/ffn_common.h"
#include "lesson.h"
#include "models.h"
#include "random.h"
#include "real_weights.h"
#include "row_stats.h"

namespace attn {

namespace {

constexpr double kNearStd = 0.1;  // γ = 1 + N(0, 0.1²), β and biases N(0, 0.1²): "as if trained a little"

struct Dims {
  std::size_t T, D, H, Dk, F;
  Activation act;
};

// The lesson's options (lang and seed come with every run).
struct BlockOptions : RunContext {
  std::optional<std::string> tokens;  // --tokens
  std::optional<std::int64_t> seq_len;  // --seq-len
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> heads;  // --heads
  std::optional<std::int64_t> d_ff;  // --d-ff
  bool causal = false;  // --causal
  std::optional<std::string> activation;  // --activation
  std::optional<std::string> weights, text, token_ids;  // a real GPT-2 checkpoint and the learner's sentence
  std::optional<std::int64_t> layer;                    // counting from 1
};

void bind(OptionBinder& b, BlockOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.integer("--d-ff", o.d_ff);
  b.toggle("--causal", o.causal);
  b.text("--activation", o.activation);
}

Dims resolve_dims(const BlockOptions& c, std::size_t T) {
  std::size_t H = positive(c.heads, 2, "--heads");
  std::size_t D = d_model_or_derived(c.d_model, H);
  require_divisible(D, "--d-model", H, "--heads");
  std::size_t F = positive(c.d_ff, 4 * D, "--d-ff");
  Activation act = resolve_activation(c);
  {
    double dm = static_cast<double>(D), f = static_cast<double>(F), h = static_cast<double>(H);
    require_work([&](double t) {
      return Work{4.0 * t * dm * dm + 2.0 * t * t * dm + 2.0 * t * dm * f,
                  8.0 * t * dm + 4.0 * dm * dm + 2.0 * dm * f + 2.0 * t * f + 4.0 * h * t * t};
    }, T, "--seq-len/--tokens", "--seq-len/--tokens, --d-model, --d-ff, --heads");
  }
  require_fits({D, D}, "W_Q", "--d-model");
  require_fits({D, F}, "W_1", "--d-model or --d-ff");
  require_fits({T, F}, "the FFN hidden layer", "--seq-len/--tokens or --d-ff");
  require_fits({H, T, T}, "the attention weights", "--seq-len/--tokens or --heads");
  return {T, D, H, D / H, F, act};
}

// Draw every weight in the order the trace lists them.
BlockWeights draw_weights(Rng& rng, const Dims& d) {
  auto near_one = [&](std::size_t n) {  // (n): 1 + N(0, 0.1²)
    return add(randn(rng, {n}, kNearStd), Tensor({n}, std::vector<double>(n, 1.0)));
  };
  BlockWeights w;
  w.ln1_gamma = near_one(d.D);
  w.ln1_beta = randn(rng, {d.D}, kNearStd);
  w.W_Q = init_weight(rng, d.D, d.D);
  w.W_K = init_weight(rng, d.D, d.D);
  w.W_V = init_weight(rng, d.D, d.D);
  w.W_O = init_weight(rng, d.D, d.D);
  w.b_Q = randn(rng, {d.D}, kNearStd);
  w.b_K = randn(rng, {d.D}, kNearStd);
  w.b_V = randn(rng, {d.D}, kNearStd);
  w.b_O = randn(rng, {d.D}, kNearStd);
  w.ln2_gamma = near_one(d.D);
  w.ln2_beta = randn(rng, {d.D}, kNearStd);
  w.W_1 = init_weight(rng, d.D, d.F);
  w.b_1 = randn(rng, {d.F}, kNearStd);
  w.W_2 = init_weight(rng, d.F, d.D);
  w.b_2 = randn(rng, {d.D}, kNearStd);
  return w;
}

// Everything the lesson shows, computed before any narration.
struct Block {
  Tensor X;        // (T, D)
  BlockWeights w;  // LayerNorms, attention and FFN weights
  BlockPass p;     // ln1, attention, resid1, ln2, FFN, output
};

Block compute(const Dims& d, std::uint64_t seed, bool causal) {
  Rng rng(seed);
  Block b;
  b.X = randn(rng, {d.T, d.D});
  b.w = draw_weights(rng, d);
  b.p = transformer_block(b.X, b.w, d.H, causal, d.act);
  return b;
}

void step_ln(LessonRecorder& r, int which, const Tensor& in, const LayerNormPass& ln, const Tensor& gamma,
             const Tensor& beta, const std::vector<std::string>& tokens) {
  std::string n = std::to_string(which);
  r.step("ln" + n);
  r.tensor("ln" + n + "_gamma", gamma);
  r.tensor("ln" + n + "_beta", beta);
  r.tensor("ln" + n + "_out", ln.out, Labels{.rows = tokens});
  Tensor m_hat = row_means(ln.xhat), n_hat = row_norms(ln.xhat);  // (T), (T)
  Table t{{r.t("ln.col.token"), r.t("ln.col.mean"), "√(var+ε)", r.t("ln.col.mean_after"), "|x̂| / √d"}, {}};
  double sqrt_d = std::sqrt(static_cast<double>(in.dim(1)));
  for (std::size_t i = 0; i < std::min<std::size_t>(tokens.size(), 16); ++i)
    t.rows.push_back({tokens[i], ln.mean.data[i], 1.0 / ln.rstd.data[i], m_hat.data[i], n_hat.data[i] / sqrt_d});
  r.table(t);
}

void step_attention(LessonRecorder& r, const Dims& d, const BlockWeights& w, const BlockPass& p,
                    const std::vector<std::string>& tokens, bool causal) {
  r.step("attention", {{"heads", d.H}, {"d_k", d.Dk}, {"causal", causal}});
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"W_Q", &w.W_Q}, {"W_K", &w.W_K}, {"W_V", &w.W_V}, {"W_O", &w.W_O}})
    r.tensor(name, *t);
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"b_Q", &w.b_Q}, {"b_K", &w.b_K}, {"b_V", &w.b_V}, {"b_O", &w.b_O}})
    r.tensor(name, *t);
  r.tensor("attn_weights", p.weights, Labels{.rows = tokens, .cols = tokens, .heatmap = true});
  r.tensor("attn_out", p.attn_out, Labels{.rows = tokens});
}

void step_ffn(LessonRecorder& r, const Dims& d, const BlockWeights& w, const BlockPass& p,
              const std::vector<std::string>& tokens) {
  r.step("ffn", {{"act", activation_name(d.act)}, {"d_model", d.D}, {"d_ff", d.F}});
  r.tensor("W_1", w.W_1);
  r.tensor("b_1", w.b_1);
  r.tensor("ffn_hidden", p.ffn_hidden, Labels{.rows = tokens});
  r.tensor("W_2", w.W_2);
  r.tensor("b_2", w.b_2);
  r.tensor("ffn_out", p.ffn_out, Labels{.rows = tokens});
}

void step_stream(LessonRecorder& r, const Tensor& X, const BlockPass& p, const std::vector<std::string>& tokens) {
  r.step("output");
  r.tensor("output", p.output, Labels{.rows = tokens});
  Tensor nx = row_norms(X), na = row_norms(p.attn_out), n1 = row_norms(p.resid1), nf = row_norms(p.ffn_out),
         no = row_norms(p.output);  // (T) each
  Table t{{r.t("output.col.token"), "|x|", "|attn_out|", "|resid1|", "|ffn_out|", "|output|"}, {}};
  for (std::size_t i = 0; i < std::min<std::size_t>(tokens.size(), 16); ++i)
    t.rows.push_back({tokens[i], nx.data[i], na.data[i], n1.data[i], nf.data[i], no.data[i]});
  r.table(t);
  r.value("resid1_check", max_abs_diff(p.resid1, add(X, p.attn_out)));
  r.note("output.note_seed");
}

void step_params(LessonRecorder& r, const Dims& d) {
  r.step("params");
  BlockParamCount run = block_param_count(static_cast<std::int64_t>(d.D), static_cast<std::int64_t>(d.F));
  BlockParamCount g = block_param_count(768, 3072);
  Table t{{r.t("params.col.part"), r.t("params.col.formula"), r.t("params.col.run"), r.t("params.col.gpt2")}, {}};
  t.rows.push_back({std::string("ln1 γ, β"), std::string("2·d"), run.ln1, g.ln1});
  t.rows.push_back({std::string("W_Q W_K W_V + b"), std::string("3·d² + 3·d"), run.qkv, g.qkv});
  t.rows.push_back({std::string("W_O + b_O"), std::string("d² + d"), run.proj, g.proj});
  t.rows.push_back({std::string("ln2 γ, β"), std::string("2·d"), run.ln2, g.ln2});
  t.rows.push_back({std::string("W_1 + b_1"), std::string("d·d_ff + d_ff"), run.fc, g.fc});
  t.rows.push_back({std::string("W_2 + b_2"), std::string("d_ff·d + d"), run.fc_proj, g.fc_proj});
  t.rows.push_back({r.t("params.row.block"), std::string(""), run.total, g.total});
  r.table(t);
  r.value("block_params", run.total);
  r.value("block_params_gpt2", g.total);
  ParamReport gpt2 = count_params(load_preset("gpt2"));  // the `params` command's independent count
  r.value("block_params_gpt2_models", static_cast<std::int64_t>(gpt2.layers.at(0).total));
  r.value("gpt2_total", static_cast<std::int64_t>(gpt2.total));
  std::uint64_t ffn_all = ffn_params_all_layers(gpt2);
  r.note("params.note", {{"attention", 100.0 * static_cast<double>(g.qkv + g.proj) / static_cast<double>(g.total)},
                         {"ffn", 100.0 * static_cast<double>(g.fc + g.fc_proj) / static_cast<double>(g.total)},
                         {"norms", g.ln1 + g.ln2},
                         {"model_ffn", 100.0 * static_cast<double>(ffn_all) / static_cast<double>(gpt2.total)}});
}

// ---- --weights: a real GPT-2 layer as the block -------------------------------------------------

constexpr std::size_t kRealMaxTokens = 64;  // the (H, T, T) heatmaps stay readable

// The layer's own weights in the block's names, and its pass: x is the residual stream entering
// the layer (the real embeddings and the layers below), output the one leaving it.
Block compute_real(const RealInput& in, std::size_t layer) {
  Gpt2LayerWeights w;
  Gpt2LayerPass p = gpt2_layer_pass(*in.model, in.ids, layer, &w);
  Block b;
  b.X = std::move(p.x_in);
  b.w = {std::move(w.ln1_g), std::move(w.ln1_b), std::move(w.W_Q), std::move(w.W_K), std::move(w.W_V), std::move(w.W_O),
         std::move(w.b_Q), std::move(w.b_K), std::move(w.b_V), std::move(w.b_O), std::move(w.ln2_g), std::move(w.ln2_b),
         std::move(w.W_1), std::move(w.b_1), std::move(w.W_2), std::move(w.b_2)};
  b.p.ln1 = std::move(p.ln1);
  b.p.Q = std::move(p.attn.Q);
  b.p.K = std::move(p.attn.K);
  b.p.V = std::move(p.attn.V);
  b.p.weights = std::move(p.attn.weights);
  b.p.concat = std::move(p.attn.concat);
  b.p.attn_out = std::move(p.attn.output);
  b.p.resid1 = std::move(p.x_mid);
  b.p.ln2 = std::move(p.ln2);
  b.p.ffn_hidden = std::move(p.ffn.z);
  b.p.ffn_act = std::move(p.ffn.h);
  b.p.ffn_out = std::move(p.ffn.y);
  b.p.output = std::move(p.x_out);
  return b;
}

// derived: d_model was derived from --heads (the random run's note).
void narrate(LessonRecorder& r, const Dims& d, const Block& b, const std::vector<std::string>& tokens, bool causal, bool real,
             bool derived = false) {
  r.step(real ? "input_real" : "input");
  r.tensor("X", b.X, Labels{.rows = tokens});
  note_d_model_derived(r, derived, d.D, d.H);
  step_ln(r, 1, b.X, b.p.ln1, b.w.ln1_gamma, b.w.ln1_beta, tokens);
  step_attention(r, d, b.w, b.p, tokens, causal);
  r.step("resid1");
  r.tensor("resid1", b.p.resid1, Labels{.rows = tokens});
  step_ln(r, 2, b.p.resid1, b.p.ln2, b.w.ln2_gamma, b.w.ln2_beta, tokens);
  step_ffn(r, d, b.w, b.p, tokens);
  step_stream(r, b.X, b.p, tokens);
  step_params(r, d);
}

Trace run_real(const BlockOptions& c) {
  for (auto [set, flag] : {std::pair{c.tokens.has_value(), "--tokens"}, {c.seq_len.has_value(), "--seq-len"},
                           {c.d_model.has_value(), "--d-model"}, {c.heads.has_value(), "--heads"}, {c.d_ff.has_value(), "--d-ff"},
                           {c.activation.has_value(), "--activation"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens);
  if (!in.model) throw UsageError("llama.err.block_llama", {{"folder", in.folder}});
  if (in.model->attention_only()) throw UsageError("checkpoint.err.attention_only", {{"folder", in.folder}});
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  BlockOptions run = c;
  run.causal = true;  // GPT-2's attention is causal, whatever --causal says
  LessonRecorder r("block", c.lang, {"block", "ffn_common"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  Dims d{in.ids.size(), as_size(mc.d), as_size(mc.n_h), as_size(mc.d_h), as_size(mc.d_ff), in.model->activation()};
  record_head_config(r, run, in.labels, HeadDims{d.T, d.D, d.H, d.Dk});
  r.config("d_ff", I(d.F));
  r.config("activation", std::string(activation_name(d.act)));
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  Block b = compute_real(in, li);
  r.step("real_model", {{"folder", weights_label(in.folder)}, {"from_text", in.from_text}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"heads", mc.n_h}, {"d_model", mc.d},
                        {"d_ff", mc.d_ff}, {"act", activation_name(d.act)}, {"asked_causal", c.causal},
                        {"next", li + 1 < mc.l}});
  narrate(r, d, b, in.labels, true, true);
  return r.finish();
}

Trace run(const BlockOptions& c) {
  if (c.weights) return run_real(c);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r("block", c.lang, {"block", "ffn_common"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  Dims d = resolve_dims(c, token_count(c, defaults));  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_head_config(r, c, tokens, HeadDims{d.T, d.D, d.H, d.Dk});
  r.config("d_ff", I(d.F));
  r.config("activation", std::string(activation_name(d.act)));
  Block b = compute(d, static_cast<std::uint64_t>(c.seed), c.causal);
  narrate(r, d, b, tokens, c.causal, false, !c.d_model && d.D != 8);
  return r.finish();
}

}  // namespace

extern const LessonInfo block_lesson = lesson_info<BlockOptions>("block", bind, run);

}  // namespace attn
