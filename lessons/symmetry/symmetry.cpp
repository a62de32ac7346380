// Lesson `symmetry`: "is each head's initialization purely random — and why must it be?"
// Train one small attention layer by gradient descent (analytic backprop, src/math/backprop.h) from
// three starts — identical heads, random heads, all zeros — and watch max |head 1 − head 2|; then a
// real GPT-2 layer trained on the specialize task from a random and from a fully symmetric start
// (bundled runs, data/specialize; --retrain trains them now: src/train/specialize_runs.h).
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H. Words: lessons/symmetry/LANG.cat.
#include <algorithm>
#include <cmath>

#include "errors.h"
#include "lesson.h"
#include "seed_stats.h"
#include "specialize/plateau.h"
#include "specialize_runs.h"
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
  bool retrain = false;  // --retrain: train the real runs now instead of reading data/specialize
  bool causal = false;  // not an option of this lesson: attention is bidirectional
};

void bind(OptionBinder& b, SymmetryOptions& o) {
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.integer("--steps", o.steps);
  b.real("--lr", o.lr);
  b.toggle("--retrain", o.retrain);
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
  require_fits({D, D}, "W_Q", c.d_model ? "--d-model" : "--heads");  // no --d-model: the heads set it
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({H, T, T}, "the attention weights", "--seq-len/--tokens or --heads");
  if (steps > kMaxSteps)
    throw UsageError("symmetry.err.steps_max", {{"flag", "--steps"}, {"value", steps}, {"max", kMaxSteps}});
  // Three training runs. Per step, forward: 4·T·D² (W_Q, W_K, W_V, W_O) + 2·T²·D (scores, weighted
  // sums); backward about twice that; and each of the H·T² scores costs about 22 ns more (its exp,
  // softmax and their backward, the per-head loops: measured, the time of kScoreMadds multiply-adds
  // at the lessons' cap of about a minute), which is what 128 heads of width 1 spend their time on.
  // Held: X, Y, the three starts and each run's weights, grads and activations (4·D² and a few
  // (T, D) and (H, T, T)), and 3 losses per step.
  constexpr double kScoreMadds = 400;
  double Td = static_cast<double>(T), Dd = static_cast<double>(D), Hd = static_cast<double>(H);
  require_work([&](double n) {
    return Work{3.0 * n * (3.0 * (4.0 * Td * Dd * Dd + 2.0 * Td * Td * Dd) + kScoreMadds * Hd * Td * Td),
                2.0 * Td * Dd + 3.0 * (3.0 * 4.0 * Dd * Dd + 8.0 * Td * Dd + 4.0 * Hd * Td * Td) + 3.0 * n};
  }, steps, "--steps", "--steps, --seq-len/--tokens, --heads, --d-model");
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
  m.same = train_toy(m.X, m.Y, m.st.identical, s.H, s.steps, s.lr);
  m.diff = train_toy(m.X, m.Y, m.st.random, s.H, s.steps, s.lr);
  m.zero = train_toy(m.X, m.Y, m.st.zero, s.H, s.steps, s.lr);
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

void step_init(LessonRecorder& r, const Setup& s, const Symmetry& m) {
  r.step("init", {{"std", kInitStd}});
  r.tensor("W_Q_identical", m.st.identical.W_Q);
  r.tensor("W_Q_random", m.st.random.W_Q);
  // The conversation's Xavier and Kaiming, for this layer's d_model × d_model matrices (normal forms).
  const double d = static_cast<double>(s.D);
  r.note("init.note_schemes", {{"d", s.D}, {"xavier", std::sqrt(2.0 / (d + d))}, {"kaiming", std::sqrt(2.0 / d)},
                               {"std", kInitStd}});
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
  r.note("gradients.note_one_loss");
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

// The real runs: a GPT-2 layer on the specialize task, random and symmetric starts, and one head.
struct RealRuns {
  train::RecordedRun random, symmetric, one;
  bool live = false;
  std::int64_t toy_seed = 0;  // --seed, which the toy runs used
};

RealRuns real_runs(const SymmetryOptions& c) {
  // Without --retrain the real runs are the bundled ones (seed kSpecializeSeed), whatever --seed
  // the toy runs above use: the lesson stays instant, and step real_setup says which seed they are.
  const std::uint64_t seed = c.retrain ? static_cast<std::uint64_t>(c.seed) : train::kSpecializeSeed;
  RealRuns m;
  m.live = c.retrain;
  if (c.retrain)
    for (auto [heads, symmetric] : {std::pair{train::kSpecializeHeads, false}, {train::kSpecializeHeads, true}, {std::size_t{1}, false}})
      require_retrain_fits(train::specialize_run_flops(heads, symmetric, seed));
  m.toy_seed = c.seed;
  m.random = train::specialize_run(train::kSpecializeHeads, false, seed, c.retrain);
  m.symmetric = train::specialize_run(train::kSpecializeHeads, true, seed, c.retrain);
  m.one = train::specialize_run(1, false, seed, c.retrain);
  return m;
}

// The (H, T, T) attention of a one-layer run's first evaluation sequence.
Tensor heads_attention(const train::TrainResult& r) {
  const Tensor& a = r.final_attention;  // (1, H, T, T)
  return Tensor({a.dim(1), a.dim(2), a.dim(3)}, a.data);
}

void step_real_setup(LessonRecorder& r, const RealRuns& m) {
  const train::TrainConfig& c = m.symmetric.config;
  r.step("real_setup", {{"heads", c.model.n_head}, {"d_model", c.model.d_model}, {"d_k", c.model.head_size()},
                        {"vocab", c.model.vocab}, {"steps", c.steps}, {"lr", c.lr}});
  r.note(m.live ? "real_setup.note_live" : "real_setup.note_bundled",
         {{"flags_random", train::specialize_flags(c.model.n_head, false, c.seed)},
          {"flags_symmetric", train::specialize_flags(c.model.n_head, true, c.seed)}});
  if (!m.live && static_cast<std::uint64_t>(m.toy_seed) != c.seed)
    r.note("real_setup.note_seed", {{"seed", m.toy_seed}, {"bundled", c.seed}});
}

void step_real_train(LessonRecorder& r, const RealRuns& m) {
  const train::TrainResult &sym = m.symmetric.result, &rnd = m.random.result, &one = m.one.result;
  const std::size_t steps = sym.loss_curve.size();
  r.step("real_train", {{"steps", steps}});
  std::vector<double> step, gap_step;
  for (std::size_t i = 1; i <= steps; ++i) step.push_back(static_cast<double>(i));
  for (std::size_t i = 0; i < sym.clone_gap.size(); ++i) gap_step.push_back(static_cast<double>(i));
  r.tensor("real_step", vec(step));
  r.tensor("loss_curve_symmetric", vec(sym.loss_curve));
  r.tensor("loss_curve_random", vec(rnd.loss_curve));
  r.chart({r.t("real_train.chart"), "real_step", {"loss_curve_symmetric", "loss_curve_random"}});
  r.tensor("clone_gap_step", vec(gap_step));
  r.tensor("clone_gap_symmetric", vec(sym.clone_gap));
  const bool equal = !sym.clone_gap.empty() &&
                     std::all_of(sym.clone_gap.begin(), sym.clone_gap.end(), [](double g) { return g == 0.0; });
  r.value("clones_equal_every_step", Bool{equal});
  r.value("clone_gap_max", *std::max_element(sym.clone_gap.begin(), sym.clone_gap.end()));
  const train::Evaluation &es = sym.evals.back(), &er = rnd.evals.back(), &e1 = one.evals.back();
  const train::TrainConfig& sc = m.symmetric.config;
  const std::size_t H = sc.model.n_head, d_k = sc.model.head_size(), one_d_k = m.one.config.model.head_size();
  Table t{{r.t("real_train.col.start"), "d_k", r.t("real_train.col.loss"), r.t("real_train.col.accuracy")}, {}};
  t.rows.push_back({r.t("real_train.row.random", {{"heads", H}}), I(d_k), er.loss, er.accuracy});
  t.rows.push_back({r.t("real_train.row.symmetric", {{"heads", H}}), I(d_k), es.loss, es.accuracy});
  t.rows.push_back({r.t("real_train.row.one"), I(one_d_k), e1.loss, e1.accuracy});
  r.table(t);
  r.value("real_loss_symmetric", es.loss);
  r.value("real_loss_random", er.loss);
  r.value("real_loss_one_head", e1.loss);
  // The clones against the first plateau of the task (lesson specialize): within 0.05 at every
  // evaluation past the first tenth of the run, they never left it.
  const FirstPlateau p = first_plateau(sc.model.n_positions, sc.model.vocab);
  bool on_plateau = !sym.evals.empty();
  for (std::size_t i = sym.evals.size() / 10; i < sym.evals.size(); ++i)
    on_plateau = on_plateau && std::fabs(sym.evals[i].loss - p.loss) < 0.05;
  r.value("real_plateau_loss", p.loss);
  r.value("clones_on_plateau", Bool{on_plateau});
  r.note("real_train.note", {{"equal", equal}, {"steps", steps}, {"symmetric", es.loss}, {"random", er.loss},
                             {"heads", H}, {"d_k", d_k}});
  // This run is one seed: the shipped runs at the other seeds say whether its stall is the rule.
  std::size_t others = 0, left = 0;
  std::vector<double> below;  // the other seeds' clone losses under the plateau
  for (const train::SeedOutcome& o : train::bundled_seed_outcomes()) {
    if (o.seed == sc.seed) continue;
    ++others;
    if (o.loss_clones < p.loss - 0.05) ++left, below.push_back(o.loss_clones);
  }
  const train::SeedSpread bl = train::seed_spread(below);
  r.note("real_train.note_width", {{"plateau", p.loss}, {"on_plateau", on_plateau}, {"symmetric", es.loss}, {"d_k", d_k},
                                   {"one_d_k", one_d_k}, {"one", e1.loss}, {"ratio", one_d_k / d_k}, {"seed", sc.seed}});
  if (others > 0) r.note("real_train.note_others", {{"others", others}, {"left", left}, {"lo", bl.lo}, {"hi", bl.hi}});
}

void step_real_heads(LessonRecorder& r, const RealRuns& m) {
  std::vector<std::string> rows;
  const std::vector<int>& tokens = m.symmetric.result.pattern_tokens;
  for (std::size_t t = 0; t < tokens.size(); ++t) rows.push_back(std::to_string(t) + ":" + std::to_string(tokens[t]));
  Labels square{.rows = rows, .cols = rows, .heatmap = true, .first = 0};  // positions from 0, as the rows
  r.step("real_heads");
  const Tensor& sym = r.tensor("attention_symmetric", heads_attention(m.symmetric.result), square);  // (H, T, T)
  double diff = 0.0;
  for (std::size_t h = 1; h < sym.dim(0); ++h) diff = std::max(diff, max_abs_diff(slice0(sym, h), slice0(sym, 0)));
  r.value("attention_symmetric_head_gap", diff);
  r.note("real_heads.note");
}

// The three real runs at every shipped seed (data/specialize/seeds.json): the clones stay copies at
// every seed (the argument does not depend on the draw); how they fare against a random start does.
void step_seeds(LessonRecorder& r) {
  const std::vector<train::SeedOutcome> runs = train::bundled_seed_outcomes();
  r.step("seeds", {{"seeds", runs.size()}, {"heads", train::kSpecializeHeads}});
  Table t{{r.t("seeds.col.seed"), r.t("seeds.col.random"), r.t("seeds.col.clones"), r.t("seeds.col.one"),
           r.t("seeds.col.gap")}, {}};
  // The task's first plateau (lesson specialize), for the runs' task (the same T and V at every seed).
  const train::TrainConfig task = train::specialize_config(train::kSpecializeHeads, true, train::kSpecializeSeed);
  const FirstPlateau plateau = first_plateau(task.model.n_positions, task.model.vocab);
  std::vector<double> random, clones, one;
  std::size_t identical = 0, clones_higher = 0, close = 0, left = 0, beat = 0;
  double gap = 0.0, close_accuracy = 0.0;
  for (const train::SeedOutcome& o : runs) {
    identical += o.clone_gap_max == 0.0;
    clones_higher += o.loss_clones > o.loss_many;
    if (o.loss_clones > o.loss_many && o.loss_clones - o.loss_many < 0.05)  // a margin no seed spread would count
      ++close, close_accuracy = std::max(close_accuracy, o.accuracy_many);
    left += o.loss_clones < plateau.loss - 0.05;
    beat += o.loss_clones < o.loss_one;
    gap = std::max(gap, o.clone_gap_max);
    t.rows.push_back({I(o.seed), o.loss_many, o.loss_clones, o.loss_one, o.clone_gap_max});
    random.push_back(o.loss_many), clones.push_back(o.loss_clones), one.push_back(o.loss_one);
  }
  r.tensor("seeds_loss_random", vec(random));   // (S)
  r.tensor("seeds_loss_clones", vec(clones));   // (S)
  r.tensor("seeds_loss_one", vec(one));         // (S)
  r.table(t);
  const train::SeedSpread a = train::seed_spread(random), b = train::seed_spread(clones);
  r.note("seeds.note", {{"seeds", runs.size()}, {"identical", identical}, {"all_identical", identical == runs.size()},
                        {"gap", gap}, {"clones_higher", clones_higher}, {"all_higher", clones_higher == runs.size()},
                        {"close", close}, {"close_accuracy", close_accuracy}});
  r.note("seeds.note_median", {{"mr", a.median}, {"lor", a.lo}, {"hir", a.hi}, {"mc", b.median}, {"loc", b.lo}, {"hic", b.hi}});
  r.note("seeds.note_plateau", {{"seeds", runs.size()}, {"plateau", plateau.loss}, {"left", left}, {"beat", beat}});
}

Trace run(const SymmetryOptions& c) {
  LessonRecorder r("symmetry", c.lang, {"symmetry"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  Setup s = resolve(c, token_count(c, defaults));  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_common_config(r, c, tokens);
  r.config("d_model", I(s.D));
  r.config("n_heads", I(s.H));
  r.config("d_k", I(s.Dk));
  r.config("steps", I(s.steps));
  r.config("lr", s.lr);
  Symmetry m = compute(s, static_cast<std::uint64_t>(c.seed));

  step_setup(r, s, m, tokens);
  note_d_model_derived(r, !c.d_model && s.D != 8, s.D, s.H);
  step_init(r, s, m);
  step_gradients(r, s, m);
  step_train(r, s, m);
  step_final(r, m, tokens);
  step_zero(r, m);
  const RealRuns real = real_runs(c);
  r.config("real_task", train::task_name(real.symmetric.config.task));
  step_real_setup(r, real);
  step_real_train(r, real);
  step_real_heads(r, real);
  step_seeds(r);
  return r.finish();
}

}  // namespace

extern const LessonInfo symmetry_lesson = lesson_info<SymmetryOptions>("symmetry", bind, run);

}  // namespace attn
