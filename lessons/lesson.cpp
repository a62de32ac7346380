#include "lesson.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "errors.h"
#include "printable.h"
#include "trainer.h"

namespace attn {

std::string catalog_name(const LessonInfo& info) {
  std::string n = info.name;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

const LessonInfo* find_lesson(const std::string& name) {
  for (const LessonInfo* l : all_lessons())
    if (name == l->name) return l;
  return nullptr;
}

std::size_t positive(const std::optional<std::int64_t>& v, std::size_t fallback, const char* flag) {
  if (!v) return fallback;
  if (*v <= 0) throw UsageError("cli.err.positive", {{"flag", flag}, {"value", *v}});
  if (static_cast<std::uint64_t>(*v) > kMaxTensorElements)
    throw UsageError("cli.err.too_large", {{"flag", flag}, {"value", *v}, {"max", kMaxTensorElements}});
  return static_cast<std::size_t>(*v);
}

// --tokens split on whitespace and checked: valid UTF-8, no control characters, not empty, as
// many as --seq-len if that is given too. Its size is the user's own text, never a flag's value.
static std::vector<std::string> given_tokens(const std::string& given, const std::optional<std::int64_t>& seq_len) {
  std::vector<std::string> tokens;
  std::istringstream in(given);
  for (std::string t; in >> t;) tokens.push_back(t);
  for (const std::string& t : tokens) {
    if (!is_valid_utf8(t)) throw UsageError("input.err.tokens_utf8", {{"flag", "--tokens"}, {"token", t}});
    if (!is_clean_text(t))  // C0 or C1 controls: an escape sequence would reach the terminal as is
      throw UsageError("cli.err.tokens_control", {{"flag", "--tokens"}});
  }
  if (tokens.empty()) throw UsageError("cli.err.tokens_empty", {{"flag", "--tokens"}});
  if (seq_len && *seq_len != static_cast<std::int64_t>(tokens.size()))
    throw UsageError("cli.err.tokens_seq_len", {{"seq_len", *seq_len}, {"n", tokens.size()}});
  positive(static_cast<std::int64_t>(tokens.size()), 0, "--tokens");
  return tokens;
}

std::size_t token_count(const std::optional<std::string>& given, const std::optional<std::int64_t>& seq_len,
                        const std::vector<std::string>& defaults) {
  if (given) return given_tokens(*given, seq_len).size();
  if (seq_len) return positive(seq_len, 0, "--seq-len");
  return defaults.size();
}

std::vector<std::string> resolve_tokens(const std::optional<std::string>& given, const std::optional<std::int64_t>& seq_len,
                                        const Lang& lang, const std::vector<std::string>& defaults) {
  if (given) return given_tokens(*given, seq_len);
  if (seq_len) {
    std::size_t n = positive(seq_len, 0, "--seq-len");
    std::vector<std::string> sentence = chapter_tokens(lang, n);
    // The chapter's sentence has 8 tokens; past them, placeholders t9, t10, … follow it.
    sentence.reserve(n);
    for (std::size_t i = sentence.size(); i < n; ++i) sentence.push_back("t" + std::to_string(i + 1));
    return sentence;
  }
  return defaults;
}

constexpr double kMaxInput = 1e6;

std::vector<double> parse_numbers(const std::string& text, const char* flag) {
  std::string spaced = text;
  for (char& ch : spaced)
    if (ch == ',' || ch == '[' || ch == ']') ch = ' ';
  std::istringstream in(spaced);
  std::vector<double> out;
  for (std::string word; in >> word;) {
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(word.c_str(), &end);
    bool overflow = errno == ERANGE && std::fabs(v) > 1.0;  // ERANGE on underflow (1e-320) is a fine tiny number
    if (end == word.c_str() || *end != '\0' || overflow || !std::isfinite(v))
      throw UsageError("cli.err.not_a_number", {{"flag", flag}, {"value", word}});
    // Inputs are activations of order 1; past 1e6 squares and sums of them overflow to inf/nan.
    if (std::fabs(v) > kMaxInput)
      throw UsageError("cli.err.number_too_large", {{"flag", flag}, {"value", word}});
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("cli.err.numbers_empty", {{"flag", flag}});
  return out;
}

// The flags to reduce, as a plain list: "--seq-len/--tokens, --heads" (an " or " written by a
// caller becomes ", ", so no English word reaches the message).
static std::string flag_list(const std::string& flags) {
  std::string out = flags;
  for (std::size_t at; (at = out.find(" or ")) != std::string::npos;) out.replace(at, 4, ", ");
  for (std::size_t at; (at = out.find(", , ")) != std::string::npos;) out.replace(at, 4, ", ");
  return out;
}

void require_fits(const Shape& shape, const std::string& what, const std::string& flags) {
  if (checked_numel(shape) != 0) return;
  double numbers = 1.0;
  for (std::size_t d : shape) numbers *= static_cast<double>(d);
  throw UsageError("cli.err.tensor_too_large", {{"what", what}, {"shape", shape_str(shape)}, {"numbers", numbers},
                                                {"max", kMaxTensorElements}, {"flags", flag_list(flags)}});
}

void require_total(std::size_t count, const Shape& shape, const std::string& what, const std::string& flags) {
  double numbers = static_cast<double>(count);
  for (std::size_t d : shape) numbers *= static_cast<double>(d);
  if (numbers <= static_cast<double>(kMaxLessonElements)) return;
  throw UsageError("cli.err.lesson_too_large", {{"what", what}, {"count", count}, {"shape", shape_str(shape)},
                                                {"numbers", numbers}, {"max", kMaxLessonElements}, {"flags", flag_list(flags)}});
}

static double g_max_work = kMaxLessonWork, g_max_numbers = kMaxWorkNumbers;

void set_work_caps_for_fuzzing(double max_work, double max_numbers) {
  g_max_work = max_work;
  g_max_numbers = max_numbers;
}

double work_cap_scale() { return g_max_work / kMaxLessonWork; }

bool work_fits(const Work& w) {
  return w.madds + kWorkPerNumber * w.numbers <= g_max_work && w.numbers <= g_max_numbers;
}

void require_work(const std::function<Work(double)>& estimate, std::size_t n, const std::string& size_flag,
                  const std::string& flags) {
  Work w = estimate(static_cast<double>(n));
  if (work_fits(w)) return;
  // The largest accepted value of size_flag, by bisection (the work grows with it).
  std::size_t lo = 0, hi = n;  // estimate(lo) fits (or lo = 0), estimate(hi) does not
  while (hi - lo > 1) {
    std::size_t mid = lo + (hi - lo) / 2;
    Work m = estimate(static_cast<double>(mid));
    if (work_fits(m) && m.largest <= static_cast<double>(kMaxTensorElements)) lo = mid;
    else hi = mid;
  }
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  throw UsageError("input.err.work_too_large",
                   {{"madds", w.madds + kWorkPerNumber * w.numbers}, {"gib", w.numbers * 8.0 / gib}, {"max_madds", g_max_work},
                    {"max_gib", g_max_numbers * 8.0 / gib}, {"flags", flag_list(flags)}, {"flag", size_flag},
                    {"largest", lo}});
}

Work head_work(const HeadDims& d, double T, double passes) {
  double D = static_cast<double>(d.D), H = static_cast<double>(d.H);
  // Q, K, V, O projections and the scores and weighted sums; X, Q, K, V, heads, out, the
  // weights, scores and the (H, T, T) attention tensors kept for the trace.
  return {passes * (4.0 * T * D * D + 2.0 * T * T * D), passes * (8.0 * T * D + 4.0 * H * T * T) + 4.0 * D * D,
          std::max({D * D, T * D, H * T * T})};
}

void require_head_work(const HeadDims& d, double passes) {
  require_work([&](double T) { return head_work(d, T, passes); }, d.T, "--seq-len/--tokens",
               "--seq-len/--tokens, --d-model, --heads");
}

void require_retrain_fits(double flops) {
  const double max = train::kMaxTrainWork * work_cap_scale();
  if (flops > max) throw UsageError("input.err.retrain_work", {{"flops", flops}, {"max", max}});
}

void require_divisible(std::size_t a, const char* a_flag, std::size_t b, const char* b_flag) {
  if (a % b != 0)
    throw UsageError("cli.err.not_divisible",
                     {{"a_flag", a_flag}, {"a", a}, {"b_flag", b_flag}, {"b", b}, {"suggest", (a / b + 1) * b}});
}

HeadDims resolve_head_dims(const std::optional<std::int64_t>& d_model, const std::optional<std::int64_t>& heads,
                           std::size_t T, double passes) {
  std::size_t H = positive(heads, 2, "--heads");
  std::size_t D = d_model_or_derived(d_model, H);
  require_divisible(D, "--d-model", H, "--heads");
  HeadDims d{T, D, H, D / H, !d_model && D != 8};
  require_head_work(d, passes);  // first: it names the largest --seq-len accepted
  require_fits({D, D}, "W_Q", d_model ? "--d-model" : "--heads");
  require_fits({T, D}, "X", "--seq-len/--tokens, --d-model");
  require_fits({H, T, T}, "scores", "--seq-len/--tokens, --heads");
  return d;
}

std::size_t d_model_or_derived(const std::optional<std::int64_t>& d_model, std::size_t heads) {
  return positive(d_model, heads * std::max<std::size_t>(2, (8 + heads - 1) / heads), "--d-model");
}

std::vector<std::string> chapter_tokens(Lang lang, std::size_t n) {
  // The chapter's example sentence (section 1.1), one token per word,
  // in the run's language (common.chapter_tokens).
  std::istringstream in(Text(lang).bare("common.chapter_tokens"));
  std::vector<std::string> words;
  for (std::string w; words.size() < n && in >> w;) words.push_back(w);
  return words;
}


}  // namespace attn

namespace attn {

std::size_t strongest_column(const Tensor& weights, std::size_t b, std::size_t r) {
  std::size_t T = weights.shape.back(), R = weights.shape[weights.rank() - 2];
  const double* row = &weights.data[(b * R + r) * T];
  std::size_t best = 0;
  for (std::size_t j = 1; j < T; ++j)
    if (row[j] > row[best]) best = j;
  return best;
}

double max_row_sum_error(const Tensor& weights) {
  std::size_t T = weights.shape.back();
  double worst = 0.0;
  for (std::size_t r = 0; r < weights.numel() / T; ++r) {
    double sum = 0.0;
    for (std::size_t j = 0; j < T; ++j) sum += weights.data[r * T + j];
    worst = std::max(worst, std::fabs(sum - 1.0));
  }
  return worst;
}

}  // namespace attn

namespace attn {

LessonRecorder::LessonRecorder(std::string lesson, Lang lang, std::vector<std::string> catalogs)
    : rec_(std::move(lesson), lang), text_(lang), chain_(std::move(catalogs)) {
  chain_.push_back("common");
}

std::string LessonRecorder::find_key(std::string_view key) const {
  for (const std::string& ns : chain_) {
    std::string full = ns + "." + std::string(key);
    if (text_.has(full)) return full;
  }
  return "";
}

bool LessonRecorder::has(std::string_view key) const { return !find_key(key).empty(); }

std::string LessonRecorder::t(std::string_view key, const Args& args) const {
  std::string full = find_key(key);
  if (full.empty()) {
    std::string chain;
    for (const std::string& ns : chain_) chain += (chain.empty() ? "" : ", ") + ns;
    throw std::logic_error(fmt::format("no catalog message '{}' in {}", key, chain));
  }
  return text_(full, args);
}

void LessonRecorder::config(const std::string& name, Scalar v) {
  rec_.config(name, std::move(v));
  rec_.trace().config.back().label = t("config." + name);
}

void LessonRecorder::step(std::string id, const Args& args) {
  std::string title = t(id + ".title", args);
  std::string body = t(id + ".text", args);
  rec_.step(std::move(id), std::move(title), std::move(body));
}

const Tensor& LessonRecorder::tensor(const std::string& name, Tensor tensor, Labels labels, const Args& args) {
  // labels.block is a key of common's block.* ("head", "group"): it names the first axis, and
  // its word in the run's language is what the renderers print
  const std::string block = labels.block.empty() ? std::string("head") : labels.block;
  if (labels.axes.empty()) labels.axes = default_axes(tensor.shape, labels, block);
  labels.block = t("block." + block);
  return rec_.tensor(name, std::move(tensor), t("tensor." + name, args), std::move(labels));
}

void LessonRecorder::value(const std::string& name, Scalar v, const Args& label_args) {
  rec_.value(name, std::move(v), has("value." + name) ? t("value." + name, label_args) : "");
}

Trace LessonRecorder::finish() {
  Trace& tr = rec_.trace();
  tr.ui = text_.all_of("render");
  tr.ui["header"] = text_("render.header", {{"lesson", tr.lesson}});
  for (std::size_t i = 0; i < tr.steps.size(); ++i)
    tr.steps[i].heading = text_("render.step_heading", {{"n", i + 1}, {"total", tr.steps.size()}, {"title", tr.steps[i].title}});
  return rec_.finish();
}

}  // namespace attn
