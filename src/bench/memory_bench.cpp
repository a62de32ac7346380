#include "memory_bench.h"

#include "decode_bench.h"

namespace attn {

MemoryBench bench_memory(std::size_t floats, std::size_t min_reps, double min_seconds) {
  StreamRead read(floats);
  StreamTriad triad(floats);
  MemoryBench r;
  r.array_bytes = read.bytes();
  volatile double sink = read.run() + triad.run();  // warm-up
  r.read = time_repeated([&] { sink = read.run(); }, min_reps, 100, min_seconds);
  r.triad = time_repeated([&] { sink = triad.run(); }, min_reps, 100, min_seconds);
  r.read_gb_s = static_cast<double>(r.array_bytes) / r.read.min / 1e9;
  r.triad_gb_s = 3.0 * static_cast<double>(r.array_bytes) / r.triad.min / 1e9;
  (void)sink;
  return r;
}

}  // namespace attn
