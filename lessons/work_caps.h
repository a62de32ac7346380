#pragma once
// The caps every lesson checks up front, from its sizes alone, before any tensor is drawn: one
// tensor's size, a run's total numbers, and its work in multiply-adds (a minute on a 2-core machine).
// Each refusal is a UsageError naming the flags that set the size.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor.h"

namespace attn {

// Refuse a tensor that would be too large, naming the flags that set its shape.
void require_fits(const Shape& shape, const std::string& what, const std::string& flags);
// Refuse a run whose `count` tensors of `shape` together pass kMaxLessonElements (4 GiB).
void require_total(std::size_t count, const Shape& shape, const std::string& what, const std::string& flags);
// The one work and memory check of a run, made up front from its sizes, before anything is drawn.
// A run's work is `madds` multiply-adds and `numbers` doubles held (each recorded number also
// costs time to store and show, counted as kWorkPerNumber multiply-adds).
// One part of a run's work, so that a refusal can say which part costs what and which flags shrink
// it: `what` is the lesson's own words for it (a message of its catalog, formatted in the run's
// language: "the SVD of the 4096 × 2048 W_DKV"), `flags` the flags that make it smaller.
struct WorkPart {
  std::string what;
  double madds = 0, numbers = 0;
  std::string flags;
  double held = 0;  // as Work::held
};
struct Work {
  double madds = 0, numbers = 0;
  double largest = 0;  // numbers in the run's largest tensor, if the size flag sets one (0: not counted)
  std::vector<WorkPart> parts;  // optional: what the totals are made of (each part counted in them)
  double held = 0;  // numbers held for a while but never recorded: memory only, no kWorkPerNumber
  Work() = default;
  Work(double madds_, double numbers_, double largest_ = 0) : madds(madds_), numbers(numbers_), largest(largest_) {}
  // The sum of its parts.
  explicit Work(std::vector<WorkPart> parts_) : parts(std::move(parts_)) {
    for (const WorkPart& p : parts) {
      madds += p.madds;
      numbers += p.numbers;
      held += p.held;
    }
  }
};
// estimate(n): the work with the lesson's leading size flag `size_flag` at n and its other sizes
// as given; n: the run's value. Past the caps, a UsageError (input.err.work_too_large) naming
// `flags`, the lesson's own flags that size the run, and the largest `size_flag` that would be
// accepted at the other sizes (0: none, another flag must come down); that largest value also keeps
// `largest` within one tensor's cap (kMaxTensorElements), so the run it suggests is accepted. When
// the estimate has parts, the refusal also names the costliest one (the largest share of either cap),
// what it costs and the flags that shrink it.
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
// The sizes of a multi-head lesson: T tokens, D = --d-model (default 8), H = --heads (default 2),
// Dk = D / H; checks divisibility and that W (D, D), X (T, D) and the scores (H, T, T) fit.
struct HeadDims {
  std::size_t T, D, H, Dk;
  bool d_model_derived = false;  // no --d-model, and the heads raised it past the default 8
};
// The work of `passes` multi-head attention forwards at these sizes, with T tokens.
Work head_work(const HeadDims& d, double T, double passes);
void require_head_work(const HeadDims& d, double passes = 1);

}  // namespace attn
