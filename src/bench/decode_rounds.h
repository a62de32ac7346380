#pragma once
// `attnlab bench decode`'s measurements: every variant, this machine's memory bandwidth and the
// scores kernel's compute peak, timed in the same rounds, so one busy moment of a shared machine
// cannot fall on one variant alone or on the bandwidth alone.
#include <cstdint>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "decode_bench.h"

namespace attn {

// One variant timed alone (its step repeated for min_seconds, min_reps runs at least).
struct DecodeBenchResult {
  Timing time;             // seconds per decode step (one token for each of the B sequences)
  std::uint64_t bytes = 0; // cache bytes read per step
  std::uint64_t flops = 0;
  double checksum = 0;
  std::string kernel;
};
DecodeBenchResult bench_decode_variant(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number,
                                       std::size_t min_reps, double min_seconds,
                                       DecodeKernel kernel = DecodeKernel::Automatic);

// The order of round r over n items: 0 … n−1 rotated left by r, so each item takes every place
// (first, after each other item) as often over n rounds.
std::vector<std::size_t> round_order(std::size_t n, std::size_t round);

// `rounds` rounds; in each, the compute loop once, a stream read of the separate array, the
// variants in round_order, each followed by a stream read of its own cache, and the separate
// array read again after the last. Each sample repeats its kernel for sample_seconds (once at
// least) and is seconds per run.
struct Rounds {
  std::vector<Timing> steps;       // per variant: seconds per decode step, one sample a round
  std::vector<double> checksums;   // per variant, from its last step
  Timing read;                     // seconds per stream read of the separate array: 2 samples a round
  std::vector<Timing> own_reads;   // per variant: seconds per stream read of its own cache, one a round
  Timing compute;                  // seconds per compute loop: one sample a round
  std::vector<std::vector<std::size_t>> orders;  // the order of each round
};
Rounds run_rounds(std::vector<DecodeStep>& steps, StreamRead& read, ComputeLoop& compute, std::size_t rounds,
                  double sample_seconds);

}  // namespace attn
