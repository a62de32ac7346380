#pragma once
// The bench layer (src/bench): timers, rounds and the figures a benchmark reports (medians,
// ranges, this machine's roofline). It times the kernels of src/math/decode_bench.h; the math
// layer never includes it (a test checks), so a kernel stays a plain computation.
#include <cstddef>
#include <functional>
#include <vector>

namespace attn {

// Samples in seconds, in the order taken, and their minimum, median and maximum.
struct Timing {
  std::vector<double> seconds;
  double min = 0, median = 0, max = 0;
};
Timing summarize(std::vector<double> seconds);
// Repeated runs: at least `min_reps`, until `min_seconds` have passed, at most `max_reps`.
Timing time_repeated(const std::function<void()>& run, std::size_t min_reps, std::size_t max_reps, double min_seconds);
// One sample: `run` repeated until `min_seconds` have passed (once at least, at most max_reps
// times); seconds per run.
double time_sample(const std::function<void()>& run, double min_seconds, std::size_t max_reps = 1000);

}  // namespace attn
