// Lesson `qkv-roles`: the conversation's questions — are Q, K, V hyperparameters? why three
// matrices? could there be a fourth? — answered by running attention with pieces taken away.
//   (a) no projections  (b) only W_V  (c) W_Q and W_K, V = X  (d) all three; then W_O.
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H. Words: lessons/qkv_roles/LANG.cat.
#include <algorithm>
#include <cmath>

#include "attention.h"
#include "lesson.h"
#include "qkv_ablation.h"
#include "random.h"
#include "row_stats.h"

namespace attn {

namespace {

// The second input: the rest of the chapter's sentence when it is long enough, else u1 … uT.
std::vector<std::string> other_tokens(const Lang& lang, std::size_t T) {
  std::vector<std::string> all = chapter_tokens(lang, 8), out;
  for (std::size_t i = 0; i < T; ++i)
    out.push_back(2 * T <= all.size() ? all[T + i] : "u" + std::to_string(i + 1));
  return out;
}

// The tokens of `rows`, separated by spaces ("—" for none): data for a note, not a sentence.
std::string names_of(const std::vector<std::size_t>& rows, const std::vector<std::string>& tokens) {
  std::string out;
  for (std::size_t i : rows) out += (out.empty() ? "" : " ") + tokens[i];
  return out.empty() ? "—" : out;
}

// Everything the lesson shows, computed before any narration (draw order: X, W_Q, W_K, W_V,
// X_other, W_O — as the lesson has always drawn them).
struct QkvRoles {
  Tensor X, W_Q, W_K, W_V, X_other, W_O;  // (T, D), (D, D) × 3, (T, D), (D, D)
  Tensor Q, K, V;                         // (T, D): X W_Q, X W_K, X W_V
  Tensor Q_other, K_other, V_other;       // (T, D): the same weights on X_other
  QkvAblation a;                          // (a) … (d), one head of full width
  Tensor output_qk_W_V;                   // (T, D): (c)'s output passed through W_V
  AttentionPass p;                        // the same W_Q, W_K, W_V split into H heads, with W_O
  Tensor contributions;                   // (H, T, D): head_i W_O,i
  Tensor contribution_sum;                // (T, D): Σ_i head_i W_O,i
};

QkvRoles compute(const HeadDims& d, std::uint64_t seed) {
  Rng rng(seed);
  QkvRoles m;
  m.X = randn(rng, {d.T, d.D});
  m.W_Q = init_weight(rng, d.D, d.D);
  m.W_K = init_weight(rng, d.D, d.D);
  m.W_V = init_weight(rng, d.D, d.D);
  m.X_other = randn(rng, m.X.shape);
  m.W_O = init_weight(rng, d.D, d.D);
  m.Q = matmul(m.X, m.W_Q);
  m.K = matmul(m.X, m.W_K);
  m.V = matmul(m.X, m.W_V);
  m.Q_other = matmul(m.X_other, m.W_Q);
  m.K_other = matmul(m.X_other, m.W_K);
  m.V_other = matmul(m.X_other, m.W_V);
  m.a = qkv_ablations(m.X, m.W_Q, m.W_K, m.W_V);
  m.output_qk_W_V = matmul(m.a.output_qk, m.W_V);
  m.p = grouped_attention(m.X, m.W_Q, m.W_K, m.W_V, m.W_O, d.H, d.H, false);
  m.contributions = head_contributions(m.p.heads, m.W_O);
  m.contribution_sum = sum_over_heads(m.contributions);
  return m;
}

void step_input(LessonRecorder& r, const QkvRoles& m, const std::vector<std::string>& tokens) {
  r.step("input");
  r.tensor("X", m.X, {.rows = tokens});
  r.tensor("W_Q", m.W_Q);
  r.tensor("W_K", m.W_K);
  r.tensor("W_V", m.W_V);
}

void step_roles(LessonRecorder& r, const HeadDims& d) {
  r.step("roles");
  auto D = static_cast<std::int64_t>(d.D);
  Table hp{{r.t("roles.col.hyperparameter"), r.t("roles.col.value"), r.t("roles.col.fixes")}, {}};
  hp.rows.push_back({std::string("d_model"), D, r.t("roles.row.d_model")});
  hp.rows.push_back({std::string("h"), I(d.H), r.t("roles.row.h")});
  hp.rows.push_back({std::string("d_k"), I(d.Dk), r.t("roles.row.d_k")});
  r.table(hp);
  Table lp{{r.t("roles.col.parameter"), r.t("roles.col.shape"), r.t("roles.col.numbers")}, {}};
  for (const char* m : {"W_Q", "W_K", "W_V", "W_O"}) lp.rows.push_back({std::string(m), shape_str({d.D, d.D}), D * D});
  lp.rows.push_back({r.t("roles.row.total"), std::string("4·d_model²"), attention_param_count(D, d.H, d.H, d.Dk)});
  r.table(lp);
  r.note("roles.note_seed");
}

void step_activations(LessonRecorder& r, const QkvRoles& m, const std::vector<std::string>& tokens) {
  std::vector<std::string> other = other_tokens(r.lang(), tokens.size());
  r.step("activations");
  r.tensor("X_other", m.X_other, {.rows = other});
  r.tensor("Q", m.Q, {.rows = tokens});
  r.tensor("Q_other", m.Q_other, {.rows = other});
  Table t{{r.t("activations.col.tensor"), r.t("activations.col.kind"), r.t("activations.col.diff")}, {}};
  for (const char* w : {"W_Q", "W_K", "W_V"}) t.rows.push_back({std::string(w), r.t("activations.row.parameter"), 0.0});
  t.rows.push_back({std::string("Q"), r.t("activations.row.activation"), max_abs_diff(m.Q, m.Q_other)});
  t.rows.push_back({std::string("K"), r.t("activations.row.activation"), max_abs_diff(m.K, m.K_other)});
  t.rows.push_back({std::string("V"), r.t("activations.row.activation"), max_abs_diff(m.V, m.V_other)});
  r.table(t);
  r.note("activations.note");
}

void step_raw(LessonRecorder& r, const HeadDims& d, const QkvRoles& m, const std::vector<std::string>& tokens) {
  const QkvAblation& a = m.a;
  r.step("ablation_raw", {{"d_model", d.D}});
  r.tensor("scores_raw", a.scores_raw, {.rows = tokens, .cols = tokens});
  r.tensor("weights_raw", a.weights_raw, {.rows = tokens, .cols = tokens, .heatmap = true});
  r.tensor("output_raw", a.output_raw, {.rows = tokens});
  std::vector<std::size_t> self = self_attending_rows(a.weights_raw);
  r.value("asymmetry_raw", asymmetry(a.scores_raw));
  r.value("self_attending_raw", I(self.size()));
  Tensor norms = row_norms(m.X);  // (T)
  Table t{{r.t("ablation_raw.col.token"), "|x_i|", r.t("ablation_raw.col.attends_most_to"), r.t("ablation_raw.col.weight")}, {}};
  for (std::size_t i = 0; i < std::min<std::size_t>(d.T, 16); ++i) {
    std::size_t j = strongest_column(a.weights_raw, 0, i);
    t.rows.push_back({tokens[i], norms.data[i], tokens[j], a.weights_raw(i, j)});
  }
  r.table(t);
  r.note("ablation_raw.note_self", {{"self", self.size()}, {"T", d.T}, {"names", names_of(self, tokens)}});
  if (self.size() < d.T) r.note("ablation_raw.note_exceptions");
}

void step_only_v(LessonRecorder& r, const QkvRoles& m, const std::vector<std::string>& tokens) {
  const QkvAblation& a = m.a;
  r.step("ablation_only_v");
  r.tensor("weights_only_v", a.weights_only_v, {.rows = tokens, .cols = tokens, .heatmap = true});
  r.tensor("V_only_v", a.V, {.rows = tokens});
  r.tensor("output_only_v", a.output_only_v, {.rows = tokens});
  double spread = max_row_spread(a.output_only_v);
  r.value("row_spread_only_v", spread);
  r.note("ablation_only_v.note", {{"spread", spread}});
}

void step_qk(LessonRecorder& r, const QkvRoles& m, const std::vector<std::string>& tokens) {
  const QkvAblation& a = m.a;
  r.step("ablation_qk");
  r.tensor("scores_qk", a.scores_qk, {.rows = tokens, .cols = tokens});
  r.tensor("weights_qk", a.weights_qk, {.rows = tokens, .cols = tokens, .heatmap = true});
  r.tensor("output_qk", a.output_qk, {.rows = tokens});
  r.value("asymmetry_qk", asymmetry(a.scores_qk));
  r.value("self_attending_qk", I(self_attending_rows(a.weights_qk).size()));
  r.value("pattern_change", max_abs_diff(a.weights_qk, a.weights_raw));
  double largest = 0.0;
  for (double x : a.output_qk.data) largest = std::max(largest, std::fabs(x));
  r.note("ablation_qk.note_seed", {{"largest", largest}});
}

void step_full(LessonRecorder& r, const QkvRoles& m, const std::vector<std::string>& tokens) {
  const QkvAblation& a = m.a;
  r.step("ablation_full");
  r.tensor("weights_full", a.weights_full, {.rows = tokens, .cols = tokens, .heatmap = true});
  r.tensor("output_full", a.output_full, {.rows = tokens});
  r.value("weights_full_vs_qk", max_abs_diff(a.weights_full, a.weights_qk));
  r.value("output_full_vs_qk_WV", max_abs_diff(a.output_full, m.output_qk_W_V));
}

void step_compare(LessonRecorder& r, const QkvRoles& m) {
  const QkvAblation& a = m.a;
  r.step("compare");
  Table t{{r.t("compare.col.variant"), r.t("compare.col.learned"), r.t("compare.col.asymmetry"),
           r.t("compare.col.self"), r.t("compare.col.spread")}, {}};
  auto self = [](const Tensor& w) { return I(self_attending_rows(w).size()); };
  t.rows.push_back({std::string("(a)"), std::string("—"), asymmetry(a.scores_raw), self(a.weights_raw), max_row_spread(a.output_raw)});
  t.rows.push_back({std::string("(b)"), std::string("W_V"), 0.0, self(a.weights_only_v), max_row_spread(a.output_only_v)});
  t.rows.push_back({std::string("(c)"), std::string("W_Q W_K"), asymmetry(a.scores_qk), self(a.weights_qk), max_row_spread(a.output_qk)});
  t.rows.push_back({std::string("(d)"), std::string("W_Q W_K W_V"), asymmetry(a.scores_qk), self(a.weights_full), max_row_spread(a.output_full)});
  r.table(t);
  r.note("compare.note_summary");
  r.note("compare.note_two_matrices");
}

void step_w_o(LessonRecorder& r, const HeadDims& d, const QkvRoles& m, const std::vector<std::string>& tokens) {
  r.step("w_o", {{"heads", d.H}, {"d_k", d.Dk}, {"d_model", d.D}});
  r.tensor("W_O", m.W_O);
  r.tensor("heads", m.p.heads, {.rows = tokens});
  r.tensor("head_contributions", m.contributions, {.rows = tokens});
  r.tensor("output", m.p.output, {.rows = tokens});
  r.value("sum_check", max_abs_diff(m.contribution_sum, m.p.output));
  r.value("W_O_params", I(d.D * d.D));
  r.note("w_o.note");
}

// The lesson's options (lang and seed come with every run).
struct QkvRolesOptions : RunContext {
  std::optional<std::string> tokens;  // --tokens
  std::optional<std::int64_t> seq_len;  // --seq-len
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> heads;  // --heads
  bool causal = false;  // not an option of this lesson: attention is bidirectional
};

void bind(OptionBinder& b, QkvRolesOptions& o) {
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
}

Trace run(const QkvRolesOptions& c) {
  LessonRecorder r("qkv-roles", c.lang, {"qkv_roles"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  // four attention forwards: raw, only V, only Q and K, all three
  HeadDims d = resolve_head_dims(c, token_count(c, defaults), 4);  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_head_config(r, c, tokens, d);
  QkvRoles m = compute(d, static_cast<std::uint64_t>(c.seed));

  step_input(r, m, tokens);
  note_d_model_derived(r, d.d_model_derived, d.D, d.H);
  step_roles(r, d);
  step_activations(r, m, tokens);
  step_raw(r, d, m, tokens);
  step_only_v(r, m, tokens);
  step_qk(r, m, tokens);
  step_full(r, m, tokens);
  step_compare(r, m);
  step_w_o(r, d, m, tokens);
  return r.finish();
}

}  // namespace

extern const LessonInfo qkv_roles_lesson = lesson_info<QkvRolesOptions>("qkv-roles", bind, run);

}  // namespace attn
