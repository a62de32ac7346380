#pragma once
// What the FFN lessons (ffn, gelu, swiglu, kv-memory, block) share: the input vector and
// activation flags, and the check of the chapter's printed GELU values against the computed ones.
// Words: lessons/ffn_common/LANG.cat (list "ffn_common" in the LessonRecorder's catalogs).
// The chapter's numbers come from src/models/chapter_data.h.
#include <optional>
#include <string>
#include <vector>

#include "chapter_data.h"
#include "ffn.h"
#include "lesson.h"
#include "random.h"

namespace attn {

// The input of a single-vector FFN lesson: D and the numbers of --x, or the chapter's x at the
// chapter's d_model, or nothing (then the lesson draws x from --seed, before any weight).
// --x and --d-model must agree; UsageError naming both otherwise.
struct FfnInput {
  std::size_t D;
  std::optional<std::vector<double>> x;
};
FfnInput resolve_ffn_input(const std::optional<std::string>& x, const std::optional<std::int64_t>& d_model);
template <class O>  // options with x and d_model
FfnInput resolve_ffn_input(const O& c) {
  return resolve_ffn_input(c.x, c.d_model);
}
// x as a tensor (D): the given numbers, or N(0, 1) numbers from rng.
Tensor input_tensor(const FfnInput& in, Rng& rng);

// --activation gelu|gelu-tanh|relu|silu (default gelu); UsageError naming the flag otherwise.
Activation resolve_activation(const std::optional<std::string>& activation);
template <class O>  // options with activation
Activation resolve_activation(const O& c) {
  return resolve_activation(c.activation);
}

// "1" … "n" (or "k1" … with a prefix): labels for hidden units, keys, values.
std::vector<std::string> numbered(std::size_t n, const std::string& prefix = "");

// The chapter's z values through the exact GELU beside the values it printed: records the
// tensors chapter_z, chapter_h_printed, chapter_h_gelu (and chapter_h_gelu_tanh), a table and one
// note per printed value that disagrees with the computation. Returns how many disagree.
std::size_t record_chapter_gelu_check(LessonRecorder& r);

}  // namespace attn
