// attnlab's own elementary functions (src/base/libm.h) timed against the C library's, one core:
// ns per call over 2^20 arguments where the tool uses each function (softmax's exp of (−20, 0],
// Box–Muller's log of (0, 1] and sincos of [0, 2π), GELU's tanh and erf), five interleaved rounds,
// median and range. Timed in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that on a machine
// shared with other jobs the time another process holds the core is not counted. Build and run:
//   cmake --build build --target attnlab_libm_bench && build/attnlab_libm_bench
#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "libm.h"

namespace {

namespace lm = attn::libm;

struct Case {
  const char* name;
  const std::vector<double>* xs;
  double (*ours)(double);
  double (*theirs)(double);
};

volatile double sink;

double thread_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e9 * static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec);
}

template <class F>
double ns_per_call(F f, const std::vector<double>& xs) {
  const double t0 = thread_ns();
  double s = 0;
  for (double x : xs) s += f(x);
  sink = s;
  return (thread_ns() - t0) / static_cast<double>(xs.size());
}

}  // namespace

int main() {
  const std::size_t n = 1 << 20;
  std::vector<double> unit(n), angle(n), neg(n), gelu(n);
  std::uint64_t z = 1;
  for (std::size_t i = 0; i < n; ++i) {
    z = z * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(z >> 11) * 0x1p-53;
    unit[i] = u + 0x1p-60;              // log's (0, 1]
    angle[i] = 6.283185307179586 * u;   // sincos's [0, 2π)
    neg[i] = -20.0 * u;                 // softmax's exp
    gelu[i] = 6.0 * u - 3.0;            // tanh's and erf's (−3, 3)
  }
  const Case cases[] = {
      {"exp", &neg, [](double x) { return lm::exp(x); }, [](double x) { return std::exp(x); }},
      {"log", &unit, [](double x) { return lm::log(x); }, [](double x) { return std::log(x); }},
      {"sin+cos", &angle, [](double x) { double s, c; lm::sincos(x, s, c); return s + c; },
       [](double x) { return std::sin(x) + std::cos(x); }},
      {"tanh", &gelu, [](double x) { return lm::tanh(x); }, [](double x) { return std::tanh(x); }},
      {"erf", &gelu, [](double x) { return lm::erf(x); }, [](double x) { return std::erf(x); }},
      {"pow", &unit, [](double x) { return lm::pow(10000.0, -x); }, [](double x) { return std::pow(10000.0, -x); }},
  };
  double load[3] = {0, 0, 0};
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  std::printf("ns of CPU per call, %zu arguments, 5 interleaved rounds: median (range); load average %.2f\n", n,
              load[0]);
  std::printf("%-8s %22s %22s %7s\n", "function", "attnlab", "C library", "ratio");
  for (const Case& c : cases) {
    std::vector<double> a, b;
    for (int round = 0; round < 5; ++round) {
      a.push_back(ns_per_call(c.ours, *c.xs));
      b.push_back(ns_per_call(c.theirs, *c.xs));
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::printf("%-8s %6.1f (%5.1f-%5.1f) %9.1f (%5.1f-%5.1f) %6.2fx\n", c.name, a[2], a[0], a[4], b[2], b[0], b[4],
                a[2] / b[2]);
  }
}
