#pragma once
// What the FFN lessons (ffn, gelu, swiglu, kv-memory) share: the chapter's printed numbers from
// data/chapter/ffn_walkthrough.json, the input vector and activation flags, and the check of the
// chapter's printed GELU values against the computed ones.
#include <optional>
#include <string>
#include <vector>

#include "ffn.h"
#include "lesson.h"
#include "random.h"

namespace attn {

// Section 3.2 of the chapter, as printed (data/chapter/ffn_walkthrough.json).
struct ChapterFfn {
  std::size_t d_model = 0, d_ff = 0;
  std::vector<double> x;               // (4): the chapter's input
  std::vector<double> z_printed;       // the first entries of z it prints
  std::vector<double> h_printed;       // GELU(z) as it prints them
  int h_decimals = 2;                  // how many decimals it printed
  std::vector<double> output_printed;  // (4): its example output
};
const ChapterFfn& chapter_ffn();

// The input of a single-vector FFN lesson: D and the numbers of --x, or the chapter's x at the
// chapter's d_model, or nothing (then the lesson draws x from --seed, before any weight).
// --x and --d-model must agree; UsageError naming both otherwise.
struct FfnInput {
  std::size_t D;
  std::optional<std::vector<double>> x;
};
FfnInput resolve_ffn_input(const LessonConfig& c);
// x as a tensor (D): the given numbers, or N(0, 1) numbers from rng.
Tensor input_tensor(const FfnInput& in, Rng& rng);

// --activation gelu|gelu-tanh|relu|silu (default gelu); UsageError naming the flag otherwise.
Activation resolve_activation(const LessonConfig& c);
// "GELU (exact, x·Φ(x))", "SiLU", … in the run's language.
std::string activation_title(Lang lang, Activation a);

// "1" … "n" (or "k1" … with a prefix): labels for hidden units, keys, values.
std::vector<std::string> numbered(std::size_t n, const std::string& prefix = "");

// The chapter's z values through the exact GELU beside the values it printed: records the
// tensors chapter_z, chapter_h_printed, chapter_h_gelu (and chapter_h_gelu_tanh), a table and one
// note per printed value that disagrees with the computation. Returns how many disagree.
std::size_t record_chapter_gelu_check(Recorder& r);

}  // namespace attn
