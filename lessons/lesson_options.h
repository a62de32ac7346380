#pragma once
// Turning a lesson's options into validated sizes and tokens (each helper throws a UsageError naming
// the flag), and the config every lesson on tokens records.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "options.h"
#include "work_caps.h"

namespace attn {

// A positive size: the option's value or the default; zero or negative is an error.
std::size_t positive(const std::optional<std::int64_t>& v, std::size_t fallback, const char* flag);
// The tokens of a run: --tokens split on whitespace; for --seq-len N the first N tokens of the
// chapter's sentence (up to 8), or placeholders t9 … tN past that; otherwise the lesson's
// defaults. --tokens and --seq-len together must agree.
// A label costs about 70 bytes, so --seq-len 134217727 alone would take 8 GiB: a lesson first
// checks its sizes on token_count (the same checks, nothing built per token), then resolves:
//   const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
//   HeadDims d = resolve_head_dims(c, token_count(c, defaults));  // refused here, instantly
//   std::vector<std::string> tokens = resolve_tokens(c, defaults);
std::size_t token_count(const std::optional<std::string>& tokens, const std::optional<std::int64_t>& seq_len,
                        const std::vector<std::string>& defaults);
std::vector<std::string> resolve_tokens(const std::optional<std::string>& tokens, const std::optional<std::int64_t>& seq_len,
                                        const Lang& lang, const std::vector<std::string>& defaults);
template <class O>  // any options with tokens and seq_len
std::size_t token_count(const O& c, const std::vector<std::string>& defaults) {
  return token_count(c.tokens, c.seq_len, defaults);
}
template <class O>  // any options with tokens, seq_len and lang
std::vector<std::string> resolve_tokens(const O& c, const std::vector<std::string>& defaults) {
  return resolve_tokens(c.tokens, c.seq_len, c.lang, defaults);
}
// Numbers from "0.47 0.50 0.59" or "0.47,0.50,0.59"; a non-number, or one past ±1e6, is an error naming the flag.
std::vector<double> parse_numbers(const std::string& text, const char* flag);
// Divisibility rule, e.g. require_divisible(d_model, "--d-model", heads, "--heads").
void require_divisible(std::size_t a, const char* a_flag, std::size_t b, const char* b_flag);
// The multiple of b to suggest for a: the next one up, or the one below when the next would not fit
// in a signed 64-bit flag value (--d-model 9223372036854775807 --heads 2).
std::uint64_t divisible_suggestion(std::uint64_t a, std::uint64_t b);

// d_model from --d-model, or derived by the one rule every lesson with heads follows (stated in
// --help, cli.opt.d_model): the smallest multiple of the heads that is at least 8 and gives each
// head at least 2 numbers, h·max(2, ⌈8/h⌉) (8 for 1, 2 or 4 heads; 24 for 12).
std::size_t d_model_or_derived(const std::optional<std::int64_t>& d_model, std::size_t heads);
// The note a run makes when its d_model was derived (common.note_d_model_derived).
template <class R>
void note_d_model_derived(R& r, bool derived, std::size_t D, std::size_t H) {
  if (derived) r.header_note("note_d_model_derived", {{"d_model", D}, {"heads", H}, {"d_k", D / H}});
}
// `passes`: how many multi-head attention forwards the lesson computes at these sizes (its work
// and memory check, require_head_work).
HeadDims resolve_head_dims(const std::optional<std::int64_t>& d_model, const std::optional<std::int64_t>& heads, std::size_t T,
                           double passes = 1);
template <class O>  // any options with d_model and heads
HeadDims resolve_head_dims(const O& c, std::size_t T, double passes = 1) {
  return resolve_head_dims(c.d_model, c.heads, T, passes);
}
// record_common_config plus d_model, n_heads and d_k: the config of every multi-head lesson.

// The chapter's sentence (common.chapter_tokens in the run's language), cut to its first n tokens.
std::vector<std::string> chapter_tokens(Lang lang, std::size_t n);
// Record seed, causal and the token list in the trace config (every lesson on tokens does).
template <class R, class O>  // O: options with seed and causal
void record_common_config(R& r, const O& c, const std::vector<std::string>& tokens) {
  r.config("seed", c.seed);
  r.config("causal", Bool{c.causal});
  r.config("seq_len", I(tokens.size()));
  r.config("tokens", tokens);
}
template <class R, class O>
void record_head_config(R& r, const O& c, const std::vector<std::string>& tokens, const HeadDims& d) {
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("d_k", I(d.Dk));
}

}  // namespace attn
