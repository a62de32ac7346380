// Lesson `specialize`: "one head can only learn one pattern" (section 1.4 of the chapter). One
// layer of GPT-2 learns a task that needs two relations at once — the first token and the previous
// one — with one head and with four. The runs of the default seed are bundled (data/specialize,
// written by `attnlab train`); --retrain trains them now, at any --seed (src/train/specialize_runs.h).
// Legend: T positions, V vocabulary, H heads, d_k = d_model / H. Words: lessons/specialize/LANG.cat.
#include <algorithm>
#include <cmath>

#include "errors.h"
#include "libm.h"
#include "lesson.h"
#include "specialize/plateau.h"
#include "specialize_runs.h"
#include "tasks.h"
#include "seed_stats.h"

namespace attn {

namespace {

constexpr std::size_t kExampleLength = 8;  // positions of the worked example

struct SpecializeOptions : RunContext {
  bool retrain = false;  // --retrain: train the two models now instead of reading data/specialize
};

void bind(OptionBinder& b, SpecializeOptions& o) { b.toggle("--retrain", o.retrain); }

// Everything the lesson shows (the worked example is drawn first, from the seed).
struct Specialize {
  train::Batch example;              // one sequence of kExampleLength positions
  train::RecordedRun one, many;      // 1 head and kSpecializeHeads heads
  bool live = false;                 // trained now (not read from data/)
};

Specialize compute(const SpecializeOptions& c) {
  Specialize s;
  const auto seed = static_cast<std::uint64_t>(c.seed);
  if (!c.retrain && seed != train::kSpecializeSeed)  // instant by default: another seed is a training run
    throw UsageError("specialize.err.seed", {{"flag", "--seed"}, {"value", c.seed}, {"seed", train::kSpecializeSeed}});
  const train::TrainConfig cfg = train::specialize_config(1, false, seed);
  Rng rng(seed);
  s.example = train::make_batch(cfg.task, 1, kExampleLength, cfg.model.vocab, rng);
  s.live = c.retrain;
  if (c.retrain)
    for (std::size_t heads : {std::size_t{1}, train::kSpecializeHeads})
      require_retrain_fits(train::specialize_run_flops(heads, false, seed));
  s.one = train::specialize_run(1, false, seed, c.retrain);
  s.many = train::specialize_run(train::kSpecializeHeads, false, seed, c.retrain);
  return s;
}

Tensor vec(const std::vector<double>& v) { return Tensor({v.size()}, v); }  // (n)

// Row labels "position:token" of the attention heatmaps.
std::vector<std::string> position_labels(const std::vector<int>& tokens) {
  std::vector<std::string> out;
  for (std::size_t t = 0; t < tokens.size(); ++t) out.push_back(std::to_string(t) + ":" + std::to_string(tokens[t]));
  return out;
}

// The (H, T, T) attention of a one-layer run's first evaluation sequence.
Tensor heads_attention(const train::TrainResult& r) {
  const Tensor& a = r.final_attention;  // (1, H, T, T)
  return Tensor({a.dim(1), a.dim(2), a.dim(3)}, a.data);
}

void step_task(LessonRecorder& r, const Specialize& s, const train::TrainConfig& cfg) {
  const std::size_t V = cfg.model.vocab, T = kExampleLength;
  r.step("task", {{"vocab", V}, {"ln_v", libm::log(static_cast<double>(V))}});
  const int* x = s.example.tokens.data();
  std::vector<double> tokens(x, x + T), targets;
  Table t{{r.t("task.col.t"), "x_t", "x_{t-1}", "x_0", r.t("task.col.target")}, {}};
  for (std::size_t i = 1; i < T; ++i) {
    targets.push_back(s.example.targets[i]);
    t.rows.push_back({I(i), I(static_cast<std::size_t>(x[i])), I(static_cast<std::size_t>(x[i - 1])),
                      I(static_cast<std::size_t>(x[0])), I(static_cast<std::size_t>(s.example.targets[i]))});
  }
  r.tensor("example_tokens", vec(tokens));
  r.tensor("example_targets", vec(targets));
  r.table(t);
  r.note("task.note_two", {{"vocab", V}});
}

void step_models(LessonRecorder& r, const Specialize& s) {
  const train::TrainConfig &a = s.one.config, &b = s.many.config;
  r.step("models", {{"d_model", a.model.d_model}, {"vocab", a.model.vocab}, {"seq_len", a.model.n_positions},
                    {"heads", b.model.n_head}, {"d_k", b.model.head_size()}, {"params", s.one.result.model.layout.total},
                    {"batch", a.batch}, {"steps", a.steps}, {"lr", a.lr}});
  r.value("params_1_head", I(s.one.result.model.layout.total));
  r.value("params_4_heads", I(s.many.result.model.layout.total));
  r.note(s.live ? "models.note_live" : "models.note_bundled",
         {{"flags_one", train::specialize_flags(1, false, a.seed)},
          {"flags_many", train::specialize_flags(b.model.n_head, false, b.seed)}});
}

void step_training(LessonRecorder& r, const Specialize& s) {
  const train::TrainResult &one = s.one.result, &many = s.many.result;
  const std::size_t steps = one.loss_curve.size();
  r.step("training", {{"steps", steps}, {"batch", s.one.config.batch}});
  std::vector<double> step;
  for (std::size_t i = 1; i <= steps; ++i) step.push_back(static_cast<double>(i));
  r.tensor("step", vec(step));
  r.tensor("loss_curve_1_head", vec(one.loss_curve));
  r.tensor("loss_curve_4_heads", vec(many.loss_curve));
  r.chart({r.t("training.chart"), "step", {"loss_curve_1_head", "loss_curve_4_heads"}});
  Table t{{r.t("training.col.step"), r.t("training.col.loss_1"), r.t("training.col.acc_1"), r.t("training.col.loss_4"),
           r.t("training.col.acc_4")}, {}};
  const std::size_t every = std::max<std::size_t>(1, one.evals.size() / 10);
  for (std::size_t i = 0; i < one.evals.size() && i < many.evals.size(); ++i)
    if (i % every == 0 || i + 1 == one.evals.size())
      t.rows.push_back({I(one.evals[i].step), one.evals[i].loss, one.evals[i].accuracy, many.evals[i].loss,
                        many.evals[i].accuracy});
  r.table(t);
  const double ln_v = libm::log(static_cast<double>(s.one.config.model.vocab));
  const train::Drop d1 = train::phase_change(one, false, ln_v), d4 = train::phase_change(many, false, ln_v);
  const FirstPlateau p = first_plateau(s.one.config.model.n_positions, s.one.config.model.vocab);
  r.value("plateau_loss", p.loss);
  r.value("frequency_loss", p.frequency_loss);
  r.note("training.note_drop", {{"half", 0.5 * ln_v}, {"one_reached", d1.reached}, {"one_step", d1.step},
                                {"many_reached", d4.reached}, {"many_step", d4.step}, {"heads", s.many.config.model.n_head}});
  r.note("training.note_plateau", {{"plateau", p.loss}, {"positions", p.positions}, {"rest", p.rest},
                                   {"vocab", s.one.config.model.vocab}, {"frequency", p.frequency_loss}});
}

void step_final(LessonRecorder& r, const Specialize& s) {
  const train::Evaluation &e1 = s.one.result.evals.back(), &e4 = s.many.result.evals.back();
  r.step("final", {{"sequences", s.one.config.eval_batch}, {"steps", e1.step}});
  Table t{{r.t("final.col.model"), r.t("final.col.d_k"), r.t("final.col.loss"), r.t("final.col.accuracy")}, {}};
  t.rows.push_back({r.t("final.heads", {{"heads", 1}}), I(s.one.config.model.head_size()), e1.loss, e1.accuracy});
  t.rows.push_back({r.t("final.heads", {{"heads", s.many.config.model.n_head}}), I(s.many.config.model.head_size()), e4.loss,
                    e4.accuracy});
  r.table(t);
  r.value("loss_1_head", e1.loss);
  r.value("loss_4_heads", e4.loss);
  r.value("accuracy_1_head", e1.accuracy);
  r.value("accuracy_4_heads", e4.accuracy);
  r.value("loss_gap", e1.loss - e4.loss);
}

// One head's relation in words (plateau.h's head_relation decides it).
std::string relation(const LessonRecorder& r, double first, double prev, double uniform) {
  switch (head_relation(first, prev, uniform)) {
    case HeadRelation::first: return r.t("heads.rel.first");
    case HeadRelation::prev: return r.t("heads.rel.prev");
    case HeadRelation::split: return r.t("heads.rel.split");
    case HeadRelation::leans_first: return r.t("heads.rel.leans", {{"first", true}, {"times", first / uniform}});
    case HeadRelation::leans_prev: return r.t("heads.rel.leans", {{"first", false}, {"times", prev / uniform}});
    case HeadRelation::spread: break;
  }
  return r.t("heads.rel.other");
}

void heads_table(LessonRecorder& r, const train::TrainResult& run, const std::string& name, double uniform) {
  const Tensor &first = run.evals.back().scores.first_token, &prev = run.evals.back().scores.prev_token;  // (1, H)
  const std::size_t H = first.dim(1);
  std::vector<double> f(H), p(H);
  Table t{{r.t("heads.col.head"), r.t("heads.col.first"), r.t("heads.col.prev"), r.t("heads.col.relation")}, {}};
  for (std::size_t h = 0; h < H; ++h) {
    f[h] = first(0, h), p[h] = prev(0, h);
    t.rows.push_back({I(h + 1), f[h], p[h], relation(r, f[h], p[h], uniform)});
  }
  r.tensor("first_token_score_" + name, vec(f));  // (H)
  r.tensor("prev_token_score_" + name, vec(p));   // (H)
  r.table(t);
}

void step_heads(LessonRecorder& r, const Specialize& s) {
  const std::vector<std::string> rows = position_labels(s.many.result.pattern_tokens);
  Labels square{.rows = rows, .cols = rows, .heatmap = true, .first = 0};  // positions from 0, as the rows
  const std::size_t T = s.one.config.model.n_positions;
  const double uniform = first_plateau(T, s.one.config.model.vocab).uniform_weight;
  r.step("heads", {{"sequences", s.one.config.eval_batch}});
  r.tensor("attention_1_head", heads_attention(s.one.result), square);
  heads_table(r, s.one.result, "1_head", uniform);
  r.tensor("attention_4_heads", heads_attention(s.many.result), square);
  heads_table(r, s.many.result, "4_heads", uniform);
  r.value("uniform_weight", uniform);
  r.note("heads.note_uniform", {{"uniform", uniform}, {"last", T - 1}});
  r.note("heads.note");
}

// The same two runs at every shipped seed (data/specialize/seeds.json): what holds across seeds.
void step_seeds(LessonRecorder& r) {
  const std::vector<train::SeedOutcome> runs = train::bundled_seed_outcomes();
  r.step("seeds", {{"seeds", runs.size()}, {"heads", train::kSpecializeHeads}});
  Table t{{r.t("seeds.col.seed"), r.t("seeds.col.loss_1"), r.t("seeds.col.loss_4"), r.t("seeds.col.lower")}, {}};
  std::vector<double> one, many, seeds;
  std::size_t many_lower = 0;
  std::vector<std::string> one_lower_at;  // the seeds where the single head ends lower
  for (const train::SeedOutcome& o : runs) {
    const bool four = o.loss_many < o.loss_one;
    many_lower += four;
    if (!four) one_lower_at.push_back(std::to_string(o.seed));
    t.rows.push_back({I(o.seed), o.loss_one, o.loss_many,
                      four ? r.t("seeds.heads", {{"heads", train::kSpecializeHeads}}) : r.t("seeds.heads", {{"heads", 1}})});
    one.push_back(o.loss_one), many.push_back(o.loss_many), seeds.push_back(static_cast<double>(o.seed));
  }
  r.tensor("seeds", vec(seeds));                 // (S)
  r.tensor("seeds_loss_1_head", vec(one));       // (S)
  r.tensor("seeds_loss_4_heads", vec(many));     // (S)
  r.table(t);
  const train::SeedSpread a = train::seed_spread(one), b = train::seed_spread(many);
  r.note("seeds.note", {{"seeds", runs.size()}, {"heads", train::kSpecializeHeads}, {"many_lower", many_lower},
                        {"all", many_lower == runs.size()}, {"one_lower_at", r.list(one_lower_at)},
                        {"one_lower", one_lower_at.size()}, {"shipped", train::kSpecializeSeed},
                        {"m1", a.median}, {"lo1", a.lo}, {"hi1", a.hi}, {"m4", b.median}, {"lo4", b.lo}, {"hi4", b.hi}});
}

Trace run(const SpecializeOptions& c) {
  LessonRecorder r("specialize", c.lang, {"specialize"});
  Specialize s = compute(c);
  r.config("seed", c.seed);
  r.config("retrain", Bool{c.retrain});
  r.config("task", train::task_name(s.one.config.task));
  r.config("n_heads", I(s.many.config.model.n_head));
  r.config("d_model", I(s.one.config.model.d_model));
  r.config("steps", I(s.one.config.steps));
  step_task(r, s, s.one.config);
  step_models(r, s);
  step_training(r, s);
  step_final(r, s);
  step_heads(r, s);
  step_seeds(r);
  r.step("why");
  r.note("why.note_friend", {{"steps", s.one.config.steps}, {"loss_1", s.one.result.evals.back().loss},
                             {"loss_4", s.many.result.evals.back().loss}, {"heads", s.many.config.model.n_head}});
  return r.finish();
}

}  // namespace

extern const LessonInfo specialize_lesson = lesson_info<SpecializeOptions>("specialize", bind, run);

}  // namespace attn
