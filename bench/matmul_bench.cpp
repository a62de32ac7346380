// attnlab_bench: times attn::gemm on (M, K) @ (K, N) with given threads; prints GFLOP/s.
// Built only on request: cmake --build build --target attnlab_bench
//   build/attnlab_bench [M K N threads reps]   (default 1024 768 768 1 5)
// Prints the best and median of `reps` runs, counting 2·M·N·K flops per product, and the best in
// the process's CPU time (cpu_gflops: at one thread, the rate while the core was ours, which a
// machine shared with other jobs does not take away).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "matmul.h"
#include "parallel.h"
#include "random.h"

namespace {
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, std::size_t def) { return argc > i ? std::strtoull(argv[i], nullptr, 10) : def; };
  std::size_t M = arg(1, 1024), K = arg(2, 768), N = arg(3, 768), threads = arg(4, 1), reps = arg(5, 5);
  attn::set_threads(threads);
  attn::Rng rng(1);
  std::vector<double> a(M * K), b(K * N), c(M * N);
  rng.fill_normal(a.data(), a.size(), 1.0);
  rng.fill_normal(b.data(), b.size(), 1.0);
  attn::gemm(a.data(), b.data(), c.data(), M, N, K);  // warm-up
  std::vector<double> secs;
  double best_cpu = 1e300;
  for (std::size_t r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    attn::gemm(a.data(), b.data(), c.data(), M, N, K);
    best_cpu = std::min(best_cpu, cpu_seconds() - c0);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(secs.begin(), secs.end());
  double flops = 2.0 * M * N * K;
  std::printf("attnlab gemm %zux%zux%zu threads=%zu kernel=%s best %.4f s (%.2f GFLOP/s) median %.4f s (%.2f GFLOP/s) cpu_gflops %.2f checksum %.17g\n",
              M, K, N, threads, attn::gemm_kernel_name(), secs.front(), flops / secs.front() / 1e9, secs[secs.size() / 2],
              flops / secs[secs.size() / 2] / 1e9, flops / best_cpu / 1e9, c[0] + c[c.size() - 1]);
}
