// Lesson `induction`: heads that learn (Olsson et al. 2022, "In-context Learning and Induction Heads").
// A 2-layer GPT-2 trained by `attnlab train` on random tokens with a segment repeated at a random
// offset sits at loss ln V, then drops suddenly as a previous-token head (layer 1) and an
// induction head (layer 2) appear; zeroing the induction head undoes the drop. Trained with the
// repeat always at the same place (repeat-half), the same model takes a one-layer positional
// shortcut instead, and scores no induction on random offsets: the contrast is the lesson.
// Both models are shipped (data/trained/induction and data/trained/repeat-half, written by
// `attnlab train … --dtype f64 --save`), so the lesson starts at once; --retrain trains them live.
// Legend: L layers, H heads, T positions, V vocabulary. Words: lessons/induction/LANG.cat.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "char_vocab.h"
#include "corpus.h"
#include "errors.h"
#include "head_roles.h"
#include "libm.h"
#include "lesson.h"
#include "model_report.h"
#include "trained_gpt.h"
#include "trainer.h"

namespace attn {

namespace {


struct InductionOptions : RunContext {
  bool retrain = false;                // --retrain: train both models now instead of loading them
  std::optional<std::int64_t> steps;   // --steps (with --retrain): steps for both models
  std::optional<std::string> ablate;   // --ablate L.H[,L.H…]: heads to zero together, from 1
};

void bind(OptionBinder& b, InductionOptions& o) {
  b.toggle("--retrain", o.retrain);
  b.integer("--steps", o.steps);
  b.text("--ablate", o.ablate);
}

using HeadSet = std::vector<std::pair<std::size_t, std::size_t>>;  // (layer, head), from 0

// --ablate "2.1,1.3": layer.head pairs counted from 1, within the model's L layers and H heads.
HeadSet parse_ablate(const std::string& text, std::size_t L, std::size_t H) {
  HeadSet out;
  std::size_t start = 0;
  auto bad = [&](const std::string& item) {
    return UsageError("induction.err.ablate", {{"flag", "--ablate"}, {"value", item}, {"layers", L}, {"heads", H}});
  };
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    const std::size_t dot = item.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= item.size() || item.size() > 12) throw bad(item);
    std::size_t l = 0, h = 0;
    for (std::size_t i = 0; i < item.size(); ++i) {
      if (i == dot) continue;
      if (item[i] < '0' || item[i] > '9') throw bad(item);
      std::size_t& v = i < dot ? l : h;
      v = v * 10 + static_cast<std::size_t>(item[i] - '0');
    }
    if (l < 1 || l > L || h < 1 || h > H) throw bad(item);
    if (std::find(out.begin(), out.end(), std::pair{l - 1, h - 1}) == out.end()) out.push_back({l - 1, h - 1});
    start = comma + 1;
  }
  return out;
}

// The loss on the second copy with the heads in `zeroed` multiplied by 0: one forward pass of the
// trained weights on the evaluation batch (gpt_forward's gates), as analyse_model does for the
// induction heads.
double ablated_repeat_loss(const gpt::Gpt& m, const train::Batch& eval, const HeadSet& zeroed) {
  const std::size_t L = m.config.n_layer, H = m.config.n_head, V = m.config.vocab;
  std::vector<std::vector<double>> gates(L);
  for (auto [l, h] : zeroed) {
    if (gates[l].empty()) gates[l].assign(H, 1.0);
    gates[l][h] = 0.0;
  }
  gpt::GptActs a;
  gpt::gpt_forward(m, eval.tokens.data(), eval.targets.data(), eval.B, eval.T, a, &gates);
  std::vector<double> losses(eval.B * eval.T, 0.0);
  gpt::crossentropy_forward(losses.data(), a.probs.data(), eval.repeat_targets.data(), eval.B * eval.T, V);
  double s = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < losses.size(); ++i)
    if (eval.repeat_targets[i] >= 0) s += losses[i], ++n;
  return n ? s / static_cast<double>(n) : 0.0;
}

// The loss on the second copy with head h of layer l mean-ablated: its output, (N, hs) columns
// h·hs … of the attention output, replaced by its mean over every position of the batch (from a
// forward pass of the intact model). Through c_proj that mean is a constant, so the head is gated
// to 0 and its mean output times its rows of W_O is added to c_proj's bias, in a copy of the model.
double mean_ablated_repeat_loss(const gpt::Gpt& m, const train::Batch& eval, std::size_t l, std::size_t h) {
  const std::size_t C = m.config.d_model, hs = m.config.head_size(), N = eval.B * eval.T;
  gpt::GptActs a;
  gpt::gpt_forward(m, eval.tokens.data(), eval.targets.data(), eval.B, eval.T, a);
  const double* atty = a.atty.data() + l * N * C;  // (N, C): layer l's heads side by side
  std::vector<double> mean(hs, 0.0);                // (hs)
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t j = 0; j < hs; ++j) mean[j] += atty[n * C + h * hs + j];
  for (double& x : mean) x /= static_cast<double>(N);
  gpt::Gpt copy = m;
  const gpt::LayerOffsets& o = copy.layout.layers[l];
  double* bias = copy.params.data() + o.projb;          // (C)
  const double* w = copy.params.data() + o.projw;       // (C, C): row h·hs + j is head h's dimension j
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t j = 0; j < hs; ++j) bias[c] += mean[j] * w[(h * hs + j) * C + c];
  return ablated_repeat_loss(copy, eval, {{l, h}});
}

// One trained model and how its training went.
struct Model {
  train::TrainConfig config;
  train::TrainResult run;  // model, loss_curve and evals (their losses; scores are not shipped)
};

// The recipe a shipped model was trained with (its config.json), as `attnlab train` runs it.
train::TrainConfig recipe(const TrainedGpt& t) {
  train::TrainConfig c;
  c.model = t.model.config;
  if (!train::parse_task(t.task, c.task)) throw std::logic_error("shipped model: unknown task " + t.task);
  c.batch = t.batch, c.steps = t.steps, c.warmup = t.warmup;
  c.lr = t.lr, c.beta1 = t.beta1, c.beta2 = t.beta2, c.weight_decay = t.weight_decay;
  c.seed = t.seed;
  c.eval_every = std::max<std::size_t>(1, c.steps / 40);  // train_cmd.cpp's rule
  return c;
}

Model shipped(const std::string& name) {
  TrainedGpt t = shipped_trained_gpt(name);
  Model m{recipe(t), {}};
  m.run.model = std::move(t.model);
  m.run.loss_curve = std::move(t.loss_curve);
  for (const TrainedEval& e : t.evals) {
    train::Evaluation ev;  // the shipped record holds the losses; the head scores are computed again
    ev.step = e.step;
    ev.loss = e.loss;
    ev.repeat_loss = e.repeat_loss;
    m.run.evals.push_back(ev);
  }
  return m;
}

// The recorded recipe at the run's --seed and --steps; refused before anything trains if it is
// past what `attnlab train` allows for one run.
train::TrainConfig retrain_config(train::TrainConfig c, const InductionOptions& o) {
  c.seed = static_cast<std::uint64_t>(o.seed);
  if (o.steps) c.steps = positive(o.steps, c.steps, "--steps");
  c.eval_every = std::max<std::size_t>(1, c.steps / 40);
  const double work = train::train_work(c), max = train::kMaxTrainWork * work_cap_scale();
  if (work > max) throw UsageError("induction.err.work", {{"flag", "--steps"}, {"flops", work}, {"max", max}});
  return c;
}

// An induction head on real text: data/trained/induction-text, a 2-layer attention-only GPT-2 of the same shape
// trained by `attnlab train --task text --repeat-share 1` on the King James Bible, reads one verse
// that names Samuel twice. The verse is input, not prose: the model reads English in every language.
constexpr const char* kTextModel = "induction-text";
constexpr const char* kVerse = "Then Eli called Samuel, and said, Samuel, my son.";  // 1 Samuel 3:16

struct TextCircuit {
  TrainedGpt model;
  std::vector<std::string> labels;  // (T) each character as a learner reads it
  train::Batch verse;               // B = 1: the verse; repeat_targets where copying is right
  std::vector<long> targets;        // (T) the position after the earlier pair (pair_repeat_targets), or −1
  train::ModelReport report;        // attention (L, H, T, T) on the verse
  Tensor scores;                    // (L, H) mean weight on the targets
  double even = 0.0, threshold = 0.0;
  train::BestHead best;             // the highest score past layer 1
  HeadSet named;                    // every head past layer 1 that passes the rule (head_roles.h)
  double loss = 0.0, loss_best_zeroed = 0.0, loss_named_zeroed = 0.0;  // on the repeat_targets
};

TextCircuit text_circuit() {
  TextCircuit c{shipped_trained_gpt(kTextModel), {}, {}, {}, {}, {}, 0.0, 0.0, {}, {}, 0.0, 0.0, 0.0};
  const CharTokenizer tok = CharTokenizer::from_tokenizer_json(std::string(shipped_trained_file(kTextModel, "tokenizer.json")),
                                                                std::string("data/trained/") + kTextModel + "/tokenizer.json");
  const std::vector<std::int64_t> ids = tok.encode(kVerse);
  const std::size_t T = ids.size();
  if (T > c.model.model.config.n_positions) throw std::logic_error("lesson induction: the verse is longer than the text model's context");
  train::Batch& b = c.verse;
  b.B = 1, b.T = T;
  for (std::size_t t = 0; t < T; ++t) {
    b.tokens.push_back(static_cast<int>(ids[t]));
    c.labels.push_back(tok.label(ids[t]));
  }
  c.targets = train::pair_repeat_targets(b.tokens);
  b.targets.assign(T, -1);
  b.repeat_targets.assign(T, -1);
  for (std::size_t t = 0; t + 1 < T; ++t) {
    b.targets[t] = b.tokens[t + 1];
    if (c.targets[t] >= 0 && b.tokens[static_cast<std::size_t>(c.targets[t])] == b.tokens[t + 1]) b.repeat_targets[t] = b.tokens[t + 1];
  }
  const gpt::Gpt& m = c.model.model;
  c.report = train::analyse_model(m, b);
  c.scores = train::pair_induction_scores(c.report.attention, c.targets, &c.even);
  c.threshold = role_threshold(c.even);
  const std::size_t L = m.config.n_layer;
  c.best = train::best_head(c.scores, L > 1 ? 1 : 0, L);
  for (const HeadRef& h : heads_with_role(c.scores, c.threshold))
    if (h.layer >= (L > 1 ? 1u : 0u)) c.named.push_back({h.layer, h.head});
  c.loss = ablated_repeat_loss(m, b, {});
  c.loss_best_zeroed = ablated_repeat_loss(m, b, {{c.best.layer, c.best.head}});
  c.loss_named_zeroed = c.named.empty() ? c.loss_best_zeroed : ablated_repeat_loss(m, b, c.named);
  return c;
}

// The verse is one example, from the training text. The same head scored over held-out lines: the
// first kSampleLines lines of the held-out slice with kSampleMinChars to n_positions characters and at
// least kSampleMinTargets induction targets (repeated pairs), each scored as the verse is.
constexpr std::size_t kSampleLines = 60, kSampleMinChars = 40, kSampleMinTargets = 8;
constexpr std::size_t kTextMinCount = 3;  // the text model's vocabulary rule (its config.json: min_count)

struct HeldoutSample {
  std::size_t lines = 0, passed = 0;  // lines scored; lines where the head meets the rule
  double mean = 0.0;                  // the head's mean score over them
};

HeldoutSample heldout_sample(const TextCircuit& c) {
  const gpt::Gpt& m = c.model.model;
  const CharTokenizer tok = CharTokenizer::from_tokenizer_json(std::string(shipped_trained_file(kTextModel, "tokenizer.json")),
                                                                std::string("data/trained/") + kTextModel + "/tokenizer.json");
  const CorpusSplit split = split_corpus(bundled_corpus("en"), kTextMinCount, m.config.vocab);
  HeldoutSample out;
  std::size_t at = 0;
  while (out.lines < kSampleLines && at < split.heldout_text.size()) {
    std::size_t nl = split.heldout_text.find('\n', at);
    if (nl == std::string::npos) nl = split.heldout_text.size();
    const std::string line = split.heldout_text.substr(at, nl - at);
    at = nl + 1;
    const std::vector<std::int64_t> ids = tok.encode(line);
    if (ids.size() < kSampleMinChars || ids.size() > m.config.n_positions) continue;
    train::Batch b;  // B = 1: the line
    b.B = 1, b.T = ids.size();
    for (std::int64_t id : ids) b.tokens.push_back(static_cast<int>(id));
    const std::vector<long> targets = train::pair_repeat_targets(b.tokens);
    if (static_cast<std::size_t>(std::count_if(targets.begin(), targets.end(), [](long j) { return j >= 0; })) < kSampleMinTargets)
      continue;
    b.targets.assign(b.T, -1), b.repeat_targets.assign(b.T, -1);
    for (std::size_t t = 0; t + 1 < b.T; ++t) b.targets[t] = b.tokens[t + 1];
    double even = 0.0;
    const Tensor scores = train::pair_induction_scores(train::analyse_model(m, b).attention, targets, &even);  // (L, H)
    const double score = scores(c.best.layer, c.best.head);
    out.mean += score, ++out.lines;
    out.passed += score >= role_threshold(even);
  }
  if (out.lines) out.mean /= static_cast<double>(out.lines);
  return out;
}

// Everything the lesson shows, computed before any narration.
struct Induction {
  Model main, shortcut;
  train::Batch eval;                        // main's evaluation batch: repeats at random offsets
  train::RepeatSpan span;                   // where its first sequence repeats
  train::ModelReport before, after;         // main's initial and trained weights on it
  train::Batch shortcut_eval;               // the shortcut model's own batch: the repeat at T/2
  train::ModelReport shortcut_fixed;        // the shortcut model on its own task
  train::ModelReport shortcut_random;       // and on the random offsets (main's batch)
  train::Drop drop;                         // main's phase change (loss on the repeat < ½ ln V)
  double ln_v = 0.0;
  struct Zeroed {
    HeadSet heads;
    double repeat_loss = 0.0;
  };
  std::vector<Zeroed> singles;              // each layer-2 head alone, then layer 1's previous-token head
  std::vector<double> layer1_zeroed, layer1_mean;  // (H) every layer-1 head alone: zeroed, mean-ablated
  std::optional<Zeroed> chosen;             // --ablate
  TextCircuit text;                         // the shipped text model on a verse (always the shipped one)
  HeldoutSample sample;                     // its best head on held-out lines
};

Induction compute(const InductionOptions& o) {
  Induction m;
  HeadSet chosen;  // --ablate, checked against the recipe's shape before anything trains
  if (o.ablate) {
    const gpt::GptConfig shape = recipe(shipped_trained_gpt("induction")).model;
    chosen = parse_ablate(*o.ablate, shape.n_layer, shape.n_head);
  }
  if (o.retrain) {
    const train::TrainConfig main = retrain_config(recipe(shipped_trained_gpt("induction")), o);
    const train::TrainConfig shortcut = retrain_config(recipe(shipped_trained_gpt("repeat-half")), o);
    m.main = Model{main, train::train(main)};
    m.shortcut = Model{shortcut, train::train(shortcut)};
  } else {
    if (o.steps) throw UsageError("induction.err.needs_retrain", {{"flag", "--steps"}});
    m.main = shipped("induction");
    m.shortcut = shipped("repeat-half");
    if (static_cast<std::uint64_t>(o.seed) != m.main.config.seed)
      throw UsageError("induction.err.seed", {{"flag", "--seed"}, {"value", o.seed}, {"seed", m.main.config.seed}});
  }
  const train::TrainConfig& c = m.main.config;
  m.ln_v = libm::log(static_cast<double>(c.model.vocab));
  m.eval = train::evaluation_batch(c);
  m.span = train::repeat_span(m.eval, 0);
  m.before = train::analyse_model(gpt::make_gpt(c.model, c.seed), m.eval);  // train()'s initial weights
  m.after = train::analyse_model(m.main.run.model, m.eval);
  m.shortcut_eval = train::evaluation_batch(m.shortcut.config);
  m.shortcut_fixed = train::analyse_model(m.shortcut.run.model, m.shortcut_eval);
  m.shortcut_random = train::analyse_model(m.shortcut.run.model, m.eval);
  m.drop = train::phase_change(m.main.run, true, m.ln_v);
  const std::size_t L = c.model.n_layer, H = c.model.n_head;
  for (std::size_t h = 0; L > 1 && h < H; ++h)
    m.singles.push_back({{{1, h}}, ablated_repeat_loss(m.main.run.model, m.eval, {{1, h}})});
  const train::BestHead p = train::best_head(m.after.scores.prev_token, 0, 1);
  m.singles.push_back({{{p.layer, p.head}}, ablated_repeat_loss(m.main.run.model, m.eval, {{p.layer, p.head}})});
  for (std::size_t h = 0; L > 1 && h < H; ++h) {
    m.layer1_zeroed.push_back(ablated_repeat_loss(m.main.run.model, m.eval, {{0, h}}));
    m.layer1_mean.push_back(mean_ablated_repeat_loss(m.main.run.model, m.eval, 0, h));
  }
  if (o.ablate) m.chosen = Induction::Zeroed{chosen, ablated_repeat_loss(m.main.run.model, m.eval, chosen)};
  m.text = text_circuit();
  m.sample = heldout_sample(m.text);
  return m;
}

// ---- narration -------------------------------------------------------------------------------

Tensor vec(const std::vector<double>& v) { return Tensor({v.size()}, v); }  // (n)

// Head h of layer l of an (L, H, T, T) attention tensor: (T, T).
Tensor head_of(const Tensor& a, std::size_t l, std::size_t h) {
  const std::size_t H = a.dim(1), T = a.dim(2);
  Tensor out({T, T});
  std::copy_n(a.data.begin() + static_cast<std::ptrdiff_t>((l * H + h) * T * T), T * T, out.data.begin());
  return out;
}

// Layer l of an (L, H, T, T) attention tensor: (H, T, T).
Tensor layer_of(const Tensor& a, std::size_t l) {
  const std::size_t H = a.dim(1), T = a.dim(2), n = H * T * T;
  Tensor out({H, T, T});
  std::copy(a.data.begin() + static_cast<std::ptrdiff_t>(l * n), a.data.begin() + static_cast<std::ptrdiff_t>((l + 1) * n),
            out.data.begin());
  return out;
}

std::vector<std::string> token_labels(const train::Batch& b, std::size_t s) {
  std::vector<std::string> out;
  for (std::size_t t = 0; t < b.T; ++t) out.push_back(std::to_string(b.tokens[s * b.T + t]));
  return out;
}

using train::BestHead;

std::string head_list(const LessonRecorder& r, const std::vector<std::pair<std::size_t, std::size_t>>& heads) {
  std::string out;
  for (auto [l, h] : heads) {
    std::string name = r.t("head_name", {{"layer", l + 1}, {"head", h + 1}});
    out = out.empty() ? name : r.t("head_join", {{"list", out}, {"item", name}});  // the language joins the list (head_join)
  }
  return out;
}

// The tokens of positions [from, to) of sequence s, as one string ("5 9 21").
std::string token_run(const train::Batch& b, std::size_t s, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t t = from; t < to; ++t) out += (out.empty() ? "" : " ") + std::to_string(b.tokens[s * b.T + t]);
  return out;
}

void step_task(LessonRecorder& r, const Induction& m) {
  const train::TrainConfig& c = m.main.config;
  const train::RepeatSpan& sp = m.span;
  std::size_t lo = 0, hi = 0;
  train::induction_span(c.model.n_positions, lo, hi);
  // positions counted from 1 in the text, as the heatmaps' columns are
  r.step("task", {{"vocab", c.model.vocab}, {"seq_len", c.model.n_positions}, {"lo", lo}, {"hi", hi},
                  {"first", sp.first + 1}, {"second", sp.second + 1}, {"length", sp.length}, {"ln_v", m.ln_v}});
  Table t{{r.t("task.col.part"), r.t("task.col.positions"), r.t("task.col.tokens")}, {}};
  const std::size_t T = m.eval.T, end = sp.second + sp.length;
  auto row = [&](const char* part, std::size_t from, std::size_t to) {
    if (from < to) t.rows.push_back({r.t(part), r.t("task.positions", {{"from", from + 1}, {"to", to}}), token_run(m.eval, 0, from, to)});
  };
  row("task.part.prefix", 0, sp.first);
  row("task.part.first", sp.first, sp.second);
  row("task.part.second", sp.second, end);
  row("task.part.filler", end, T);
  r.table(t);
  r.value("ln_vocab", m.ln_v);
  r.note("task.note_model", {{"layers", c.model.n_layer}, {"heads", c.model.n_head}, {"d_model", c.model.d_model},
                             {"mlp", c.model.mlp}, {"params", m.main.run.model.layout.total}, {"batch", c.batch},
                             {"steps", c.steps}, {"lr", c.lr}, {"seed", c.seed}, {"gflop", train::step_flops(c) / 1e9},
                             {"tflop", train::step_flops(c) * static_cast<double>(c.steps) / 1e12}});
}

void step_loss_curve(LessonRecorder& r, const Induction& m) {
  const train::TrainResult& run = m.main.run;
  r.step("loss_curve", {{"steps", run.loss_curve.size()}, {"ln_v", m.ln_v}});
  std::vector<double> steps, level;
  for (std::size_t i = 0; i < run.loss_curve.size(); ++i) {
    steps.push_back(static_cast<double>(i + 1));
    level.push_back(0.5 * m.ln_v);
  }
  r.tensor("step", vec(steps));
  r.tensor("loss_curve", vec(run.loss_curve));
  r.tensor("half_ln_vocab", vec(level));
  r.chart({r.t("loss_curve.chart"), "step", {"loss_curve", "half_ln_vocab"}});
  Table t{{r.t("loss_curve.col.step"), r.t("loss_curve.col.loss"), r.t("loss_curve.col.repeat_loss"), r.t("loss_curve.col.mark")}, {}};
  const std::size_t every = std::max<std::size_t>(1, run.evals.size() / 10);
  for (std::size_t i = 0; i < run.evals.size(); ++i) {
    const train::Evaluation& e = run.evals[i];
    const bool at_drop = m.drop.reached && e.step == m.drop.step;
    if (i % every != 0 && i + 1 != run.evals.size() && !at_drop) continue;
    t.rows.push_back({I(e.step), e.loss, e.repeat_loss, at_drop ? r.t("loss_curve.drop_mark") : std::string()});
  }
  r.table(t);
  if (m.drop.reached) r.value("drop_step", I(m.drop.step));
  r.note("loss_curve.note_drop", {{"reached", m.drop.reached}, {"step", m.drop.step}, {"half", 0.5 * m.ln_v},
                                  {"start", run.evals.front().repeat_loss}, {"end", run.evals.back().repeat_loss}});
}

// The model is two layers (the shipped recipe): one heatmap tensor per layer, names listed here.
void step_attention(LessonRecorder& r, const Induction& m, const train::ModelReport& rep, const char* id,
                    const std::array<const char*, 2>& names) {
  if (rep.attention.dim(0) != names.size()) throw std::logic_error("lesson induction: the models have two layers");
  r.step(id, {{"second", m.span.second + 1}, {"back", m.span.length - 1}});
  std::vector<std::string> tokens = token_labels(m.eval, 0);
  for (std::size_t l = 0; l < names.size(); ++l)
    r.tensor(names[l], layer_of(rep.attention, l), {.rows = tokens, .cols = tokens, .heatmap = true});
}

void step_scores(LessonRecorder& r, const Induction& m) {
  const train::HeadScores& s = m.after.scores;
  r.step("scores", {{"sequences", m.eval.B}});
  Table t{{r.t("scores.col.layer"), r.t("scores.col.head"), r.t("scores.col.prev"), r.t("scores.col.first"),
           r.t("scores.col.self"), r.t("scores.col.induction")}, {}};
  for (std::size_t l = 0; l < s.prev_token.dim(0); ++l)
    for (std::size_t h = 0; h < s.prev_token.dim(1); ++h)
      t.rows.push_back({I(l + 1), I(h + 1), s.prev_token(l, h), s.first_token(l, h), s.self(l, h), s.induction(l, h)});
  r.table(t);
  r.tensor("prev_token_score", s.prev_token, {.axes = {"layer", "head"}});  // (L, H)
  r.tensor("first_token_score", s.first_token, {.axes = {"layer", "head"}});
  r.tensor("self_score", s.self, {.axes = {"layer", "head"}});
  r.tensor("induction_score", s.induction, {.axes = {"layer", "head"}});
  const train::HeadScores& b = m.before.scores;
  r.note("scores.note_before", {{"prev", train::best_head(b.prev_token, 0, 1).score}, {"induction", train::best_head(b.induction, 1, b.induction.dim(0)).score}});
}

void step_circuit(LessonRecorder& r, const Induction& m) {
  const train::HeadScores& s = m.after.scores;
  const std::size_t L = s.prev_token.dim(0);
  BestHead p = train::best_head(s.prev_token, 0, 1), q = train::best_head(s.induction, L > 1 ? 1 : 0, L);
  r.step("circuit", {{"prev_layer", p.layer + 1}, {"prev_head", p.head + 1}, {"prev", p.score},
                     {"ind_layer", q.layer + 1}, {"ind_head", q.head + 1}, {"induction", q.score}});
  r.value("prev_token_layer", I(p.layer + 1));
  r.value("prev_token_head", I(p.head + 1));
  r.value("best_prev_token_score", p.score);
  r.value("induction_layer", I(q.layer + 1));
  r.value("induction_head", I(q.head + 1));
  r.value("best_induction_score", q.score);
  const std::size_t H = s.prev_token.dim(1);
  std::size_t n_prev = 0, n_ind = 0;
  for (std::size_t h = 0; h < H; ++h) {
    n_prev += s.prev_token(0, h) >= 0.2 ? 1 : 0;
    for (std::size_t l = 1; l < L; ++l) n_ind += s.induction(l, h) >= 0.5 ? 1 : 0;
  }
  r.note("circuit.note_split", {{"n", n_prev}});
  r.note("circuit.note_induction", {{"n", n_ind}});
}

// Every layer-1 head alone, zeroed and mean-ablated: whether the previous-token head is singled
// out (its rise more than twice every other layer-1 head's, both ways) or others break induction
// about as much, in which case the ablation is consistent with K-composition but does not show it.
void step_ablation_layer1(LessonRecorder& r, const Induction& m, std::size_t prev) {
  const train::ModelReport& a = m.after;
  const std::size_t H = m.layer1_zeroed.size();
  Table t{{r.t("ablation.col.head"), r.t("scores.col.prev"), r.t("ablation.col.self"), r.t("ablation.col.zeroed"),
           r.t("ablation.col.mean")}, {}};
  bool singled = true;
  std::vector<std::string> close;  // the other layer-1 heads whose rise is at least half the previous-token head's
  for (std::size_t h = 0; h < H; ++h) {
    t.rows.push_back({head_list(r, {{0, h}}), a.scores.prev_token(0, h), a.scores.self(0, h), m.layer1_zeroed[h],
                      m.layer1_mean[h]});
    if (h == prev) continue;
    const bool near = 2 * (m.layer1_zeroed[h] - a.repeat_loss) >= m.layer1_zeroed[prev] - a.repeat_loss ||
                      2 * (m.layer1_mean[h] - a.repeat_loss) >= m.layer1_mean[prev] - a.repeat_loss;
    if (near) singled = false, close.push_back(head_list(r, {{0, h}}));
  }
  r.table(t);
  r.tensor("loss_layer1_zeroed", vec(m.layer1_zeroed));  // (H)
  r.tensor("loss_layer1_mean", vec(m.layer1_mean));      // (H)
  r.note("ablation.note_layer1", {{"singled", singled}, {"prev", head_list(r, {{0, prev}})}, {"others", r.list(close)},
                                  {"n", close.size()}, {"zeroed", m.layer1_zeroed[prev]}, {"mean", m.layer1_mean[prev]},
                                  {"trained", a.repeat_loss}});
}

void step_ablation(LessonRecorder& r, const Induction& m) {
  const train::ModelReport& a = m.after;
  r.step("ablation", {{"n", a.ablated.size()}, {"heads", head_list(r, a.ablated)}});
  Table t{{r.t("ablation.col.model"), r.t("ablation.col.repeat_loss")}, {}};
  t.rows.push_back({r.t("ablation.row.trained"), a.repeat_loss});
  for (const Induction::Zeroed& z : m.singles)
    t.rows.push_back({r.t("ablation.row.ablated", {{"heads", head_list(r, z.heads)}}), z.repeat_loss});
  t.rows.push_back({r.t("ablation.row.ablated_all", {{"heads", head_list(r, a.ablated)}}), a.repeat_loss_ablated});
  if (m.chosen) t.rows.push_back({r.t("ablation.row.chosen", {{"heads", head_list(r, m.chosen->heads)}}), m.chosen->repeat_loss});
  t.rows.push_back({r.t("ablation.row.untrained"), m.before.repeat_loss});
  t.rows.push_back({r.t("ablation.row.ln_v"), m.ln_v});
  r.table(t);
  r.value("loss_repeated_half", a.repeat_loss);
  r.value("loss_repeated_half_ablated", a.repeat_loss_ablated);
  std::vector<double> singles;
  for (const Induction::Zeroed& z : m.singles) singles.push_back(z.repeat_loss);
  r.tensor("loss_single_head_ablated", vec(singles));  // the layer-2 heads, then layer 1's previous-token head
  if (m.chosen) r.value("loss_repeated_half_chosen", m.chosen->repeat_loss);
  r.note("ablation.note", {{"n", a.ablated.size()}, {"worse", a.repeat_loss_ablated > m.ln_v}, {"loss", a.repeat_loss}, {"ablated", a.repeat_loss_ablated}, {"ratio", a.repeat_loss_ablated / a.repeat_loss},
                           {"ln_v", m.ln_v}, {"share", a.repeat_loss / m.ln_v}});
  // What each single ablation shows, as a share of the rise that zeroing all induction heads gives.
  const double rise = a.repeat_loss_ablated - a.repeat_loss;
  auto share = [&](double loss) { return rise > 0.0 ? 100.0 * (loss - a.repeat_loss) / rise : 0.0; };
  if (m.singles.size() >= 2) {
    std::size_t top = 0;
    for (std::size_t i = 0; i + 1 < m.singles.size(); ++i)
      if (m.singles[i].repeat_loss > m.singles[top].repeat_loss) top = i;
    const double top_share = share(m.singles[top].repeat_loss);
    r.note("ablation.note_single", {{"top", head_list(r, m.singles[top].heads)}, {"top_loss", m.singles[top].repeat_loss},
                                    {"top_share", top_share}, {"shared", top_share < 50.0}, {"n", a.ablated.size()}});
  }
  const Induction::Zeroed& prev = m.singles.back();
  const double prev_share = share(prev.repeat_loss);
  r.note("ablation.note_prev", {{"prev", head_list(r, prev.heads)}, {"loss", prev.repeat_loss}, {"prev_share", prev_share},
                                {"breaks", prev_share >= 50.0}});
  if (!m.layer1_zeroed.empty()) step_ablation_layer1(r, m, prev.heads.front().second);
  if (m.chosen)
    r.note("ablation.note_chosen", {{"heads", head_list(r, m.chosen->heads)}, {"count", m.chosen->heads.size()},
                                    {"loss", m.chosen->repeat_loss}, {"chosen_share", share(m.chosen->repeat_loss)}});
  bool above = a.repeat_loss_ablated > m.ln_v || (m.chosen && m.chosen->repeat_loss > m.ln_v);
  for (const Induction::Zeroed& z : m.singles) above = above || z.repeat_loss > m.ln_v;
  if (above) r.note("ablation.note_ood", {{"ln_v", m.ln_v}});
}

void step_shortcut(LessonRecorder& r, const Induction& m) {
  const train::TrainConfig& c = m.shortcut.config;
  const train::ModelReport &f = m.shortcut_fixed, &x = m.shortcut_random;
  const std::size_t L = f.offset.dim(0), k = c.model.n_positions / 2 - 1;
  BestHead o = train::best_head(f.offset, 0, L), q = train::best_head(x.scores.induction, L > 1 ? 1 : 0, L);
  r.step("shortcut", {{"steps", c.steps}, {"half", c.model.n_positions / 2 + 1}, {"k", k}});
  Table t{{r.t("scores.col.layer"), r.t("scores.col.head"), r.t("shortcut.col.offset"), r.t("shortcut.col.induction")}, {}};
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < f.offset.dim(1); ++h) t.rows.push_back({I(l + 1), I(h + 1), f.offset(l, h), x.scores.induction(l, h)});
  r.table(t);
  r.tensor("shortcut_offset_score", f.offset, {.axes = {"layer", "head"}}, {{"k", k}});
  r.tensor("shortcut_induction_score", x.scores.induction, {.axes = {"layer", "head"}});
  std::vector<std::string> tokens = token_labels(m.shortcut_eval, 0);
  // the positional head alone on one of its own sequences: (T, T)
  r.tensor("shortcut_attention", head_of(f.attention, o.layer, o.head), {.rows = tokens, .cols = tokens, .heatmap = true},
           {{"layer", o.layer + 1}, {"head", o.head + 1}});
  Table losses{{r.t("shortcut.col.sequences"), r.t("ablation.col.repeat_loss")}, {}};
  losses.rows.push_back({r.t("shortcut.row.fixed"), f.repeat_loss});
  losses.rows.push_back({r.t("shortcut.row.random"), x.repeat_loss});
  r.table(losses);
  r.value("shortcut_loss_fixed", f.repeat_loss);
  r.value("shortcut_loss_random", x.repeat_loss);
  r.value("shortcut_best_offset_score", o.score);
  r.value("shortcut_best_induction_score", q.score);
  r.note("shortcut.note", {{"layer", o.layer + 1}, {"head", o.head + 1}, {"offset", o.score}, {"k", k}, {"fixed", f.repeat_loss},
                           {"random", x.repeat_loss}, {"induction", q.score}, {"ln_v", m.ln_v},
                           {"main_induction", train::best_head(m.after.scores.induction, L > 1 ? 1 : 0, L).score}});
}

void step_text(LessonRecorder& r, const Induction& m) {
  const TextCircuit& c = m.text;
  const gpt::GptConfig& g = c.model.model.config;
  const std::size_t L = g.n_layer, H = g.n_head, T = c.verse.T;
  r.step("text", {{"layers", L}, {"heads", H}, {"d_model", g.d_model}, {"seq_len", g.n_positions}, {"steps", c.model.steps},
                  {"batch", c.model.batch}, {"chars", c.model.steps * c.model.batch * g.n_positions},
                  {"share", c.model.repeat_share}, {"all", c.model.repeat_share >= 1.0}, {"bpc", c.model.heldout_bpc},
                  {"bigram", c.model.bigram_bpc}, {"verse", kVerse}});
  Table t{{r.t("scores.col.layer"), r.t("scores.col.head"), r.t("text.col.score")}, {}};
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) t.rows.push_back({I(l + 1), I(h + 1), c.scores(l, h)});
  r.table(t);
  r.tensor("text_induction_score", c.scores, {.axes = {"layer", "head"}});  // (L, H)
  r.value("text_even_share", c.even);
  r.value("text_threshold", c.threshold);
  r.note("text.note_rule", {{"named", !c.named.empty()}, {"layer", c.best.layer + 1}, {"head", c.best.head + 1},
                            {"score", c.best.score}, {"even", c.even}, {"threshold", c.threshold},
                            {"ratio", c.even > 0 ? c.best.score / c.even : 0.0}, {"n", c.named.size()}, {"several", c.named.size() > 1}});
  r.note("text.note_sample", {{"lines", m.sample.lines}, {"min", kSampleMinChars}, {"max", g.n_positions},
                              {"pairs", kSampleMinTargets}, {"layer", c.best.layer + 1}, {"head", c.best.head + 1},
                              {"mean", m.sample.mean}, {"passed", m.sample.passed},
                              {"share", m.sample.lines ? 100.0 * static_cast<double>(m.sample.passed) / static_cast<double>(m.sample.lines) : 0.0},
                              {"verse", c.best.score}});
  r.value("text_heldout_mean_score", m.sample.mean);
  // The best head at every position that has an induction target: where it looks, and how much.
  Table w{{r.t("text.col.position"), r.t("text.col.char"), r.t("text.col.target"), r.t("text.col.weight"),
           r.t("text.col.strongest")}, {}};
  Tensor head = head_of(c.report.attention, c.best.layer, c.best.head);  // (T, T): the best head's weights on the verse
  for (std::size_t q = 0; q < T; ++q) {
    if (c.targets[q] < 0) continue;
    const auto j = static_cast<std::size_t>(c.targets[q]);
    std::size_t top = 0;
    for (std::size_t k = 1; k <= q; ++k)
      if (head(q, k) > head(q, top)) top = k;
    auto at = [&](std::size_t k) { return r.t("text.at", {{"position", k + 1}, {"char", c.labels[k]}}); };
    w.rows.push_back({I(q + 1), c.labels[q], at(j), head(q, j), at(top)});
  }
  r.table(w);
  r.tensor("text_attention", std::move(head), {.rows = c.labels, .cols = c.labels, .heatmap = true},
           {{"layer", c.best.layer + 1}, {"head", c.best.head + 1}});
  const HeadSet& named = c.named;
  Table z{{r.t("ablation.col.model"), r.t("text.col.loss")}, {}};
  z.rows.push_back({r.t("ablation.row.trained"), c.loss});
  z.rows.push_back({r.t("ablation.row.ablated", {{"heads", head_list(r, {{c.best.layer, c.best.head}})}}), c.loss_best_zeroed});
  if (named.size() > 1) z.rows.push_back({r.t("ablation.row.ablated_all", {{"heads", head_list(r, named)}}), c.loss_named_zeroed});
  r.table(z);
  r.value("text_repeat_loss", c.loss);
  r.value("text_repeat_loss_best_zeroed", c.loss_best_zeroed);
  r.note("text.note_ablation", {{"loss", c.loss}, {"zeroed", c.loss_best_zeroed}, {"worse", c.loss_best_zeroed > c.loss},
                                {"ratio", c.loss > 0 ? c.loss_best_zeroed / c.loss : 0.0}});
  r.note("text.note_recipe", {{"share", c.model.repeat_share}, {"bpc", c.model.heldout_bpc}, {"bigram", c.model.bigram_bpc}});
}

Trace run(const InductionOptions& o) {
  LessonRecorder r("induction", o.lang, {"induction"});
  Induction m = compute(o);
  const train::TrainConfig& c = m.main.config;
  r.config("seed", static_cast<std::int64_t>(c.seed));
  r.config("retrain", Bool{o.retrain});
  r.config("task", train::task_name(c.task));
  r.config("n_layer", I(c.model.n_layer));
  r.config("n_heads", I(c.model.n_head));
  r.config("d_model", I(c.model.d_model));
  r.config("vocab", I(c.model.vocab));
  r.config("seq_len", I(c.model.n_positions));
  r.config("mlp", Bool{c.model.mlp});
  r.config("steps", I(c.steps));
  r.config("lr", c.lr);
  r.config("batch", I(c.batch));
  step_task(r, m);
  step_loss_curve(r, m);
  step_attention(r, m, m.before, "before", {"attention_before_layer1", "attention_before_layer2"});
  step_attention(r, m, m.after, "after", {"attention_after_layer1", "attention_after_layer2"});
  step_scores(r, m);
  step_circuit(r, m);
  step_ablation(r, m);
  step_shortcut(r, m);
  step_text(r, m);
  return r.finish();
}

}  // namespace

extern const LessonInfo induction_lesson = lesson_info<InductionOptions>("induction", bind, run);

}  // namespace attn
