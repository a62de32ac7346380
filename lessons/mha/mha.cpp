// Lesson `mha`: section 1 of the chapter — multi-head attention, step by step.
//   X -> fused Q, K, V -> split into h heads -> per-head attention -> concat -> W_O
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H. Words: lessons/mha/LANG.cat.
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "locate.h"
#include "attention.h"
#include "errors.h"
#include "lesson.h"
#include "models.h"
#include "random.h"
#include "real_weights.h"
#include "row_stats.h"

namespace attn {

namespace {

// Everything the lesson shows, computed before any narration.
struct Mha {
  Tensor X, W_Q, W_K, W_V, W_O;  // (T, D), (D, D) × 4
  Tensor b_Q, b_O;               // (D): zero here; a real checkpoint's biases (GPT-2 has them)
  AttentionPass p;               // Q, K, V, heads, scores, weights, concat, output
  Tensor W_Q_1, Q_1_direct;      // (D, Dh), (T, Dh): head 1's own projection, computed alone
  Tensor contributions;          // (H, T, D): head_i W_O,i
  Tensor contribution_sum;       // (T, D): Σ_i head_i W_O,i
  Tensor Q_rot, K_rot;           // Llama family only: (H, T, Dh), (G, T, Dh) after RoPE
  Tensor inv_freq;               // Llama family only: (Dh/2) the RoPE frequencies θ_i
};

Mha compute(const HeadDims& d, std::uint64_t seed, bool causal) {
  Rng rng(seed);
  Mha m;
  m.X = randn(rng, {d.T, d.D});
  m.W_Q = init_weight(rng, d.D, d.D);
  m.W_K = init_weight(rng, d.D, d.D);
  m.W_V = init_weight(rng, d.D, d.D);
  m.W_O = init_weight(rng, d.D, d.D);
  m.b_Q = Tensor({d.D});
  m.b_O = Tensor({d.D});
  m.p = grouped_attention(m.X, m.W_Q, m.W_K, m.W_V, m.W_O, d.H, d.H, causal);
  return m;
}

// The checks every run shows: head 1 computed on its own, and the output as a sum over heads.
void compute_checks(const HeadDims& d, Mha& m) {
  Tensor b_Q_1({d.Dk}, std::vector<double>(m.b_Q.data.begin(), m.b_Q.data.begin() + static_cast<std::ptrdiff_t>(d.Dk)));
  m.W_Q_1 = col_block(m.W_Q, 0, d.Dk);                   // (D, Dh)
  m.Q_1_direct = add_bias(matmul(m.X, m.W_Q_1), b_Q_1);  // (T, Dh)
  m.contributions = head_contributions(m.p.heads, m.W_O);
  m.contribution_sum = add_bias(sum_over_heads(m.contributions), m.b_O);
}

// A real checkpoint's layer: X is ln_1 of the residual stream entering the layer (the real
// embeddings and the layers below), the weights are the layer's own, attention is causal.
Mha compute_real(const RealInput& in, std::size_t layer) {
  Gpt2LayerWeights w;
  Gpt2LayerPass pass = gpt2_layer_pass(*in.model, in.ids, layer, &w);
  Mha m;
  m.X = std::move(pass.ln1.out);
  m.W_Q = std::move(w.W_Q);
  m.W_K = std::move(w.W_K);
  m.W_V = std::move(w.W_V);
  m.W_O = std::move(w.W_O);
  m.b_Q = std::move(w.b_Q);
  m.b_O = std::move(w.b_O);
  m.p = std::move(pass.attn);
  return m;
}

// A Llama-family layer: X is the input RMSNorm of the residual stream, Q and K are rotated
// (RoPE) before the scores, and K, V have G heads, each read by H / G query heads.
Mha compute_real_llama(const RealInput& in, std::size_t layer) {
  LlamaLayerWeights w;
  LlamaLayerPass pass = llama_layer_pass(*in.llama, in.ids, layer, &w);
  Mha m;
  m.X = std::move(pass.norm1.out);
  m.W_Q = std::move(w.W_Q);
  m.W_K = std::move(w.W_K);
  m.W_V = std::move(w.W_V);
  m.W_O = std::move(w.W_O);
  m.b_Q = std::move(w.b_Q);
  m.b_O = std::move(w.b_O);
  m.p = std::move(pass.attn);
  m.Q_rot = std::move(pass.Q_rot);
  m.K_rot = std::move(pass.K_rot);
  m.inv_freq = in.llama->inv_freq();
  return m;
}

// The Llama family's RoPE, between the split and the scores.
void step_rope(LessonRecorder& r, const RealInput& in, const Mha& m, const std::vector<std::string>& tokens) {
  const LlamaSettings& s = in.llama->settings();
  const ModelConfig& mc = in.config();
  r.step("rope", {{"d_k", mc.d_h}, {"half", mc.d_h / 2}, {"theta", s.rope_theta}, {"scaling", s.rope_type.empty() ? "none" : s.rope_type},
                  {"per", mc.n_h / mc.n_g}});
  r.tensor("inv_freq", m.inv_freq);
  r.tensor("Q_rot", m.Q_rot, {.rows = tokens});
  r.tensor("K_rot", m.K_rot, {.rows = tokens});
}

// The steps move each tensor into the trace when they record it (a 768/12/1024 run holds one
// copy of its numbers, not two) and read it back from there.
// source: "given" (--tokens), else the chapter's sentence, "padded" when --seq-len runs past its words.
void step_input(LessonRecorder& r, Mha& m, const std::vector<std::string>& tokens, bool real = false, bool given = false) {
  if (real) r.step("input_real");
  else {
    const std::size_t words = chapter_tokens(r.lang(), kMaxTensorElements).size();
    r.step("input", {{"source", given ? "given" : tokens.size() > words ? "padded" : "chapter"}, {"words", words},
                     {"next", words + 1}, {"next2", words + 2}});
  }
  r.tensor("X", std::move(m.X), {.rows = tokens});
}

void step_project(LessonRecorder& r, const HeadDims& d, Mha& m, const std::vector<std::string>& tokens) {
  r.step("project", {{"d_model", d.D}, {"d_k", d.Dk}});
  r.tensor("W_Q", std::move(m.W_Q));
  r.tensor("W_K", std::move(m.W_K));
  r.tensor("W_V", std::move(m.W_V));
  Labels rows{.rows = tokens};
  r.tensor("Q", std::move(m.p.Q), rows);  // (T, D)
  r.tensor("K", std::move(m.p.K), rows);  // (T, D)
  r.tensor("V", std::move(m.p.V), rows);  // (T, D)
}

// Heads count from 1, as the chapter does; on a checkpoint (real) the tensor index H0, H1, … stands beside.
void step_split_heads(LessonRecorder& r, const HeadDims& d, Mha& m, const std::vector<std::string>& tokens, bool real = false) {
  r.step("split_heads", {{"d_model", d.D}, {"heads", d.H}, {"d_k", d.Dk}});
  const Tensor& Q_heads = r.tensor("Q_heads", std::move(m.p.Q_heads), {.rows = tokens});  // (H, T, Dk)
  r.tensor("K_heads", std::move(m.p.K_heads), {.rows = tokens});  // (H, T, Dk)
  r.tensor("V_heads", std::move(m.p.V_heads), {.rows = tokens});  // (H, T, Dk)
  r.value("d_k", I(d.Dk));
  r.tensor("W_Q_1", std::move(m.W_Q_1), {}, {{"real", real}});
  const Tensor& Q_1_direct = r.tensor("Q_1_direct", std::move(m.Q_1_direct), {.rows = tokens});  // (T, Dk)
  double diff = max_abs_diff(Q_1_direct, slice0(Q_heads, 0));
  r.value("head1_check", diff, {{"real", real}});
  r.note("split_heads.note", {{"diff", diff}});
  r.note("split_heads.note_seed", {{"d_model", d.D}, {"d_k", d.Dk}});
}

void step_attention(LessonRecorder& r, const HeadDims& d, Mha& m, const std::vector<std::string>& tokens,
                    bool causal, bool real = false) {
  r.step("scores", {{"d_k", d.Dk}, {"T", d.T}});
  Labels square{.rows = tokens, .cols = tokens};
  r.tensor("scores", std::move(m.p.scores), square, {{"causal", causal}});
  square.heatmap = true;
  r.step("weights");
  const Tensor& W = r.tensor("weights", std::move(m.p.weights), square);
  r.value("max_row_sum_error", max_row_sum_error(W));
  if (d.H > 1) r.value("head_difference", slices_max_abs_diff(W, 0, 1));
  std::size_t last = d.T - 1, listed = std::min<std::size_t>(d.H, 8);
  for (std::size_t h = 0; h < listed; ++h) {
    std::size_t j = strongest_column(W, h, last);
    r.note("weights.note_head", {{"head", h + 1}, {"h0", h}, {"real", real}, {"query", tokens[last]}, {"key", tokens[j]}, {"weight", W(h, last, j)}});
  }
  if (listed < d.H) r.note("weights.note_more", {{"from", listed + 1}, {"to", d.H}});
}

void step_concat_output(LessonRecorder& r, const HeadDims& d, Mha& m, const std::vector<std::string>& tokens) {
  r.step("heads");
  r.tensor("heads", std::move(m.p.heads), {.rows = tokens});

  r.step("concat", {{"T", d.T}, {"d_k", d.Dk}, {"heads", d.H}, {"d_model", d.D}});
  r.tensor("concat", std::move(m.p.concat), {.rows = tokens});
  r.tensor("W_O", std::move(m.W_O));
  const Tensor& output = r.tensor("output", std::move(m.p.output), {.rows = tokens});  // (T, D)

  r.step("mix");
  r.tensor("head_contributions", std::move(m.contributions), {.rows = tokens});
  r.value("sum_check", max_abs_diff(m.contribution_sum, output));
}

void step_params(LessonRecorder& r, const HeadDims& d) {
  r.step("params");
  auto D = static_cast<std::int64_t>(d.D);
  Table mats{{r.t("params.col.matrix"), r.t("params.col.run"), "", r.t("params.col.chapter"), ""}, {}};
  for (const char* name : {"W_Q", "W_K", "W_V", "W_O"})
    mats.rows.push_back({std::string(name), shape_str({d.D, d.D}), D * D, std::string("[768, 768]"), std::int64_t{768 * 768}});
  mats.rows.push_back({r.t("params.row.total"), std::string("4·d²"), attention_param_count(D, d.H, d.H, d.Dk),
                       std::string("4·768²"), attention_param_count(768, 12, 12, 64)});
  r.table(mats);
  r.value("params_run", attention_param_count(D, d.H, d.H, d.Dk));
  r.value("params_chapter", attention_param_count(768, 12, 12, 64));
  // The head-count sweep at the user's d_model (every h that divides it, up to 64 heads).
  Table heads{{"h", "d_k", r.t("params.col.w_q_i"), r.t("params.col.attention")}, {}};
  for (std::int64_t h = 1; h <= std::min<std::int64_t>(D, 64); ++h)
    if (D % h == 0)
      heads.rows.push_back({h, D / h, shape_str({d.D, static_cast<std::size_t>(D / h)}), attention_param_count(D, h, h, D / h)});
  r.table(heads);
  r.note("params.note", {{"params", attention_param_count(D, d.H, d.H, d.Dk)}, {"d_model", d.D}});
  // The conversation's "Base: 8 or 12 heads, Large: 16, GPT-3: 96", against published configurations:
  // the original Transformer's base and big (Vaswani et al. 2017, Table 3), BERT base and large
  // (Devlin et al. 2019), and the gpt2 and gpt-3-175b presets.
  struct Published {
    std::string row;
    std::uint64_t d_model, heads;
  };
  const ModelConfig gpt2 = load_preset("gpt2"), gpt3 = load_preset("gpt-3-175b");
  const std::vector<Published> published{{r.t("params.row.transformer_base"), 512, 8},
                                         {r.t("params.row.transformer_big"), 1024, 16},
                                         {r.t("params.row.bert_base"), 768, 12},
                                         {r.t("params.row.bert_large"), 1024, 16},
                                         {gpt2.title.substr(0, gpt2.title.find(" (")), gpt2.d, gpt2.n_h},
                                         {gpt3.title.substr(0, gpt3.title.find(" (")), gpt3.d, gpt3.n_h}};
  Table sizes{{r.t("params.col.model"), "d_model", "h", "d_k"}, {}};
  std::uint64_t dk_lo = ~std::uint64_t{0}, dk_hi = 0;
  for (const Published& p : published) {
    sizes.rows.push_back({p.row, static_cast<std::int64_t>(p.d_model), static_cast<std::int64_t>(p.heads),
                          static_cast<std::int64_t>(p.d_model / p.heads)});
    dk_lo = std::min(dk_lo, p.d_model / p.heads);
    dk_hi = std::max(dk_hi, p.d_model / p.heads);
  }
  r.table(sizes);
  r.note("params.note_sizes", {{"base_t", published[0].heads}, {"base_b", published[2].heads}, {"large", published[3].heads},
                               {"gpt3", published[5].heads}, {"dk_lo", dk_lo}, {"dk_hi", dk_hi}});
}

struct MhaOptions : RunContext {
  std::optional<std::string> tokens;
  std::optional<std::int64_t> seq_len, d_model, heads;
  bool causal = false;
  std::optional<std::string> weights, text, token_ids;  // a real checkpoint and the learner's sentence
  std::optional<std::int64_t> layer;
};

void bind(OptionBinder& b, MhaOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.toggle("--causal", o.causal);
}

// Tokens a real run may show: its (H, T, T) heatmaps stay readable and small.
constexpr std::size_t kRealMaxTokens = 64;

Trace run_real(const MhaOptions& given) {
  for (auto [set, flag] : {std::pair{given.tokens.has_value(), "--tokens"}, {given.seq_len.has_value(), "--seq-len"},
                           {given.d_model.has_value(), "--d-model"}, {given.heads.has_value(), "--heads"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  MhaOptions c = given;
  c.causal = true;  // GPT-2's attention is causal, whatever --causal says
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens);
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  LessonRecorder r("mha", c.lang, {"mha", "llama"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  HeadDims d{in.ids.size(), as_size(mc.d), as_size(mc.n_h), as_size(mc.d_h)};
  record_head_config(r, c, in.labels, d);
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  Mha m = in.llama ? compute_real_llama(in, li) : compute_real(in, li);
  compute_checks(d, m);
  const std::vector<std::string>& tokens = in.labels;
  if (in.llama) {
    r.config("n_kv_heads", I(mc.n_g));
    r.step("real_llama", {{"folder", weights_label(in.folder)}, {"type", mc.model_type}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l},
                          {"heads", mc.n_h}, {"kv_heads", mc.n_g}, {"d_k", mc.d_h}, {"d_model", mc.d},
                          {"bias", mc.qkv_bias}});
    if (mc.n_h * mc.d_h != mc.d) r.note("real_llama.note_width", {{"heads", mc.n_h}, {"d_k", mc.d_h}, {"width", mc.n_h * mc.d_h}, {"d_model", mc.d}});
    r.step("input_llama");
    r.tensor("X", m.X, {.rows = tokens});
    step_project(r, d, m, tokens);
    if (mc.n_g != mc.n_h) r.note("project.note_gqa", {{"heads", mc.n_h}, {"kv_heads", mc.n_g}, {"per", mc.n_h / mc.n_g}, {"width", mc.n_g * mc.d_h}});
    step_split_heads(r, d, m, tokens, true);
    step_rope(r, in, m, tokens);
    step_attention(r, d, m, tokens, true, true);
    step_concat_output(r, d, m, tokens);
    r.note("real_llama.note_params");
    return r.finish();
  }

  r.step("real_model", {{"folder", weights_label(in.folder)}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"heads", mc.n_h}, {"d_model", mc.d}});
  step_input(r, m, tokens, true);
  step_project(r, d, m, tokens);
  step_split_heads(r, d, m, tokens, true);
  step_attention(r, d, m, tokens, true, true);
  step_concat_output(r, d, m, tokens);
  step_params(r, d);
  return r.finish();
}

Trace run(const MhaOptions& c) {
  if (c.weights) return run_real(c);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r("mha", c.lang, {"mha"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  HeadDims d = resolve_head_dims(c, token_count(c, defaults));  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_head_config(r, c, tokens, d);
  Mha m = compute(d, static_cast<std::uint64_t>(c.seed), c.causal);
  compute_checks(d, m);

  step_input(r, m, tokens, false, c.tokens.has_value());
  note_d_model_derived(r, d.d_model_derived, d.D, d.H);
  step_project(r, d, m, tokens);
  step_split_heads(r, d, m, tokens);
  step_attention(r, d, m, tokens, c.causal);
  step_concat_output(r, d, m, tokens);
  step_params(r, d);
  return r.finish();
}

}  // namespace

extern const LessonInfo mha_lesson = lesson_info<MhaOptions>("mha", bind, run);

}  // namespace attn
