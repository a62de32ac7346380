#include "decode_rounds.h"

namespace attn {

DecodeBenchResult bench_decode_variant(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number,
                                       std::size_t min_reps, double min_seconds, DecodeKernel kernel) {
  DecodeStep step(v, B, N, bytes_per_number, kernel);
  DecodeBenchResult r;
  r.checksum = step.run();  // warm-up
  r.time = time_repeated([&] { r.checksum = step.run(); }, min_reps, 200, min_seconds);
  r.bytes = step.bytes();
  r.flops = step.flops();
  r.kernel = step.kernel();
  return r;
}

std::vector<std::size_t> round_order(std::size_t n, std::size_t round) {
  std::vector<std::size_t> o(n);
  for (std::size_t i = 0; i < n; ++i) o[i] = (i + round) % n;
  return o;
}

Rounds run_rounds(std::vector<DecodeStep>& steps, StreamRead& read, ComputeLoop& compute, std::size_t rounds,
                  double sample_seconds) {
  const std::size_t n = steps.size();
  Rounds r;
  r.checksums.assign(n, 0.0);
  std::vector<std::vector<double>> step_s(n), own_s(n);
  std::vector<double> read_s, compute_s;
  volatile double sink = read.run() + compute.run();  // warm-up: pages, caches, clocks
  for (std::size_t i = 0; i < n; ++i) r.checksums[i] = steps[i].run();
  for (std::size_t round = 0; round < rounds; ++round) {
    r.orders.push_back(round_order(n, round));
    compute_s.push_back(time_sample([&] { sink = compute.run(); }, sample_seconds));
    read_s.push_back(time_sample([&] { sink = read.run(); }, sample_seconds));
    for (std::size_t i : r.orders.back()) {
      // the step first, its own cache's read right after it: a step timed just after a read of
      // its own pages ran 8-10% slower on the 2026-12-07 Intel VM (docs/ARCHITECTURE.md)
      step_s[i].push_back(time_sample([&] { r.checksums[i] = steps[i].run(); }, sample_seconds));
      own_s[i].push_back(time_sample([&] { sink = steps[i].read_cache(); }, sample_seconds));
    }
    read_s.push_back(time_sample([&] { sink = read.run(); }, sample_seconds));
  }
  for (auto& s : step_s) r.steps.push_back(summarize(std::move(s)));
  for (auto& s : own_s) r.own_reads.push_back(summarize(std::move(s)));
  r.read = summarize(std::move(read_s));
  r.compute = summarize(std::move(compute_s));
  (void)sink;
  return r;
}

}  // namespace attn
