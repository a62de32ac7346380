#pragma once
// `attnlab bench memory`: the STREAM-like read and triad of src/math/decode_bench.h, timed.
#include <cstdint>

#include "bench_timing.h"

namespace attn {

// GB/s = bytes moved / best time (triad moves 3 arrays: 2 read, 1 written).
struct MemoryBench {
  std::uint64_t array_bytes = 0;
  Timing read, triad;
  double read_gb_s = 0, triad_gb_s = 0;
};
MemoryBench bench_memory(std::size_t floats, std::size_t min_reps, double min_seconds);

}  // namespace attn
