#pragma once
// What every lesson shares: its registry entry (LessonInfo), the options every run has
// (RunContext, lessons/options.h), the recorder it writes to (LessonRecorder) and small helpers
// that turn options into validated sizes. A lesson is one folder in lessons/: NAME.cpp with its
// own options struct, a bind function and a run function, beside its catalogs; it does no
// printing and no file I/O.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog.h"
#include "options.h"
#include "trace.h"

namespace attn {

struct LessonInfo {
  const char* name;  // "mha"; its one-line summary is the catalog key NAME.summary
  std::function<std::unique_ptr<LessonRun>()> make;  // a run with the lesson's default options
};

// The registry entry of a lesson whose options are `Options` (a struct deriving from RunContext):
//   extern const LessonInfo mha_lesson = lesson_info<MhaOptions>("mha", bind, run);
template <class Options>
LessonInfo lesson_info(const char* name, void (*bind)(OptionBinder&, Options&),
                       Trace (*run)(const Options&)) {
  return {name, [bind, run] { return std::make_unique<TypedLessonRun<Options>>(bind, run); }};
}

// All lessons, in teaching order (lessons/registry.cpp: one line per lesson).
const std::vector<const LessonInfo*>& all_lessons();
const LessonInfo* find_lesson(const std::string& name);  // nullptr if unknown
// The catalog a lesson's words are in: its name with '-' as '_' ("kv-memory" -> "kv_memory").
std::string catalog_name(const LessonInfo& info);

// ---- option helpers (each throws a UsageError naming the flag) --------------------------------
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
// Refuse a tensor that would be too large, naming the flags that set its shape.
void require_fits(const Shape& shape, const std::string& what, const std::string& flags);
// Refuse a run whose `count` tensors of `shape` together pass kMaxLessonElements (4 GiB).
void require_total(std::size_t count, const Shape& shape, const std::string& what, const std::string& flags);
// The one work and memory check of a run, made up front from its sizes, before anything is drawn.
// A run's work is `madds` multiply-adds and `numbers` doubles held (each recorded number also
// costs time to store and show, counted as kWorkPerNumber multiply-adds).
struct Work {
  double madds = 0, numbers = 0;
  double largest = 0;  // numbers in the run's largest tensor, if the size flag sets one (0: not counted)
};
// estimate(n): the work with the lesson's leading size flag `size_flag` at n and its other sizes
// as given; n: the run's value. Past the caps, a UsageError (input.err.work_too_large) naming
// `flags`, the lesson's own flags that size the run, and the largest `size_flag` that would be
// accepted at the other sizes (0: none, another flag must come down); that largest value also keeps
// `largest` within one tensor's cap (kMaxTensorElements), so the run it suggests is accepted.
constexpr double kMaxLessonWork = 1e12;    // about a minute on this 2-core machine (docs/ARCHITECTURE.md)
constexpr double kWorkPerNumber = 2000;    // measured: recording and rendering one number
constexpr double kMaxWorkNumbers = 5.4e8;  // 4 GiB of doubles: with the trace's text, within 8 GiB
void require_work(const std::function<Work(double)>& estimate, std::size_t n, const std::string& size_flag,
                  const std::string& flags);
bool work_fits(const Work& w);  // within the caps
// The caps as a share of the defaults (1, or less under the fuzzers): commands with caps of their
// own (train) scale them by it.
double work_cap_scale();
// The fuzzers lower the caps (fuzz/), so every input they try runs in milliseconds.
void set_work_caps_for_fuzzing(double max_work, double max_numbers);
// --retrain: a training run of `flops` floating-point operations is refused up front (UsageError
// input.err.retrain_work) past what `attnlab train` allows for one run, train::kMaxTrainWork,
// scaled by work_cap_scale() under the fuzzers.
void require_retrain_fits(double flops);
// Divisibility rule, e.g. require_divisible(d_model, "--d-model", heads, "--heads").
void require_divisible(std::size_t a, const char* a_flag, std::size_t b, const char* b_flag);

// The sizes of a multi-head lesson: T tokens, D = --d-model (default 8), H = --heads (default 2),
// Dk = D / H; checks divisibility and that W (D, D), X (T, D) and the scores (H, T, T) fit.
struct HeadDims {
  std::size_t T, D, H, Dk;
  bool d_model_derived = false;  // no --d-model, and the heads raised it past the default 8
};
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
// The work of `passes` multi-head attention forwards at these sizes, with T tokens.
Work head_work(const HeadDims& d, double T, double passes);
void require_head_work(const HeadDims& d, double passes = 1);
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

namespace attn {

// For narration: in row r of a (T, T) weights matrix (or of block b of an (H, T, T) one), the
// column with the largest weight.
std::size_t strongest_column(const Tensor& weights, std::size_t b, std::size_t r);
// The largest |row sum − 1| over all rows of a weights tensor (0 up to rounding).
double max_row_sum_error(const Tensor& weights);

}  // namespace attn

namespace attn {

// What a lesson writes to: a Recorder whose words come from the catalogs. Keys are looked up in
// the lesson's own catalog first, then in the catalogs it names, then in "common":
//   LessonRecorder r("mha", c.lang, {"mha"});
//   r.step("split_heads", {{"d_model", D}, {"heads", H}});   // mha.split_heads.title / .text
//   r.tensor("Q_heads", Q, labels);                           // meaning: mha.tensor.Q_heads
//   r.value("d_k", I(dk));                                    // label: value.d_k if the catalog has one
//   r.note("split_heads.note", {{"diff", 0.0}});
//   r.table({{r.t("split_heads.col.head"), …}, rows});
class LessonRecorder {
 public:
  LessonRecorder(std::string lesson, Lang lang, std::vector<std::string> catalogs);

  const Lang& lang() const { return text_.lang(); }
  const Text& text() const { return text_; }
  // The message for a key of this lesson's catalogs (or "common"), formatted with args.
  std::string t(std::string_view key, const Args& args = {}) const;
  bool has(std::string_view key) const;

  void config(const std::string& name, Scalar v);  // label: common.config.NAME
  void step(std::string id, const Args& args = {});  // title ID.title, text ID.text
  // Meaning from tensor.NAME (args fill its placeholders); an empty labels.block is "head".
  const Tensor& tensor(const std::string& name, Tensor t, Labels labels = {}, const Args& args = {});
  void show(const std::string& name) { rec_.show(name); }
  void value(const std::string& name, Scalar v, const Args& label_args = {});  // label: value.NAME
  void table(Table t) { rec_.table(std::move(t)); }
  void chart(Chart c) { rec_.chart(std::move(c)); }
  void note(std::string_view key, const Args& args = {}) { rec_.note(t(key, args)); }
  // A note on the whole run, under its config line (kept by --step): a size derived from the flags.
  void header_note(std::string_view key, const Args& args = {}) { rec_.header_note(t(key, args)); }
  const Tensor& get(const std::string& name) const { return rec_.get(name); }
  // Headings and the renderers' words are filled in here, in the run's language.
  Trace finish();

 private:
  std::string find_key(std::string_view key) const;  // "" if no catalog of the chain has it
  Recorder rec_;
  Text text_;
  std::vector<std::string> chain_;
};

}  // namespace attn
