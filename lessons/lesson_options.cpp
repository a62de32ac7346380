// Options into sizes and tokens. See lesson_options.h.
#include "lesson_options.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "catalog.h"
#include "errors.h"
#include "printable.h"

namespace attn {

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

std::uint64_t divisible_suggestion(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t below = a / b * b;  // the multiple of b at or under a
  // the next one up when it fits in a signed 64-bit flag value, else the one below (never wrapped)
  if (b <= static_cast<std::uint64_t>(INT64_MAX) - below) return below + b;
  return below;
}

void require_divisible(std::size_t a, const char* a_flag, std::size_t b, const char* b_flag) {
  if (a % b != 0)
    throw UsageError("cli.err.not_divisible",
                     {{"a_flag", a_flag}, {"a", a}, {"b_flag", b_flag}, {"b", b}, {"suggest", divisible_suggestion(a, b)}});
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
