// Lesson `gate`: the "fourth matrix G" the conversation imagines, beside what was later published —
// gated attention (Qiu et al. 2025), used in Qwen3-Next's full-attention layers:
//   output = (concat ⊙ σ(X W_G)) W_O        the gate scales what each token receives
// and, for contrast, the same gate on the values (V ⊙ σ(X W_G)), which scales what each token gives.
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H. Words: lessons/gate/LANG.cat.
#include <fmt/format.h>

#include "gate.h"
#include "lesson.h"
#include "random.h"
#include "row_stats.h"

namespace attn {

namespace {

constexpr double kClosedLogit = -6.0;  // σ(-6) = 0.0025: a gate that is as good as shut

// The lesson's options (lang and seed come with every run).
struct GateOptions : RunContext {
  std::optional<std::string> tokens;  // --tokens
  std::optional<std::int64_t> seq_len;  // --seq-len
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> heads;  // --heads
  bool causal = false;  // --causal
};

void bind(OptionBinder& b, GateOptions& o) {
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.toggle("--causal", o.causal);
}

HeadDims resolve_dims(const GateOptions& c, std::size_t T) {
  // three attention forwards: the output-gated one, the ungated one beside it, the value-gated one
  HeadDims d = resolve_head_dims(c, T, 3);
  require_fits({T, T}, "X Xᵀ", "--seq-len/--tokens");
  return d;
}

// Everything the lesson shows, computed before any narration (draw order: X, W_Q, W_K, W_V, W_O, W_G).
struct Gate {
  Tensor X, W_Q, W_K, W_V, W_O;  // (T, D), (D, D) × 4
  Tensor W_G_random;             // (D, H*Dh) the gate weights as drawn
  Tensor gate_random;            // (T, H*Dh) σ(X W_G_random)
  Spread random_spread;          // smallest, largest and mean random gate
  std::size_t s = 0;             // the token whose random gate is the most closed (lowest mean)
  bool shut = false;             // its gate was shut by an exact edit (possible only when T <= D)
  Tensor W_G;                    // (D, H*Dh) the gate weights used: W_G_random, edited when `shut`
  GatedAttentionPass g;          // output gate: concat ⊙ σ(X W_G), then W_O
  ValueGatedPass v;              // the same gate on the values: V ⊙ σ(X W_G), then attention and W_O
  Tensor mean_gate;              // (T) each token's mean gate
  Tensor norm_with, norm_without, norm_value_gated;  // (T) |output|, |output_ungated|, |output_value_gated|
  Tensor norm_V, norm_V_gated;   // (T) |v_i| and |v_i ⊙ gate_i|, over all heads
};

Gate compute(const HeadDims& d, std::uint64_t seed, bool causal) {
  Rng rng(seed);
  Gate m;
  m.X = randn(rng, {d.T, d.D});
  m.W_Q = init_weight(rng, d.D, d.D);
  m.W_K = init_weight(rng, d.D, d.D);
  m.W_V = init_weight(rng, d.D, d.D);
  m.W_O = init_weight(rng, d.D, d.D);
  m.W_G_random = init_weight(rng, d.D, d.D);
  m.gate_random = gate_values(m.X, m.W_G_random);
  m.random_spread = spread_of(m.gate_random);
  m.s = argmin(row_means(m.gate_random));
  // When the tokens are independent (T <= D), one exact edit shuts token s's gate, standing in
  // for what training would learn; otherwise no direction of X belongs to s alone.
  m.shut = d.T <= d.D;
  m.W_G = m.shut ? close_gate(m.X, m.W_G_random, m.s, kClosedLogit) : m.W_G_random;
  m.g = gated_attention(m.X, m.W_Q, m.W_K, m.W_V, m.W_O, m.W_G, d.H, causal);
  m.v = value_gated_attention(m.g.attn, m.g.gate, m.W_O);
  m.mean_gate = row_means(m.g.gate);
  m.norm_with = row_norms(m.g.output);
  m.norm_without = row_norms(m.g.output_ungated);
  m.norm_value_gated = row_norms(m.v.output);
  m.norm_V = row_norms(m.g.attn.V);
  m.norm_V_gated = row_norms(m.v.V_gated);
  return m;
}

void step_input(LessonRecorder& r, const Gate& m, const std::vector<std::string>& tokens) {
  r.step("input");
  r.tensor("X", m.X, {.rows = tokens});
  r.tensor("W_Q", m.W_Q);
  r.tensor("W_K", m.W_K);
  r.tensor("W_V", m.W_V);
  r.tensor("W_O", m.W_O);
}

void step_gate_random(LessonRecorder& r, const Gate& m, const std::vector<std::string>& tokens) {
  r.step("gate_random");
  r.tensor("W_G_random", m.W_G_random);
  r.tensor("gate_random", m.gate_random, {.rows = tokens});
  r.value("gate_random_min", m.random_spread.min);
  r.value("gate_random_max", m.random_spread.max);
  r.value("gate_random_mean", m.random_spread.mean);
}

void step_silence(LessonRecorder& r, const HeadDims& d, const Gate& m, const std::vector<std::string>& tokens) {
  r.step("silence", {{"shut", m.shut}, {"T", d.T}, {"d_model", d.D}, {"token", tokens[m.s]},
                     {"logit", kClosedLogit}, {"sigma", sigmoid(kClosedLogit)}});
  r.tensor("W_G", m.W_G);
  r.tensor("gate", m.g.gate, {.rows = tokens});
  r.value("others_gate_change", max_abs_diff_except_row(m.gate_random, m.g.gate, m.s));
}

void step_concat(LessonRecorder& r, const Gate& m, const std::vector<std::string>& tokens) {
  r.step("concat");
  r.tensor("concat", m.g.attn.concat, {.rows = tokens});
}

void step_gated(LessonRecorder& r, const Gate& m, const std::vector<std::string>& tokens) {
  r.step("gated");
  Labels rows{.rows = tokens};
  r.tensor("gated", m.g.gated, rows);
  r.tensor("output", m.g.output, rows);
  r.tensor("output_ungated", m.g.output_ungated, rows);
  Table t{{r.t("gated.col.token"), r.t("gated.col.mean_gate"), r.t("gated.col.without"), r.t("gated.col.with"),
           r.t("gated.col.ratio")}, {}};
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (i < 16 || i == m.s)  // long inputs: the first 16 tokens and the one whose gate is most closed
      t.rows.push_back({tokens[i], m.mean_gate.data[i], m.norm_without.data[i], m.norm_with.data[i],
                        m.norm_with.data[i] / m.norm_without.data[i]});
  r.table(t);
  double ratio = m.norm_with.data[m.s] / m.norm_without.data[m.s];
  r.value("silenced_token", tokens[m.s]);
  r.value("silenced_ratio", ratio);
  r.note("gated.note_receives", {{"token", tokens[m.s]}, {"ratio", ratio}, {"shut", m.shut}});
  r.note("gated.note_sink");
}

void step_value_gate(LessonRecorder& r, const Gate& m, const std::vector<std::string>& tokens) {
  r.step("value_gate");
  Labels rows{.rows = tokens};
  r.tensor("V_gated", m.v.V_gated, rows);
  r.tensor("output_value_gated", m.v.output, rows);
  std::size_t s = m.s;
  double receives_out = m.norm_with.data[s] / m.norm_without.data[s];
  double receives_value = m.norm_value_gated.data[s] / m.norm_without.data[s];
  double gives_out = m.norm_V.data[s] / m.norm_V.data[s];  // the output gate leaves V as it is: exactly 1
  double gives_value = m.norm_V_gated.data[s] / m.norm_V.data[s];
  Table t{{"", r.t("value_gate.col.output_gate"), r.t("value_gate.col.value_gate")}, {}};
  t.rows.push_back({r.t("value_gate.row.receives", {{"token", tokens[s]}}), receives_out, receives_value});
  t.rows.push_back({r.t("value_gate.row.gives", {{"token", tokens[s]}}), gives_out, gives_value});
  r.table(t);
  r.note("value_gate.note_compare", {{"token", tokens[s]}, {"gives", gives_value}, {"receives", receives_value},
                                     {"receives_out", receives_out}});
  r.note("value_gate.note_others", {{"token", tokens[s]}});
}

void step_params(LessonRecorder& r, const HeadDims& d) {
  r.step("params");
  auto row = [](std::string name, std::int64_t D, std::int64_t H, std::int64_t G, std::int64_t Dh) {
    std::int64_t base = attention_param_count(D, H, G, Dh), gate = gate_param_count(D, H, Dh);
    return std::vector<Scalar>{std::move(name), fmt::format("[{}, {}]", D, H * Dh), base, gate, base + gate,
                               fmt::format("+{:.1f}%", 100.0 * static_cast<double>(gate) / static_cast<double>(base))};
  };
  Table t{{r.t("params.col.model"), r.t("params.col.shape"), r.t("params.col.attention"), "W_G",
           r.t("params.col.with_gate"), r.t("params.col.extra")}, {}};
  auto D = static_cast<std::int64_t>(d.D), H = static_cast<std::int64_t>(d.H), Dk = static_cast<std::int64_t>(d.Dk);
  t.rows.push_back(row(r.t("params.row.run"), D, H, H, Dk));
  t.rows.push_back(row(r.t("params.row.chapter"), 768, 12, 12, 64));
  t.rows.push_back(row("Qwen3-Next-80B-A3B", 2048, 16, 2, 256));
  r.table(t);
  r.value("gate_params", gate_param_count(D, H, Dk));
  r.note("params.note_qwen");
  r.note("params.note_seed", {{"extra", 100.0 * static_cast<double>(gate_param_count(D, H, Dk)) /
                                            static_cast<double>(attention_param_count(D, H, H, Dk))},
                              {"cache", 2 * d.H * d.Dk}});
}

Trace run(const GateOptions& c) {
  LessonRecorder r("gate", c.lang, {"gate"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  HeadDims d = resolve_dims(c, token_count(c, defaults));  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_head_config(r, c, tokens, d);
  Gate m = compute(d, static_cast<std::uint64_t>(c.seed), c.causal);

  step_input(r, m, tokens);
  note_d_model_derived(r, d.d_model_derived, d.D, d.H);
  step_gate_random(r, m, tokens);
  step_silence(r, d, m, tokens);
  step_concat(r, m, tokens);
  step_gated(r, m, tokens);
  step_value_gate(r, m, tokens);
  step_params(r, d);
  return r.finish();
}

}  // namespace

extern const LessonInfo gate_lesson = lesson_info<GateOptions>("gate", bind, run);

}  // namespace attn
