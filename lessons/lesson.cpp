#include "lessons/lesson.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "errors.h"

namespace attn {

const LessonInfo* find_lesson(const std::string& name) {
  for (const LessonInfo* l : all_lessons())
    if (name == l->name) return l;
  return nullptr;
}

std::size_t positive(const std::optional<std::int64_t>& v, std::size_t fallback, const char* flag) {
  if (!v) return fallback;
  if (*v <= 0) throw UsageError(fmt::format("{} must be a positive integer (got {})", flag, *v));
  if (static_cast<std::uint64_t>(*v) > kMaxTensorElements)
    throw UsageError(fmt::format("{} {} is too large; attnlab keeps every tensor under {} numbers", flag, *v,
                                 kMaxTensorElements));
  return static_cast<std::size_t>(*v);
}

std::vector<std::string> resolve_tokens(const LessonConfig& c, const std::vector<std::string>& defaults) {
  std::vector<std::string> tokens;
  if (c.tokens) {
    std::istringstream in(*c.tokens);
    for (std::string t; in >> t;) tokens.push_back(t);
    for (const std::string& t : tokens)
      for (unsigned char ch : t)
        if (ch < 0x20 || ch == 0x7F)  // an escape sequence would reach the terminal as is
          throw UsageError("--tokens: control characters are not allowed in a token");
    if (tokens.empty()) throw UsageError("--tokens needs at least one token (separate tokens with spaces)");
    if (c.seq_len && *c.seq_len != static_cast<std::int64_t>(tokens.size()))
      throw UsageError(fmt::format("--seq-len {} disagrees with the {} tokens of --tokens; give one of them",
                                   *c.seq_len, tokens.size()));
    positive(static_cast<std::int64_t>(tokens.size()), 0, "--tokens");
    return tokens;
  }
  if (c.seq_len) {
    std::size_t n = positive(c.seq_len, 0, "--seq-len");
    std::vector<std::string> sentence = chapter_tokens(c.lang, n);
    if (sentence.size() == n) return sentence;  // the chapter's sentence has 8 tokens
    for (std::size_t i = 0; i < n; ++i) tokens.push_back("t" + std::to_string(i + 1));
    return tokens;
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
      throw UsageError(fmt::format("{}: '{}' is not a finite number", flag, word));
    // Inputs are activations of order 1; past 1e6 squares and sums of them overflow to inf/nan.
    if (std::fabs(v) > kMaxInput)
      throw UsageError(fmt::format("{}: {} is too large; give numbers between -1e6 and 1e6", flag, word));
    out.push_back(v);
  }
  if (out.empty()) throw UsageError(fmt::format("{} needs at least one number", flag));
  return out;
}

void require_fits(const Shape& shape, const std::string& what, const std::string& flags) {
  if (checked_numel(shape) != 0) return;
  double numbers = 1.0;
  for (std::size_t d : shape) numbers *= static_cast<double>(d);
  throw UsageError(fmt::format("{} would be {}, {:.3g} numbers; a tensor holds at most {} (1 GiB): reduce {}",
                               what, shape_str(shape), numbers, with_commas_u(kMaxTensorElements), flags));
}

void require_total(std::size_t count, const Shape& shape, const std::string& what, const std::string& flags) {
  double numbers = static_cast<double>(count);
  for (std::size_t d : shape) numbers *= static_cast<double>(d);
  if (numbers <= static_cast<double>(kMaxLessonElements)) return;
  throw UsageError(fmt::format("{} would be {} x {}, {:.3g} numbers in all; a lesson holds at most {} (4 GiB): "
                               "reduce {}",
                               what, count, shape_str(shape), numbers, with_commas_u(kMaxLessonElements), flags));
}

void require_divisible(std::size_t a, const char* a_flag, std::size_t b, const char* b_flag) {
  if (a % b != 0)
    throw UsageError(fmt::format("{} {} must be divisible by {} {} (try {} {})", a_flag, a, b_flag, b, a_flag,
                                 (a / b + 1) * b));
}

HeadDims resolve_head_dims(const LessonConfig& c, std::size_t T) {
  std::size_t D = positive(c.d_model, 8, "--d-model");
  std::size_t H = positive(c.heads, 2, "--heads");
  require_divisible(D, "--d-model", H, "--heads");
  require_fits({D, D}, "W_Q", "--d-model");
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({H, T, T}, "the scores", "--seq-len/--tokens or --heads");
  return {T, D, H, D / H};
}

std::vector<std::string> chapter_tokens(Lang lang, std::size_t n) {
  // "小明昨天在北京的餐厅吃了一顿很好吃的火锅" — the chapter's example sentence (section 1.1).
  static const std::vector<std::string> zh = {"小明", "昨天", "在", "北京", "的", "餐厅", "吃了", "火锅"};
  static const std::vector<std::string> en = {"Xiaoming", "yesterday", "in", "Beijing", "'s",
                                              "restaurant", "ate", "hotpot"};
  const auto& words = lang == Lang::Zh ? zh : en;
  return std::vector<std::string>(words.begin(), words.begin() + std::min(n, words.size()));
}

void record_common_config(Recorder& r, const LessonConfig& c, const std::vector<std::string>& tokens) {
  r.config("seed", c.seed);
  r.config("causal", Bool{c.causal});
  r.config("seq_len", I(tokens.size()));
  r.config("tokens", tokens);
}

void record_head_config(Recorder& r, const LessonConfig& c, const std::vector<std::string>& tokens,
                        const HeadDims& d) {
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("d_k", I(d.Dk));
}

std::string head_word(Lang lang) { return tr(lang, "head", "头"); }
std::string group_word(Lang lang) { return tr(lang, "group", "组"); }

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
