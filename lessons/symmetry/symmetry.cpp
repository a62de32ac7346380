// Lesson `symmetry`: "is each head's initialization purely random — and why must it be?"
// Train one small attention layer by gradient descent (analytic backprop, src/math/backprop.h) from
// three starts — identical heads, random heads, all zeros — and watch max |head 1 − head 2|.
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H. Words: lessons/symmetry/LANG.cat.
#include <algorithm>
#include <cmath>

#include "errors.h"
#include "lesson.h"
#include "symmetry.h"

namespace attn {

namespace {

constexpr double kInitStd = 0.02;  // GPT-2's initialization: every weight N(0, 0.02²)
// Training runs three times in full before anything prints: keep a lesson to seconds.
constexpr std::size_t kMaxSteps = 10000;

struct Setup {
  std::size_t T, D, H, Dk, steps;
  double lr;
};

// The lesson's options (lang and seed come with every run).
struct SymmetryOptions : RunContext {
  std::optional<std::string> tokens;  // --tokens
  std::optional<std::int64_t> seq_len;  // --seq-len
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> heads;  // --heads
  std::optional<std::int64_t> steps;  // --steps
  std::optional<double> lr;  // --lr
  bool causal = false;  // not an option of this lesson: attention is bidirectional
};

void bind(OptionBinder& b, SymmetryOptions& o) {
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.integer("--steps", o.steps);
  b.real("--lr", o.lr);
}

Setup resolve(const SymmetryOptions& c, std::size_t T) {
  std::size_t H = positive(c.heads, 2, "--heads");
  if (H < 2) throw UsageError("symmetry.err.heads_min", {{"flag", "--heads"}});
  std::size_t D = d_model_or_derived(c.d_model, H);
  require_divisible(D, "--d-model", H, "--heads");
  std::size_t steps = positive(c.steps, 20, "--steps");
  // The default step: 1 up to d_model 64, then 64 / d_model (the gradients grow with the width;
  // at the chapter's 768 a step of 1 diverges).
  double lr = c.lr.value_or(D <= 64 ? 1.0 : 64.0 / static_cast<double>(D));
  if (!std::isfinite(lr) || lr <= 0.0) throw UsageError("symmetry.err.lr", {{"flag", "--lr"}, {"value", lr}});
  require_fits({D, D}, "W_Q", "--d-model");
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({H, T, T}, "the attention weights", "--seq-len/--tokens or --heads");
  if (steps > kMaxSteps)
    throw UsageError("symmetry.err.steps_max", {{"flag", "--steps"}, {"value", steps}, {"max", kMaxSteps}});
  // Three training runs. Per step, forward: 4·T·D² (W_Q, W_K, W_V, W_O) + 2·T²·D (scores, weighted
  // sums); backward about twice that. Held: X, Y, the three starts and each run's weights, grads and
  // activations (4·D² and a few (T, D) and (H, T, T)), and 3 losses per step.
  double Td = static_cast<double>(T), Dd = static_cast<double>(D), Hd = static_cast<double>(H);
  require_work([&](double n) {
    return Work{3.0 * 3.0 * n * (4.0 * Td * Dd * Dd + 2.0 * Td * Td * Dd),
                2.0 * Td * Dd + 3.0 * (3.0 * 4.0 * Dd * Dd + 8.0 * Td * Dd + 4.0 * Hd * Td * Td) + 3.0 * n};
  }, steps, "--steps", "--steps, --seq-len/--tokens, --d-model");
  return {T, D, H, D / H, steps, lr};
}

// Everything the lesson shows, computed before any narration (draw order: X, the teacher, the starts).
struct Symmetry {
  Tensor X, Y;                     // (T, D) the input and the target
  Starts st;                       // identical, random and zero weights
  TrainRun same, diff, zero;       // training from each start
  Tensor heads_identical_final;    // (H, T, Dh) head outputs after training, identical start
  Tensor heads_random_final;       // (H, T, Dh) the same, random start
  HeadWeights h1, h2;              // heads 1 and 2 after training, identical start
};

Symmetry compute(const Setup& s, std::uint64_t seed) {
  Rng rng(seed);
  Symmetry m;
  m.X = randn(rng, {s.T, s.D});
  m.Y = teacher_target(rng, m.X, s.H, s.Dk);
  m.st = make_starts(rng, s.D, s.H, s.Dk, kInitStd);
  m.same = train(m.X, m.Y, m.st.identical, s.H, s.steps, s.lr);
  m.diff = train(m.X, m.Y, m.st.random, s.H, s.steps, s.lr);
  m.zero = train(m.X, m.Y, m.st.zero, s.H, s.steps, s.lr);
  for (const TrainRun* run : {&m.same, &m.diff})
    if (run->diverged_at)
      throw UsageError("symmetry.err.diverged",
                       {{"flag", "--lr"}, {"value", s.lr}, {"weight", kDivergedWeight}, {"step", run->diverged_at}});
  m.heads_identical_final = split_heads(mha_forward(m.X, m.same.final, s.H).concat, s.H);
  m.heads_random_final = split_heads(mha_forward(m.X, m.diff.final, s.H).concat, s.H);
  m.h1 = head_of(m.same.final, s.H, 0);
  m.h2 = head_of(m.same.final, s.H, 1);
  return m;
}

Tensor vec(const std::vector<double>& v) { return Tensor({v.size()}, v); }  // (n)

// max |head 1 − head 2| of each of the four matrices of a gradient: {W_Q, W_K, W_V, W_O}.
std::vector<double> head_diffs(const MhaWeights& g, std::size_t H) {
  HeadWeights a = head_of(g, H, 0), b = head_of(g, H, 1);
  return {max_abs_diff(a.W_Q, b.W_Q), max_abs_diff(a.W_K, b.W_K), max_abs_diff(a.W_V, b.W_V), max_abs_diff(a.W_O, b.W_O)};
}

void step_setup(LessonRecorder& r, const Setup& s, const Symmetry& m, const std::vector<std::string>& tokens) {
  r.step("setup", {{"heads", s.H}, {"d_k", s.Dk}});
  r.tensor("X", m.X, {.rows = tokens});
  r.tensor("Y", m.Y, {.rows = tokens});
}

void step_init(LessonRecorder& r, const Symmetry& m) {
  r.step("init", {{"std", kInitStd}});
  r.tensor("W_Q_identical", m.st.identical.W_Q);
  r.tensor("W_Q_random", m.st.random.W_Q);
}

void step_gradients(LessonRecorder& r, const Setup& s, const Symmetry& m) {
  r.step("gradients");
  Table t{{r.t("gradients.col.matrix"), r.t("gradients.col.identical"), r.t("gradients.col.random"),
           r.t("gradients.col.zero")}, {}};
  const char* names[] = {"W_Q", "W_K", "W_V", "W_O"};
  std::vector<double> d_same = head_diffs(m.same.first_grads, s.H), d_diff = head_diffs(m.diff.first_grads, s.H);
  std::vector<double> g_zero = grad_max(m.zero.first_grads);
  for (std::size_t i = 0; i < 4; ++i) t.rows.push_back({std::string(names[i]), d_same[i], d_diff[i], g_zero[i]});
  r.table(t);
  r.tensor("dW_V_identical", m.same.first_grads.W_V);
}

void step_train(LessonRecorder& r, const Setup& s, const Symmetry& m) {
  const TrainRun &same = m.same, &diff = m.diff;
  r.step("train", {{"steps", s.steps}, {"lr", s.lr}});
  std::vector<double> steps;
  for (std::size_t i = 0; i <= s.steps; ++i) steps.push_back(static_cast<double>(i));
  r.tensor("step", vec(steps));
  r.tensor("loss_identical", vec(same.loss));
  r.tensor("gap_identical", vec(same.gap));
  r.tensor("loss_random", vec(diff.loss));
  r.tensor("gap_random", vec(diff.gap));
  Table t{{r.t("train.col.step"), r.t("train.col.loss_identical"), r.t("train.col.gap"), r.t("train.col.loss_random"),
           r.t("train.col.gap")}, {}};
  std::size_t every = s.steps <= 50 ? 1 : s.steps / 25;  // long runs: every k-th step (all of them are in --json)
  for (std::size_t i = 0; i <= s.steps; ++i)
    if (i % every == 0 || i == s.steps) t.rows.push_back({I(i), same.loss[i], same.gap[i], diff.loss[i], diff.gap[i]});
  r.table(t);
  r.chart({r.t("train.chart"), "step", {"gap_identical", "gap_random"}});
  bool exact = std::all_of(same.gap.begin(), same.gap.end(), [](double g) { return g == 0.0; });
  r.value("identical_stay_equal", Bool{exact});
  r.value("gap_random_start", diff.gap.front());
  r.value("gap_random_end", diff.gap.back());
  double g0 = diff.gap.front(), g1 = diff.gap.back();
  r.note("train.note_gap", {{"steps", s.steps}, {"grows", g1 > g0}, {"start", g0}, {"end", g1}});
  if (s.steps > 50) r.note("train.note_every", {{"every", every}});
  // The final losses as printed (4 decimals): which start ended lower, if either.
  double li = same.loss.back(), lr = diff.loss.back();
  const char* lower = fixed(li, 4) == fixed(lr, 4) ? "same" : li < lr ? "identical" : "random";
  r.note("train.note_loss", {{"loss_identical", li}, {"loss_random", lr}, {"lower", lower}});
}

void step_final(LessonRecorder& r, const Symmetry& m, const std::vector<std::string>& tokens) {
  r.step("final");
  r.tensor("heads_identical_final", m.heads_identical_final, {.rows = tokens});
  r.tensor("heads_random_final", m.heads_random_final, {.rows = tokens});
  r.tensor("W_V_1_identical_final", m.h1.W_V);
  r.tensor("W_V_2_identical_final", m.h2.W_V);
  bool equal = m.h1.W_Q.data == m.h2.W_Q.data && m.h1.W_K.data == m.h2.W_K.data && m.h1.W_V.data == m.h2.W_V.data &&
               m.h1.W_O.data == m.h2.W_O.data;
  r.value("identical_final_equal", Bool{equal});
}

void step_zero(LessonRecorder& r, const Symmetry& m) {
  const TrainRun& zero = m.zero;
  r.step("zero");
  r.tensor("loss_zero", vec(zero.loss));
  std::vector<double> g = grad_max(zero.first_grads);
  r.value("zero_grad_max", *std::max_element(g.begin(), g.end()));
  r.value("zero_gap_end", zero.gap.back());
  r.value("zero_weights_end", std::max({max_abs(zero.final.W_Q), max_abs(zero.final.W_K), max_abs(zero.final.W_V),
                                        max_abs(zero.final.W_O)}));
  r.note("zero.note_friend");
}

Trace run(const SymmetryOptions& c) {
  LessonRecorder r("symmetry", c.lang, {"symmetry"});
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  Setup s = resolve(c, tokens.size());
  record_common_config(r, c, tokens);
  r.config("d_model", I(s.D));
  r.config("n_heads", I(s.H));
  r.config("d_k", I(s.Dk));
  r.config("steps", I(s.steps));
  r.config("lr", s.lr);
  Symmetry m = compute(s, static_cast<std::uint64_t>(c.seed));

  step_setup(r, s, m, tokens);
  note_d_model_derived(r, !c.d_model && s.D != 8, s.D, s.H);
  step_init(r, m);
  step_gradients(r, s, m);
  step_train(r, s, m);
  step_final(r, m, tokens);
  step_zero(r, m);
  return r.finish();
}

}  // namespace

extern const LessonInfo symmetry_lesson = lesson_info<SymmetryOptions>("symmetry", bind, run);

}  // namespace attn
