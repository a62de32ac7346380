#include "bench_timing.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace attn {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

Timing summarize(std::vector<double> seconds) {
  Timing t;
  t.seconds = seconds;
  if (seconds.empty()) return t;
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  t.min = seconds.front();
  t.max = seconds.back();
  t.median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  return t;
}

Timing time_repeated(const std::function<void()>& run, std::size_t min_reps, std::size_t max_reps, double min_seconds) {
  std::vector<double> s;
  auto start = Clock::now();
  while (s.size() < max_reps && (s.size() < min_reps || seconds_since(start) < min_seconds)) {
    auto t0 = Clock::now();
    run();
    s.push_back(seconds_since(t0));
  }
  return summarize(std::move(s));
}

double time_sample(const std::function<void()>& run, double min_seconds, std::size_t max_reps) {
  std::size_t reps = 0;
  auto t0 = Clock::now();
  double elapsed = 0;
  do {
    run();
    ++reps;
    elapsed = seconds_since(t0);
  } while (reps < max_reps && elapsed < min_seconds);
  return elapsed / static_cast<double>(reps);
}

}  // namespace attn
