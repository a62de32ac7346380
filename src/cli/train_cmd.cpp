// attnlab train: a small GPT-2 trained on a synthetic task (src/train, src/math/gpt.h), with the
// loss curve, the heads' scores as training goes, and the heads after training; --save writes a
// Hugging Face GPT-2 checkpoint (config.json + model.safetensors), --json the whole trace.
// Everything on stdout is deterministic; the progress bar (stderr, only on a terminal) is not.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bars.h"
#include "libm.h"
#include "commands.h"
#include "head_roles.h"
#include "html.h"
#include "lesson.h"
#include "char_vocab.h"
#include "corpus.h"
#include "embedded_data.h"
#include "errors.h"
#include "input_file.h"
#include "parallel.h"
#include "safetensors_writer.h"
#include "table.h"
#include "tensor.h"
#include "text.h"
#include "utf8.h"
#include "trainer.h"
#include "variant_checkpoint.h"
#include "variant_trainer.h"

namespace attn::cli {

namespace {

struct TrainOptions {
  std::string task = "induction";
  std::int64_t layers = 2, heads = 4, d_model = 64, seq_len = 32, batch = 64, steps = 4000, warmup = 100;
  std::optional<std::int64_t> vocab;  // the synthetic tasks' vocabulary (32); for text, the most characters kept (2000)
  std::string corpus;            // --task text: a UTF-8 file, or a bundled text: en (the KJV Bible), zh (classical Chinese)
  std::int64_t min_count = 3;    // --task text: a character seen fewer times in the training text is <unk>
  double repeat_share = 0.0;     // --task text: the share of windows that start over at a random lag
  bool allow_long = false;       // --allow-long: past the two-minute work cap, up to an hour
  bool quiet = false;            // --quiet: no progress line
  double lr = 1e-3;
  std::int64_t seed = 42;
  std::optional<std::int64_t> threads;
  bool mlp = false, no_mlp = false;  // the default model is attention-only: it forms the circuit in about a minute
  std::string save, json, html;
  // --dtype f32|f64: the arithmetic of training and the saved weights' format. Not given: trained in
  // f64, saved in f32 (how every shipped model was made, so their documented commands keep their bytes).
  std::optional<std::string> dtype;
  std::string saved_dtype() const { return dtype.value_or("f32"); }
  bool force = false;  // --force: --save may replace a folder that is not empty
  std::string init = "random";  // or "symmetric": every head a copy of head 1 (src/train/clones.h)
  std::string study;            // --study tradeoffs: the chapter's variants over several seeds (study_cmd.cpp)
  // The chapter's variants (src/math/decoder.h), --task text only; any of the four makes it a variant run.
  std::string attention, pos, ffn, norm;
  std::optional<std::int64_t> kv_heads, latent, rope_dim, d_ff;
  bool variant() const { return !attention.empty() || !pos.empty() || !ffn.empty() || !norm.empty(); }
};

using train::kMaxTrainWork;  // trainer.h: about two minutes on two cores
constexpr double kLongTrainWork = 30 * kMaxTrainWork;  // --allow-long: about an hour
constexpr std::size_t kMaxCorpusBytes = std::size_t{64} << 20;

// The text of --task text, split into what training sees and the held-out slice, as ids.
struct TextSetup {
  std::string name;               // "en", "zh" or the file's path
  std::string train_text, heldout_text;
  std::size_t characters = 0, heldout_characters = 0, min_count = 0;
  CharVocab vocab;
  train::TextData data;
};

// The corpus (a bundled name or a file), its last 5% of characters held out, the vocabulary built
// from the rest: its characters seen at least min_count times, the `keep` most frequent of them.
void load_text(const TrainOptions& o, std::size_t keep, TextSetup& s) {
  s.name = o.corpus.empty() ? "en" : o.corpus;
  std::string text;
  const bool bundled = s.name == "en" || s.name == "zh" || s.name == "zh-mix";
  if (bundled) {
    text = bundled_corpus(s.name);
  } else {
    text = read_regular_file(s.name, kMaxCorpusBytes, "--corpus");
    std::size_t at = 0;
    for (char32_t cp = 0; at < text.size();) {  // a corpus is UTF-8 text: the first byte that is not, named
      std::size_t before = at;
      if (!next_utf8(text, at, cp)) {
        at = before;
        throw UsageError("train.err.corpus_utf8", {{"flag", "--corpus"}, {"path", s.name}, {"at", static_cast<std::uint64_t>(at)}});
      }
    }
  }
  s.min_count = static_cast<std::size_t>(o.min_count);
  CorpusSplit split = split_corpus(text, s.min_count, keep, bundled ? required_characters(s.name) : "");
  s.characters = split.characters;
  s.heldout_characters = split.heldout_characters;
  s.train_text = std::move(split.train_text);
  s.heldout_text = std::move(split.heldout_text);
  s.vocab = std::move(split.vocab);
  s.data.train = std::move(split.train_ids);
  s.data.heldout = std::move(split.heldout_ids);
  s.data.vocab = s.vocab.tokens.size();
}

void positive(const char* flag, std::int64_t v) {
  if (v < 1) throw UsageError("cli.err.positive", {{"flag", flag}, {"value", v}});
}

train::TrainConfig resolve(const TrainOptions& o, TextSetup& text) {
  train::TrainConfig c;
  if (!train::parse_task(o.task, c.task)) {
    std::string names;
    for (const std::string& n : train::task_names()) names += (names.empty() ? "" : ", ") + n;
    throw UsageError("train.err.task", {{"flag", "--task"}, {"value", o.task}, {"tasks", names}});
  }
  positive("--layers", o.layers), positive("--heads", o.heads), positive("--d-model", o.d_model);
  if (o.vocab) positive("--vocab", *o.vocab);
  positive("--seq-len", o.seq_len), positive("--batch", o.batch);
  positive("--steps", o.steps);
  const bool is_text = c.task == train::Task::Text;
  if (!is_text && !o.corpus.empty()) throw UsageError("train.err.corpus_task", {{"flag", "--corpus"}, {"task", o.task}});
  if (o.min_count < 1) throw UsageError("cli.err.positive", {{"flag", "--min-count"}, {"value", o.min_count}});
  if (!std::isfinite(o.repeat_share) || o.repeat_share < 0 || o.repeat_share > 1)
    throw UsageError("train.err.repeat_share", {{"flag", "--repeat-share"}, {"value", fmt::format("{}", o.repeat_share)}});
  if (!is_text && o.repeat_share > 0) throw UsageError("train.err.corpus_task", {{"flag", "--repeat-share"}, {"task", o.task}});
  std::int64_t vocab = o.vocab.value_or(is_text ? 2000 : 32);
  if (o.warmup < 0) throw UsageError("cli.err.negative", {{"flag", "--warmup"}, {"value", o.warmup}});
  if (!std::isfinite(o.lr)) throw UsageError("cli.err.not_a_number", {{"flag", "--lr"}, {"value", fmt::format("{}", o.lr)}});
  if (o.lr <= 0 || o.lr > 1) throw UsageError("train.err.lr", {{"flag", "--lr"}, {"value", o.lr}});
  if (o.seed < 0) throw UsageError("cli.err.seed", {{"flag", "--seed"}, {"value", o.seed}});
  if (o.threads && (*o.threads < 1 || *o.threads > 1024))
    throw UsageError("cli.err.threads", {{"flag", "--threads"}, {"value", *o.threads}});
  if (o.mlp && o.no_mlp) throw UsageError("train.err.mlp_both", {{"a_flag", "--mlp"}, {"b_flag", "--no-mlp"}});
  if (o.init != "random" && o.init != "symmetric") throw UsageError("train.err.init", {{"flag", "--init"}, {"value", o.init}});
  c.symmetric_heads = o.init == "symmetric";
  if (o.dtype && *o.dtype != "f32" && *o.dtype != "f64") throw UsageError("train.err.dtype", {{"flag", "--dtype"}, {"value", *o.dtype}});
  if (o.dtype == "f32" && o.variant()) throw UsageError("train.err.compute_variant", {{"flag", "--dtype"}, {"value", "f32"}});
  if (o.repeat_share != 0 && o.variant()) throw UsageError("train.err.repeat_share_gpt", {{"flag", "--repeat-share"}});
  c.compute = o.dtype == "f32" ? train::Precision::F32 : train::Precision::F64;
  if (o.d_model % o.heads != 0)
    throw UsageError("cli.err.not_divisible", {{"a_flag", "--d-model"}, {"a", o.d_model}, {"b_flag", "--heads"},
                                               {"b", o.heads}, {"suggest", divisible_suggestion(static_cast<std::uint64_t>(o.d_model), static_cast<std::uint64_t>(o.heads))}});
  const auto T = static_cast<std::size_t>(o.seq_len);
  if (T < train::task_min_seq_len(c.task))
    throw UsageError("train.err.seq_len_small", {{"flag", "--seq-len"}, {"value", o.seq_len}, {"task", o.task},
                                                 {"min", train::task_min_seq_len(c.task)}});
  if (is_text && vocab < 2) throw UsageError("train.err.vocab_small", {{"flag", "--vocab"}, {"value", vocab}, {"task", o.task}, {"seq_len", o.seq_len}, {"min", 2}});
  if (static_cast<std::size_t>(vocab) < train::task_min_vocab(c.task, T))
    throw UsageError("train.err.vocab_small", {{"flag", "--vocab"}, {"value", vocab}, {"task", o.task},
                                               {"seq_len", o.seq_len}, {"min", train::task_min_vocab(c.task, T)}});
  if (is_text) {  // the vocabulary is the text's own: at most --vocab characters, <unk> included
    if (o.corpus != "en" && o.corpus != "zh" && o.corpus != "zh-mix" && !o.corpus.empty()) declare_input("--corpus", o.corpus);
    load_text(o, static_cast<std::size_t>(vocab), text);
    if (text.data.train.size() < T + 1 || text.data.heldout.size() < T + 1)
      throw UsageError("train.err.corpus_short", {{"flag", "--corpus"}, {"path", text.name}, {"seq_len", o.seq_len},
                                                  {"chars", text.characters}});
    vocab = static_cast<std::int64_t>(text.data.vocab);
    c.text = &text.data;
    c.cosine = true;
    c.repeat_share = o.repeat_share;
  }
  c.model = {static_cast<std::size_t>(vocab), T, static_cast<std::size_t>(o.d_model), static_cast<std::size_t>(o.layers),
             static_cast<std::size_t>(o.heads), o.mlp};
  c.batch = static_cast<std::size_t>(o.batch);
  c.steps = static_cast<std::size_t>(o.steps);
  c.warmup = static_cast<std::size_t>(o.warmup);
  c.lr = o.lr;
  c.seed = static_cast<std::uint64_t>(o.seed);
  c.eval_every = std::max<std::size_t>(1, c.steps / 40);
  // a text evaluation reads 32 windows of real text: at most every 25 steps (a short run, such as the
  // first-steps reproduction test, would otherwise spend more time evaluating than training)
  if (is_text) c.eval_every = std::max<std::size_t>(25, c.eval_every);
  const double numbers = train::train_memory_numbers(c);
  if (numbers > static_cast<double>(kMaxLessonElements) * work_cap_scale())
    throw UsageError("train.err.memory", {{"numbers", numbers}, {"max", static_cast<double>(kMaxLessonElements)},
                                          {"flags", "--batch, --seq-len, --d-model, --vocab, --layers"}});
  const double work = train::train_work(c), max_work = (o.allow_long ? kLongTrainWork : kMaxTrainWork) * work_cap_scale();
  if (work > max_work)
    throw UsageError("train.err.work", {{"flops", work}, {"max", max_work}, {"flags", "--steps, --batch, --seq-len, --heads, --d-model, --layers"},
                                        {"max_steps", static_cast<std::uint64_t>(std::floor(max_work / train::step_work(c)))}});
  return c;
}

// The progress bar: stderr, only when it is a terminal, at most ten times a second.
class Progress {
 public:
  Progress(const Text& t, bool quiet, std::size_t tokens_per_step)
      : t_(t), on_(!quiet && ::isatty(STDERR_FILENO) == 1), tokens_(tokens_per_step), start_(Clock::now()), last_(start_) {}
  void operator()(std::size_t step, std::size_t steps, double loss) {
    if (!on_) return;
    auto now = Clock::now();
    if (step != steps && now - last_ < std::chrono::milliseconds(100)) return;
    double secs = std::chrono::duration<double>(now - start_).count();
    if (!shown_ && secs < 2.0) return;  // a run shorter than two seconds prints no progress
    shown_ = true;
    last_ = now;
    const std::size_t width = 30, done = step * width / steps;
    std::string bar;
    for (std::size_t i = 0; i < width; ++i) bar += i < done ? "█" : "·";
    fmt::print(stderr, "\r{} {}\x1b[K", bar,
               t_("train.progress", {{"step", step}, {"steps", steps}, {"loss", loss}, {"rate", secs > 0 ? step / secs : 0.0},
                                     {"tokens", secs > 0 ? static_cast<double>(step * tokens_) / secs : 0.0},
                                     {"eta", step > 0 ? secs * static_cast<double>(steps - step) / static_cast<double>(step) : 0.0}}));
    if (step == steps) fmt::print(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  const Text& t_;
  bool on_, shown_ = false;
  std::size_t tokens_;
  Clock::time_point start_, last_;
};

std::string num(double x, int digits = 3) {
  std::string s = fmt::format("{:.{}f}", x, digits);
  return s.find_first_not_of("-0.") == std::string::npos ? fmt::format("{:.{}f}", 0.0, digits) : s;
}

// The held-out figures of a text run: the model's loss and bits per character beside the n-gram
// baselines on the same held-out characters (training.json, --json and the report).
struct TextFigures {
  double model = 0, unigram = 0, bigram = 0;  // nats per character
};
TextFigures text_figures(const train::TrainResult& r, const TextSetup& tx) {
  train::NgramLoss g = train::ngram_loss(tx.data.train, tx.data.heldout, tx.data.vocab);
  return {r.heldout_loss, g.unigram, g.bigram};
}

nlohmann::ordered_json text_values(const train::TrainResult& r, const TextSetup& tx) {
  const TextFigures f = text_figures(r, tx);
  const double ln2 = libm::log(2.0);
  return {{"corpus", tx.name}, {"characters", tx.characters}, {"heldout_characters", tx.heldout_characters},
          {"heldout_targets", r.heldout_targets}, {"vocab", tx.vocab.tokens.size()}, {"unk_in_training", tx.vocab.counts[0]},
          {"heldout_loss", f.model}, {"heldout_bpc", f.model / ln2},
          {"unigram_bpc", f.unigram / ln2}, {"bigram_bpc", f.bigram / ln2}};
}

using Best = train::BestHead;

// The two heads' attention on one held-out sequence, side by side, one character a weight.
std::string patterns(const train::TrainResult& r, const Best& prev, const Best& ind, const Text& t) {
  const Tensor& a = r.final_attention;
  const std::size_t H = a.dim(1), T = a.dim(2);
  auto shade = [](double w) { return w >= 0.7 ? "█" : w >= 0.5 ? "▓" : w >= 0.3 ? "▒" : w >= 0.1 ? "░" : "·"; };
  auto cell = [&](const Best& b, std::size_t i) {
    std::string row;
    for (std::size_t j = 0; j < T; ++j) row += j > i ? " " : shade(a.data[((b.layer * H + b.head) * T + i) * T + j]);
    return row;
  };
  std::string out = t("train.pattern_title") + "\n";
  std::string left = t("train.pattern_head", {{"head_ref", head_ref(prev.layer, prev.head)}, {"kind", "prev"}});
  const std::size_t width = std::max(T, display_width(left));
  out += fmt::format("  {:8}  {}  {}\n", "", pad_right(left, width),
                     t("train.pattern_head", {{"head_ref", head_ref(ind.layer, ind.head)}, {"kind", "induction"}}));
  for (std::size_t i = 0; i < T; ++i)  // positions count from 1, as the lessons' heatmaps do
    out += fmt::format("  {:>3} {:>4}  {}  {}\n", i + 1, r.pattern_tokens[i], pad_right(cell(prev, i), width), cell(ind, i));
  return out;
}

bool has_repeat(train::Task t) { return t == train::Task::Induction || t == train::Task::RepeatHalf; }

std::string render_text(const train::TrainConfig& c, const train::TrainResult& r, const TextSetup* tx, const Text& t) {
  const auto& m = c.model;
  const double ln_v = libm::log(static_cast<double>(m.vocab));
  std::string task = train::task_name(c.task);
  std::string out = t("train.title", {{"task", task}}) + "\n";
  out += "  " + (tx != nullptr ? t("train.task.text", {{"corpus", tx->name}, {"chars", tx->characters},
                                                        {"heldout", tx->heldout_characters}, {"min_count", tx->min_count}})
                               : t("train.task." + task)) + "\n";
  if (c.repeat_share > 0) out += "  " + t("train.task.repeat", {{"share", c.repeat_share}}) + "\n";
  out += "  " + t("train.model_line", {{"layers", m.n_layer}, {"heads", m.n_head}, {"d_model", m.d_model}, {"vocab", m.vocab},
                                       {"seq_len", m.n_positions}, {"mlp", m.mlp}, {"params", r.model.layout.total}}) + "\n";
  out += "  " + t("train.train_line", {{"batch", c.batch}, {"steps", c.steps}, {"lr", c.lr}, {"warmup", c.warmup},
                                       {"seed", c.seed}, {"gflop", train::step_flops(c) / 1e9},
                                       {"compute", c.compute == train::Precision::F32 ? "f32" : "f64"}}) + "\n\n";

  // The loss curve: the mean loss over each twentieth of the run.
  out += t("train.loss_title", {{"vocab", m.vocab}, {"ln_v", ln_v}}) + "\n";
  const std::size_t rows = std::min<std::size_t>(20, c.steps), n = r.loss_curve.size();
  std::vector<Bar> bars;
  for (std::size_t i = 0; i < rows; ++i) {
    std::size_t b = n * i / rows, e = n * (i + 1) / rows;
    double s = 0;
    for (std::size_t k = b; k < e; ++k) s += r.loss_curve[k];
    double mean = s / static_cast<double>(e - b);
    bars.push_back({t("train.loss_row", {{"from", b + 1}, {"to", e}}), mean, num(mean)});
  }
  out += bar_chart(bars, 40);
  if (tx != nullptr) {  // held-out bits per character beside the n-gram models of the same text
    const TextFigures f = text_figures(r, *tx);
    const double ln2 = libm::log(2.0);
    std::vector<Bar> b{{t("train.text.model"), f.model / ln2, num(f.model / ln2)},
                       {t("train.text.bigram"), f.bigram / ln2, num(f.bigram / ln2)},
                       {t("train.text.unigram"), f.unigram / ln2, num(f.unigram / ln2)}};
    out += "\n" + t("train.text.title", {{"chars", r.heldout_targets}}) + "\n" + bar_chart(b, 40);
    out += "  " + t("train.text.verdict", {{"beats_bigram", f.model < f.bigram}, {"model", f.model / ln2},
                                           {"bigram", f.bigram / ln2}, {"ratio", f.model / f.bigram}}) + "\n\n";
  }
  const train::Drop drop = train::phase_change(r, has_repeat(c.task), ln_v);
  if (tx == nullptr) out += "  " + t("train.drop", {{"reached", drop.reached}, {"repeat", has_repeat(c.task)}, {"step", drop.step},
                                 {"half", 0.5 * ln_v}}) + "\n\n";

  // The heads as training goes.
  const std::size_t L = m.n_layer, H = m.n_head;
  out += t("train.progress_title", {{"sequences", c.eval_batch}}) + "\n";
  TextTable p;
  p.header = {t("train.col.step"), t("train.col.eval_loss"), t("train.col.repeat_loss"), t("train.col.best_prev"),
              t("train.col.best_induction")};
  p.right = {true, true, true, true, true};
  const std::size_t every = std::max<std::size_t>(1, r.evals.size() / 10);
  for (std::size_t i = 0; i < r.evals.size(); ++i) {
    if (i % every != 0 && i + 1 != r.evals.size()) continue;
    const train::Evaluation& e = r.evals[i];
    Best bp = train::best_head(e.scores.prev_token, 0, 1), bi = train::best_head(e.scores.induction, L > 1 ? 1 : 0, L);
    p.rows.push_back({fmt::format("{}", e.step), num(e.loss), has_repeat(c.task) ? num(e.repeat_loss) : "-",
                      t("train.head_score", {{"head_ref", head_ref(bp.layer, bp.head)}, {"score", num(bp.score)}}),
                      t("train.head_score", {{"head_ref", head_ref(bi.layer, bi.head)}, {"score", num(bi.score)}})});
  }
  out += render_table(p) + "\n";

  // Every head after training.
  const train::Evaluation& last = r.evals.back();
  out += t("train.heads_title", {{"sequences", c.eval_batch}}) + "\n";
  TextTable h;
  h.header = {t("train.col.layer"), t("train.col.head"), t("train.col.prev"), t("train.col.first"), t("train.col.self"),
              t("train.col.induction")};
  h.right = {true, true, true, true, true, true};
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t k = 0; k < H; ++k)
      h.rows.push_back({fmt::format("{}", l + 1), fmt::format("{}", k + 1), num(last.scores.prev_token(l, k)),
                        num(last.scores.first_token(l, k)), num(last.scores.self(l, k)), num(last.scores.induction(l, k))});
  out += render_table(h);
  Best bp = train::best_head(last.scores.prev_token, 0, 1), bi = train::best_head(last.scores.induction, L > 1 ? 1 : 0, L);
  // A head is called a previous-token or induction head only by the rule `heads` uses (head_roles.h):
  // on a text where no head has the role, the sentence says so and gives the best score.
  // Induction as `heads` scores a text of T/2 tokens repeated (queries in the second half).
  const double prev_rule = role_threshold(even_share(m.n_positions, 1));
  const double ind_rule = role_threshold(even_share(m.n_positions, m.n_positions / 2));
  out += "  " + t("train.best_heads", {{"prev_layer", bp.layer + 1}, {"prev_head", bp.head + 1}, {"prev", bp.score},
                                       {"prev_named", bp.score >= prev_rule}, {"prev_rule", prev_rule}, {"ind_layer", bi.layer + 1},
                                       {"ind_head", bi.head + 1}, {"ind", bi.score}, {"ind_named", bi.score >= ind_rule},
                                       {"ind_rule", ind_rule}}) + "\n";
  out += "\n" + patterns(r, bp, bi, t);
  if (!has_repeat(c.task)) out += "  " + t("train.accuracy", {{"accuracy", last.accuracy}, {"loss", last.loss}}) + "\n";
  if (c.symmetric_heads) {
    const bool equal = std::all_of(r.clone_gap.begin(), r.clone_gap.end(), [](double g) { return g == 0.0; });
    out += "  " + t("train.clones", {{"equal", equal}, {"steps", c.steps},
                                     {"gap", *std::max_element(r.clone_gap.begin(), r.clone_gap.end())}}) + "\n";
  }
  if (has_repeat(c.task)) {
    std::vector<std::string> names;
    for (auto [l, k] : r.ablated) names.push_back(t("train.head_name", {{"head_ref", head_ref(l, k)}}));
    out += "  " + t("train.ablation", {{"loss", last.repeat_loss}, {"n", r.ablated.size()}, {"heads", join_list(names)},
                                       {"ablated", r.repeat_loss_ablated}}) + "\n";
  }
  return out;
}

nlohmann::ordered_json matrix(const Tensor& s) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t l = 0; l < s.dim(0); ++l) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (std::size_t h = 0; h < s.dim(1); ++h) row.push_back(s(l, h));
    rows.push_back(row);
  }
  return rows;
}

constexpr const char* kTrainSchema = "attnlab.train/1";

std::string render_json(const train::TrainConfig& c, const train::TrainResult& r, const TextSetup* tx) {
  const auto& m = c.model;
  nlohmann::ordered_json j;
  j["schema"] = kTrainSchema;
  j["command"] = "train";
  j["config"] = {{"task", train::task_name(c.task)}, {"n_layer", m.n_layer}, {"n_head", m.n_head}, {"n_embd", m.d_model},
                 {"vocab_size", m.vocab}, {"n_positions", m.n_positions}, {"mlp", m.mlp}, {"batch", c.batch},
                 {"steps", c.steps}, {"lr", c.lr}, {"warmup", c.warmup}, {"betas", {c.beta1, c.beta2}},
                 {"weight_decay", c.weight_decay}, {"seed", c.seed}, {"parameters", r.model.layout.total},
                 {"flops_per_step", train::step_flops(c)}, {"init", c.symmetric_heads ? "symmetric" : "random"},
                 {"eval_every", c.eval_every}, {"eval_batch", c.eval_batch}};
  if (c.compute == train::Precision::F32) j["config"]["compute"] = "f32";  // absent: f64, as before the flag
  if (c.repeat_share > 0) j["config"]["repeat_share"] = c.repeat_share;  // absent: the text as written
  const double ln_v = libm::log(static_cast<double>(m.vocab));
  j["values"] = {{"ln_vocab", ln_v},
                 {"drop_step", train::phase_change(r, has_repeat(c.task), ln_v).reached
                                   ? nlohmann::ordered_json(train::phase_change(r, has_repeat(c.task), ln_v).step)
                                   : nlohmann::ordered_json(nullptr)},
                 {"loss_repeated_half", r.evals.back().repeat_loss},
                 {"loss_repeated_half_ablated", r.repeat_loss_ablated},
                 {"accuracy", r.evals.back().accuracy},
                 {"ablated_heads", nlohmann::ordered_json::array()}};
  for (auto [l, k] : r.ablated) j["values"]["ablated_heads"].push_back({l + 1, k + 1});
  if (tx != nullptr) j["text"] = text_values(r, *tx);
  j["loss_curve"] = r.loss_curve;
  if (c.symmetric_heads) j["clone_gap"] = r.clone_gap;
  nlohmann::ordered_json evals = nlohmann::ordered_json::array();
  for (const train::Evaluation& e : r.evals)
    evals.push_back({{"step", e.step}, {"loss", e.loss}, {"repeat_loss", e.repeat_loss}, {"accuracy", e.accuracy},
                     {"prev_token_score", matrix(e.scores.prev_token)}, {"first_token_score", matrix(e.scores.first_token)},
                     {"self_score", matrix(e.scores.self)}, {"induction_score", matrix(e.scores.induction)}});
  j["evals"] = evals;
  const train::Evaluation& last = r.evals.back();
  j["prev_token_score"] = matrix(last.scores.prev_token);
  j["first_token_score"] = matrix(last.scores.first_token);
  j["self_score"] = matrix(last.scores.self);
  j["induction_score"] = matrix(last.scores.induction);
  j["pattern_tokens"] = r.pattern_tokens;
  j["attention_final"] = {{"shape", r.final_attention.shape}, {"data", r.final_attention.data}};
  return j.dump(1) + "\n";
}

// config.json with Hugging Face GPT-2's keys, and our own for what GPT-2 has no key for.
std::string hf_config(const train::TrainConfig& c, const TextSetup* tx, const std::string& dtype) {
  const auto& m = c.model;
  nlohmann::ordered_json j;
  j["architectures"] = {"GPT2LMHeadModel"};
  j["model_type"] = "gpt2";
  j["activation_function"] = "gelu_new";
  j["n_layer"] = m.n_layer;
  j["n_head"] = m.n_head;
  j["n_embd"] = m.d_model;
  j["n_positions"] = m.n_positions;
  j["n_ctx"] = m.n_positions;
  j["n_inner"] = nullptr;
  j["vocab_size"] = m.vocab;
  j["layer_norm_epsilon"] = gpt::kLayerNormEps;
  j["initializer_range"] = 0.02;
  j["resid_pdrop"] = 0.0;
  j["embd_pdrop"] = 0.0;
  j["attn_pdrop"] = 0.0;
  j["scale_attn_weights"] = true;
  j["tie_word_embeddings"] = true;
  j["bos_token_id"] = 0;
  j["eos_token_id"] = 0;
  j["torch_dtype"] = dtype == "f64" ? "float64" : "float32";
  j["attnlab_attention_only"] = !m.mlp;
  j["attnlab_task"] = train::task_name(c.task);
  if (c.symmetric_heads) j["attnlab_init"] = "symmetric";
  if (tx != nullptr)
    j["attnlab_corpus"] = {{"name", tx->name}, {"characters", tx->characters}, {"heldout_characters", tx->heldout_characters},
                           {"min_count", tx->min_count}, {"vocab", tx->vocab.tokens.size()}};
  j["attnlab_train"] = {{"batch", c.batch}, {"steps", c.steps}, {"lr", c.lr}, {"warmup", c.warmup},
                        {"betas", {c.beta1, c.beta2}}, {"weight_decay", c.weight_decay}, {"seed", c.seed},
                        {"schedule", c.cosine ? "cosine" : "constant"}};
  // only when not the default, so that an f64 run writes the bytes it always wrote
  if (c.compute == train::Precision::F32) j["attnlab_train"]["compute"] = "f32";
  if (c.repeat_share > 0) j["attnlab_train"]["repeat_share"] = c.repeat_share;
  return j.dump(2) + "\n";
}

// training.json: the loss at every step and the evaluation losses (what `lesson induction` plots
// for a shipped model without training it again); numbers in their shortest round-trip form.
std::string training_log(const train::TrainResult& r, const TextSetup* tx) {
  nlohmann::ordered_json j;
  if (tx != nullptr) j["text"] = text_values(r, *tx);
  j["loss_curve"] = r.loss_curve;
  nlohmann::ordered_json evals = nlohmann::ordered_json::array();
  for (const train::Evaluation& e : r.evals) evals.push_back({{"step", e.step}, {"loss", e.loss}, {"repeat_loss", e.repeat_loss}});
  j["evals"] = evals;
  return j.dump(1) + "\n";
}

// Into the temporary folder declare_save_folder made; commit_outputs renames it into place.
void save(const train::TrainConfig& c, const train::TrainResult& r, const TextSetup* tx, const std::string& dtype) {
  std::vector<train::NamedTensor> tensors;
  for (const gpt::ParamTensor& p : r.model.layout.tensors)
    tensors.push_back({p.name, p.shape, r.model.params.data() + p.offset});
  std::string bytes = train::safetensors_bytes(tensors, dtype == "f64" ? train::SafeDtype::F64 : train::SafeDtype::F32,
                                               {{"format", "pt"}});
  write_save_file("config.json", hf_config(c, tx, dtype));
  write_save_file("model.safetensors", bytes);
  if (tx != nullptr) write_save_file("tokenizer.json", char_tokenizer_json(tx->vocab));
  write_save_file("training.json", training_log(r, tx));
}

// ---- a variant (--attention, --pos, --ffn, --norm): src/math/decoder.h --------------------------

decoder::DecoderConfig variant_config(const TrainOptions& o, const train::TrainConfig& c) {
  auto bad = [](const char* flag, const std::string& value, const char* rule) {
    return UsageError("train.err.variant", {{"flag", flag}, {"value", value}, {"rule", rule}});
  };
  if (c.task != train::Task::Text) throw bad("--attention", o.attention, "text_only");
  if (o.init != "random") throw bad("--init", o.init, "no_init");
  if (o.mlp || o.no_mlp) throw bad(o.mlp ? "--mlp" : "--no-mlp", "", "no_mlp");
  decoder::DecoderConfig d;
  d.vocab = c.model.vocab, d.n_positions = c.model.n_positions, d.d_model = c.model.d_model;
  d.n_layer = c.model.n_layer, d.n_head = c.model.n_head;
  const std::string a = o.attention.empty() ? "mha" : o.attention;
  if (a == "mha") d.attention = decoder::Attention::Mha;
  else if (a == "gqa") d.attention = decoder::Attention::Gqa;
  else if (a == "mqa") d.attention = decoder::Attention::Mqa;
  else if (a == "mla") d.attention = decoder::Attention::Mla;
  else throw bad("--attention", a, "attention");
  const std::string pos = o.pos.empty() ? "rope" : o.pos, ffn = o.ffn.empty() ? "swiglu" : o.ffn,
                    norm = o.norm.empty() ? "rmsnorm" : o.norm;
  if (pos != "rope" && pos != "learned") throw bad("--pos", pos, "pos");
  if (ffn != "swiglu" && ffn != "gelu") throw bad("--ffn", ffn, "ffn");
  if (norm != "rmsnorm" && norm != "layernorm") throw bad("--norm", norm, "norm");
  d.positions = pos == "rope" ? decoder::Positions::Rope : decoder::Positions::Learned;
  d.ffn = ffn == "swiglu" ? decoder::Ffn::Swiglu : decoder::Ffn::Gelu;
  d.norm = norm == "rmsnorm" ? decoder::Norm::RmsNorm : decoder::Norm::LayerNorm;
  auto size = [&](const char* flag, const std::optional<std::int64_t>& v, std::size_t fallback) -> std::size_t {
    if (!v) return fallback;
    if (*v < 1 || *v > (std::int64_t{1} << 20)) throw UsageError("cli.err.positive", {{"flag", flag}, {"value", *v}});
    return static_cast<std::size_t>(*v);
  };
  d.n_kv_head = size("--kv-heads", o.kv_heads, 0);
  if (o.kv_heads && d.attention != decoder::Attention::Gqa) throw bad("--kv-heads", fmt::format("{}", *o.kv_heads), "kv_heads_gqa");
  if (d.attention == decoder::Attention::Gqa && (d.n_kv_head == 0 || d.n_head % d.n_kv_head != 0))
    throw bad("--kv-heads", fmt::format("{}", d.n_kv_head), "kv_heads");
  const bool mla = d.attention == decoder::Attention::Mla;
  if (!mla && (o.latent || o.rope_dim)) throw bad(o.latent ? "--latent" : "--rope-dim", "", "mla_only");
  d.kv_lora_rank = size("--latent", o.latent, mla ? d.d_model / 2 : 0);
  const std::size_t hs = d.hs();
  d.rope_dim = mla && d.positions == decoder::Positions::Rope ? size("--rope-dim", o.rope_dim, std::max<std::size_t>(2, hs / 2 / 2 * 2)) : 0;
  if (mla && d.positions == decoder::Positions::Learned && o.rope_dim) throw bad("--rope-dim", "", "rope_dim_learned");
  if (d.positions == decoder::Positions::Rope && (mla ? d.rope_dim : hs) % 2 != 0)
    throw bad(mla ? "--rope-dim" : "--d-model", fmt::format("{}", mla ? d.rope_dim : hs), "rope_even");
  // SwiGLU's width by LLaMA's rule (8d/3, up to a multiple of 16), GELU's 4d, unless --d-ff
  d.d_ff = size("--d-ff", o.d_ff, d.ffn == decoder::Ffn::Swiglu ? (8 * d.d_model / 3 + 15) / 16 * 16 : 4 * d.d_model);
  if (!decoder::check_config(d).empty()) throw bad("--attention", a, "other");
  return d;
}

std::string variant_name(const decoder::DecoderConfig& d) {
  const char* pos = d.positions == decoder::Positions::Rope ? "rope" : "learned";
  const char* ffn = d.ffn == decoder::Ffn::Swiglu ? "swiglu" : "gelu";
  const char* norm = d.norm == decoder::Norm::RmsNorm ? "rmsnorm" : "layernorm";
  return fmt::format("{}, {}, {}, {}", decoder::attention_name(d), pos, ffn, norm);
}

void run_variant(const TrainOptions& o, const train::TrainConfig& c, const TextSetup& tx) {
  const decoder::DecoderConfig d = variant_config(o, c);
  // MHA, GQA and MQA save as Llama, MLA as DeepSeek-V2: both need RoPE, RMSNorm and SwiGLU
  const bool mla = d.attention == decoder::Attention::Mla;
  const std::string misfit = mla ? train::deepseek_incompatibility(d) : train::llama_incompatibility(d);
  if (!o.save.empty() && !misfit.empty()) throw UsageError("train.err.variant_save", {{"flag", "--save"}, {"part", misfit}});
  train::VariantRun r;
  r.model = d;
  r.batch = c.batch, r.steps = c.steps, r.warmup = c.warmup, r.lr = c.lr, r.seed = c.seed;
  r.beta1 = c.beta1, r.beta2 = c.beta2, r.weight_decay = c.weight_decay, r.min_lr_ratio = c.min_lr_ratio;
  r.eval_every = c.eval_every, r.eval_batch = c.eval_batch;
  r.text = &tx.data;
  const double step = train::variant_step_flops(r) + train::kStepWork;
  const double work = step * static_cast<double>(r.steps),
               max_work = (o.allow_long ? kLongTrainWork : kMaxTrainWork) * work_cap_scale();
  if (work > max_work)
    throw UsageError("train.err.work", {{"flops", work}, {"max", max_work}, {"flags", "--steps, --batch, --seq-len, --d-model, --layers, --d-ff"},
                                        {"max_steps", static_cast<std::uint64_t>(std::floor(max_work / step))}});
  if (!o.save.empty()) declare_save_folder("--save", o.save, o.force);
  if (!o.json.empty()) declare_output("--json", o.json);
  if (!o.html.empty()) declare_output("--html", o.html);
  const Text& t = text();
  Progress progress(t, o.quiet, r.batch * d.n_positions);
  const train::VariantResult res = train::train_variant(r, [&](std::size_t s, std::size_t n, double loss) { progress(s, n, loss); });
  const train::NgramLoss g = train::ngram_loss(tx.data.train, tx.data.heldout, tx.data.vocab);
  const double ln2 = libm::log(2.0);
  std::string out = t("train.variant.title", {{"variant", variant_name(d)}}) + "\n";
  out += "  " + t("train.task.text", {{"corpus", tx.name}, {"chars", tx.characters}, {"heldout", tx.heldout_characters},
                                      {"min_count", tx.min_count}}) + "\n";
  out += "  " + t("train.variant.model", {{"layers", d.n_layer}, {"heads", d.n_head}, {"kv_heads", d.kv_heads()},
                                          {"d_model", d.d_model}, {"d_ff", d.F()}, {"vocab", d.vocab}, {"seq_len", d.n_positions},
                                          {"params", res.model.layout.total}, {"cache", d.cache_per_token()}}) + "\n";
  out += "  " + t("train.train_line", {{"batch", r.batch}, {"steps", r.steps}, {"lr", r.lr}, {"warmup", r.warmup},
                                       {"seed", r.seed}, {"gflop", train::variant_step_flops(r) / 1e9}, {"compute", "f64"}}) + "\n\n";
  TextTable e;
  e.header = {t("train.col.step"), t("train.col.eval_loss")};
  e.right = {true, true};
  const std::size_t every = std::max<std::size_t>(1, res.evals.size() / 10);
  for (std::size_t i = 0; i < res.evals.size(); ++i)
    if (i % every == 0 || i + 1 == res.evals.size()) e.rows.push_back({fmt::format("{}", res.evals[i].step), num(res.evals[i].loss)});
  out += render_table(e) + "\n";
  std::vector<Bar> b{{t("train.text.model"), res.heldout_loss / ln2, num(res.heldout_loss / ln2)},
                     {t("train.text.bigram"), g.bigram / ln2, num(g.bigram / ln2)},
                     {t("train.text.unigram"), g.unigram / ln2, num(g.unigram / ln2)}};
  out += t("train.text.title", {{"chars", res.heldout_targets}}) + "\n" + bar_chart(b, 40);
  out += "  " + t("train.text.verdict", {{"beats_bigram", res.heldout_loss < g.bigram}, {"model", res.heldout_loss / ln2},
                                         {"bigram", g.bigram / ln2}, {"ratio", res.heldout_loss / g.bigram}}) + "\n";
  nlohmann::ordered_json values = {{"corpus", tx.name}, {"characters", tx.characters}, {"heldout_characters", tx.heldout_characters},
                                   {"heldout_targets", res.heldout_targets}, {"vocab", tx.vocab.tokens.size()},
                                   {"heldout_loss", res.heldout_loss}, {"heldout_bpc", res.heldout_loss / ln2},
                                   {"unigram_bpc", g.unigram / ln2}, {"bigram_bpc", g.bigram / ln2}};
  nlohmann::ordered_json evals = nlohmann::ordered_json::array();
  for (const train::VariantEval& v : res.evals) evals.push_back({{"step", v.step}, {"loss", v.loss}});
  if (!o.save.empty()) {
    const train::LlamaTensors lt = mla ? train::deepseek_tensors(res.model) : train::llama_tensors(res.model);
    const bool f64 = o.dtype == "f64";  // a variant trains in f64; saved in f32 unless --dtype f64
    nlohmann::ordered_json extra = {{"attnlab_variant", variant_name(d)},
                                    {"attnlab_corpus", {{"name", tx.name}, {"characters", tx.characters},
                                                        {"heldout_characters", tx.heldout_characters},
                                                        {"min_count", tx.min_count}, {"vocab", tx.vocab.tokens.size()}}},
                                    {"attnlab_train", {{"batch", r.batch}, {"steps", r.steps}, {"lr", r.lr}, {"warmup", r.warmup},
                                                       {"betas", {r.beta1, r.beta2}}, {"weight_decay", r.weight_decay},
                                                       {"seed", r.seed}, {"schedule", "cosine"}}}};
    write_save_file("config.json", mla ? train::deepseek_config_json(d, f64, extra.dump()) : train::llama_config_json(d, f64, extra.dump()));
    write_save_file("model.safetensors", train::safetensors_bytes(lt.tensors, f64 ? train::SafeDtype::F64 : train::SafeDtype::F32,
                                                                  {{"format", "pt"}}));
    write_save_file("tokenizer.json", char_tokenizer_json(tx.vocab));
    nlohmann::ordered_json log = {{"text", values}, {"loss_curve", res.loss_curve}, {"evals", evals}};
    write_save_file("training.json", log.dump(1) + "\n");
    out += "  " + t("train.variant.saved", {{"dir", o.save}, {"mla", mla}}) + "\n";
  }
  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["schema"] = kTrainSchema;
    j["command"] = "train";
    j["variant"] = variant_name(d);
    j["config"] = {{"n_layer", d.n_layer}, {"n_head", d.n_head}, {"n_kv_head", d.kv_heads()}, {"d_model", d.d_model},
                   {"head_dim", d.hs()}, {"d_ff", d.F()}, {"kv_lora_rank", d.kv_lora_rank}, {"rope_dim", d.rope_dim},
                   {"vocab_size", d.vocab}, {"n_positions", d.n_positions}, {"batch", r.batch}, {"steps", r.steps},
                   {"lr", r.lr}, {"warmup", r.warmup}, {"seed", r.seed}, {"parameters", res.model.layout.total},
                   {"cache_per_token", d.cache_per_token()}};
    j["text"] = values;
    j["loss_curve"] = res.loss_curve;
    j["evals"] = evals;
    write_json_doc(o.json, kTrainSchema, j.dump(1) + "\n");
  }
  if (!o.html.empty()) write_html_report(o.html, t("train.html_title"), out);
  commit_outputs();
  if (o.json.empty() && o.html.empty()) emit(out);
  print_written();
}

// The run the flags ask for, by the flags that choose it.
TrainMode train_mode(const TrainOptions& o) {
  if (!o.study.empty()) return kStudy;
  if (o.task != "text") return kSynthetic;
  return o.variant() ? kVariant : kTextRun;
}

const char* mode_name(TrainMode m) {
  return m == kStudy ? "study" : m == kSynthetic ? "synthetic" : m == kTextRun ? "text" : "variant";
}

// Every flag given is used by this run, or the run is refused before any work.
void refuse_unused_flags(const CLI::App& sub, const TrainOptions& o) {
  const TrainMode mode = train_mode(o);
  for (const FlagUse& u : train_flag_uses()) {
    if (sub.count(u.flag) == 0 || (u.modes & mode) != 0) continue;
    std::vector<std::string> uses;
    for (TrainMode m : {kStudy, kSynthetic, kTextRun, kVariant})
      if ((u.modes & m) != 0) uses.push_back(text()("train.mode", {{"mode", mode_name(m)}}));
    throw UsageError("train.err.flag_unused", {{"flag", u.flag}, {"mode", mode_name(mode)}, {"task", o.task},
                                               {"uses", join_list(uses)}});
  }
  if (sub.count("--force") > 0 && o.save.empty())
    throw UsageError("train.err.force_without_save", {{"flag", "--force"}, {"save_flag", "--save"}});
}

void run_train(const TrainOptions& o) {
  if (!o.study.empty()) {
    if (o.threads && (*o.threads < 1 || *o.threads > 1024))
      throw UsageError("cli.err.threads", {{"flag", "--threads"}, {"value", *o.threads}});
    return run_study_command(o.study, o.json, o.threads ? static_cast<std::size_t>(*o.threads) : thread_count(), o.quiet);
  }
  TextSetup text_setup;
  train::TrainConfig c = resolve(o, text_setup);
  if (o.variant()) return run_variant(o, c, text_setup);
  const TextSetup* tx = c.task == train::Task::Text ? &text_setup : nullptr;
  if (o.threads) set_threads(static_cast<std::size_t>(*o.threads));
  // every output checked, and its temporary file made, before the first step
  if (!o.save.empty()) declare_save_folder("--save", o.save, o.force);
  if (!o.json.empty()) declare_output("--json", o.json);
  if (!o.html.empty()) declare_output("--html", o.html);
  const Text& t = text();
  Progress progress(t, o.quiet, c.batch * c.model.n_positions);
  train::TrainResult r = train::train(c, [&](std::size_t s, std::size_t n, double loss) { progress(s, n, loss); });
  std::string report = render_text(c, r, tx, t);
  if (!o.save.empty()) {
    save(c, r, tx, o.saved_dtype());
    report += "  " + t("train.saved", {{"dir", o.save}, {"text", tx != nullptr}}) + "\n";
  }
  if (!o.json.empty()) write_json_doc(o.json, kTrainSchema, render_json(c, r, tx));
  if (!o.html.empty()) write_html_report(o.html, t("train.html_title"), report);  // the terminal text, preformatted
  commit_outputs();
  if (o.json.empty() && o.html.empty()) emit(report);
  print_written();
}

}  // namespace

const std::vector<FlagUse>& train_flag_uses() {
  static const std::vector<FlagUse> uses = {
      {"--task", kAnyRun},       {"--layers", kAnyRun},     {"--heads", kAnyRun},       {"--d-model", kAnyRun},
      {"--vocab", kAnyRun},      {"--seq-len", kAnyRun},    {"--mlp", kSynthetic | kTextRun},
      {"--no-mlp", kSynthetic | kTextRun},                   {"--batch", kAnyRun},       {"--steps", kAnyRun},
      {"--lr", kAnyRun},         {"--warmup", kAnyRun},     {"--seed", kAnyRun},        {"--threads", kAnyMode},
      {"--save", kAnyRun},       {"--force", kAnyRun},      {"--corpus", kTextRun | kVariant},
      {"--min-count", kTextRun | kVariant},                 {"--repeat-share", kTextRun},
      {"--allow-long", kAnyRun}, {"--quiet", kAnyMode},     {"--dtype", kAnyRun},       {"--init", kSynthetic | kTextRun},
      {"--json", kAnyMode},      {"--html", kAnyRun},       {"--study", kStudy},        {"--attention", kVariant},
      {"--kv-heads", kVariant},  {"--latent", kVariant},    {"--rope-dim", kVariant},   {"--pos", kVariant},
      {"--ffn", kVariant},       {"--norm", kVariant},      {"--d-ff", kVariant},       {"--lang", kAnyMode},
  };
  return uses;
}

void setup_train(CLI::App& root) {
  auto o = std::make_shared<TrainOptions>();
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("train", t("train.description"));
  sub->option_defaults()->always_capture_default();  // --help shows each default, as a lesson's does
  sub->add_option("--task", o->task, t("train.opt.task"));
  sub->add_option("--layers", o->layers, t("train.opt.layers"));
  sub->add_option("--heads", o->heads, t("train.opt.heads"));
  sub->add_option("--d-model", o->d_model, t("train.opt.d_model"));
  sub->add_option("--vocab", o->vocab, t("train.opt.vocab"));
  sub->add_option("--seq-len", o->seq_len, t("train.opt.seq_len"));
  sub->add_flag("--mlp", o->mlp, t("train.opt.mlp"));
  sub->add_flag("--no-mlp", o->no_mlp, t("train.opt.no_mlp"));
  sub->add_option("--batch", o->batch, t("train.opt.batch"));
  sub->add_option("--steps", o->steps, t("train.opt.steps"));
  sub->add_option("--lr", o->lr, t("train.opt.lr"));
  sub->add_option("--warmup", o->warmup, t("train.opt.warmup"));
  sub->add_option("--seed", o->seed, t("train.opt.seed"));
  sub->add_option("--threads", o->threads, t("train.opt.threads"));
  sub->add_option("--save", o->save, t("train.opt.save"));
  sub->add_flag("--force", o->force, t("train.opt.force"));
  sub->add_option("--corpus", o->corpus, t("train.opt.corpus"));
  sub->add_option("--min-count", o->min_count, t("train.opt.min_count"));
  sub->add_option("--repeat-share", o->repeat_share, t("train.opt.repeat_share"));
  sub->add_flag("--allow-long", o->allow_long, t("train.opt.allow_long"));
  sub->add_flag("--quiet", o->quiet, t("train.opt.quiet"));
  sub->add_option("--dtype", o->dtype, t("train.opt.dtype"));
  sub->add_option("--init", o->init, t("train.opt.init"));
  sub->add_option("--json", o->json, t("train.opt.json"));
  sub->add_option("--html", o->html, t("train.opt.html"));
  sub->add_option("--study", o->study, t("train.opt.study"));
  sub->add_option("--attention", o->attention, t("train.opt.attention"));
  sub->add_option("--kv-heads", o->kv_heads, t("train.opt.kv_heads"));
  sub->add_option("--latent", o->latent, t("train.opt.latent"));
  sub->add_option("--rope-dim", o->rope_dim, t("train.opt.rope_dim"));
  sub->add_option("--pos", o->pos, t("train.opt.pos"));
  sub->add_option("--ffn", o->ffn, t("train.opt.ffn"));
  sub->add_option("--norm", o->norm, t("train.opt.norm"));
  sub->add_option("--d-ff", o->d_ff, t("train.opt.d_ff"));
  add_lang_option(sub);
  sub->callback([o, sub] {
    refuse_unused_flags(*sub, *o);
    run_train(*o);
  });
}

}  // namespace attn::cli
