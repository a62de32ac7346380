#pragma once
// What every lesson shares: its options (LessonConfig), its registry entry (LessonInfo) and
// small helpers that turn options into validated sizes. A lesson is one file in lessons/ with
// a run function that records steps into a Recorder; it does no printing and no file I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace.h"

namespace attn {

// Every lesson option. Unset optionals mean "the lesson's default". Which flags a lesson
// accepts is listed in its LessonInfo::flags; the CLI binds only those.
struct LessonConfig {
  Lang lang = Lang::En;
  std::int64_t seed = 42;                     // --seed (0 … 2^63-1)
  bool causal = false;
  std::optional<std::string> tokens;          // --tokens "小明 昨天 在 北京"
  std::optional<std::int64_t> seq_len;        // --seq-len
  std::optional<std::int64_t> d_model;        // --d-model
  std::optional<std::int64_t> heads;          // --heads
  std::optional<std::int64_t> kv_heads;       // --kv-heads
  std::optional<std::int64_t> head_dim;       // --head-dim
  std::optional<std::int64_t> d_ff;           // --d-ff
  std::optional<std::int64_t> latent_dim;     // --latent-dim (MLA d_c)
  std::optional<std::int64_t> q_latent_dim;   // --q-latent-dim (MLA d_c')
  std::optional<std::int64_t> rope_dim;       // --rope-dim (MLA d_R)
  std::optional<std::int64_t> multiple_of;    // --multiple-of (SwiGLU hidden rounding)
  std::optional<std::int64_t> steps;          // --steps
  std::optional<std::int64_t> top_k;          // --top-k
  std::optional<double> lr;                   // --lr
  std::optional<std::string> x;               // --x "0.47 0.50 0.59 0.29"
  std::optional<std::string> values;          // --values "…"
  std::optional<std::string> activation;      // --activation gelu|gelu-tanh|relu|silu
};

struct LessonInfo {
  const char* name;        // "mha"
  const char* summary_en;  // one line for `attnlab list`
  const char* summary_zh;
  std::vector<std::string> flags;  // lesson-specific flags it accepts, e.g. {"--tokens", "--heads"}
  Trace (*run)(const LessonConfig&);
};

// All lessons, in teaching order (lessons/registry.cpp: one line per lesson).
const std::vector<const LessonInfo*>& all_lessons();
const LessonInfo* find_lesson(const std::string& name);  // nullptr if unknown

// ---- option helpers (each throws a UsageError naming the flag) --------------------------------
// A positive size: the option's value or the default; zero or negative is an error.
std::size_t positive(const std::optional<std::int64_t>& v, std::size_t fallback, const char* flag);
// The tokens of a run: --tokens split on whitespace; for --seq-len N the first N tokens of the
// chapter's sentence (up to 8), or placeholders t1 … tN past that; otherwise the lesson's
// defaults. --tokens and --seq-len together must agree.
std::vector<std::string> resolve_tokens(const LessonConfig& c, const std::vector<std::string>& defaults);
// Numbers from "0.47 0.50 0.59" or "0.47,0.50,0.59"; a non-number, or one past ±1e6, is an error naming the flag.
std::vector<double> parse_numbers(const std::string& text, const char* flag);
// Refuse a tensor that would be too large, naming the flags that set its shape.
void require_fits(const Shape& shape, const std::string& what, const std::string& flags);
// Refuse a run whose `count` tensors of `shape` together pass kMaxLessonElements (4 GiB).
void require_total(std::size_t count, const Shape& shape, const std::string& what, const std::string& flags);
// Divisibility rule, e.g. require_divisible(d_model, "--d-model", heads, "--heads").
void require_divisible(std::size_t a, const char* a_flag, std::size_t b, const char* b_flag);

// The sizes of a multi-head lesson: T tokens, D = --d-model (default 8), H = --heads (default 2),
// Dk = D / H; checks divisibility and that W (D, D), X (T, D) and the scores (H, T, T) fit.
struct HeadDims {
  std::size_t T, D, H, Dk;
};
HeadDims resolve_head_dims(const LessonConfig& c, std::size_t T);
// record_common_config plus d_model, n_heads and d_k: the config of every multi-head lesson.
void record_head_config(Recorder& r, const LessonConfig& c, const std::vector<std::string>& tokens,
                        const HeadDims& d);

// The chapter's sentence, cut into its first tokens (小明 / 昨天 / 在 / 北京 …).
std::vector<std::string> chapter_tokens(Lang lang, std::size_t n);
// Record seed, causal and the token list in the trace config (every lesson on tokens does).
void record_common_config(Recorder& r, const LessonConfig& c, const std::vector<std::string>& tokens);

// Head labels for the renderer: "head" / "头", "group" / "组".
std::string head_word(Lang lang);
std::string group_word(Lang lang);

}  // namespace attn

namespace attn {

// For narration: in row r of a (T, T) weights matrix (or of block b of an (H, T, T) one), the
// column with the largest weight.
std::size_t strongest_column(const Tensor& weights, std::size_t b, std::size_t r);
// The largest |row sum − 1| over all rows of a weights tensor (0 up to rounding).
double max_row_sum_error(const Tensor& weights);

}  // namespace attn
