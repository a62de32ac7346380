#include "random.h"

#include <atomic>
#include <cmath>

#include "parallel.h"

namespace attn {

namespace {

constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ULL;  // SplitMix64's increment γ

// SplitMix64's output for the state after its increment.
inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline double to_uniform(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// One Box–Muller pair. Not inlined, so that the sequential and the parallel sampler run the very
// same machine code (e.g. whether sin and cos become one sincos call) and round identically.
[[gnu::noinline]] void box_muller(double u1, double u2, double& cos_part, double& sin_part) {
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = 2.0 * M_PI * u2;
  sin_part = r * std::sin(theta);
  cos_part = r * std::cos(theta);
}

// Fills below this many numbers stay on one thread.
constexpr std::size_t kParallelFill = 1 << 14;

}  // namespace

std::uint64_t Rng::next_u64() {
  // SplitMix64 (Steele, Lea, Flood 2014): a counter passed through a bijective mixer.
  return mix(state_ += kGamma);
}

double Rng::uniform() { return to_uniform(next_u64()); }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u1 = uniform();
  while (u1 == 0.0) u1 = uniform();  // log(0) is -inf
  double u2 = uniform();
  double c;
  box_muller(u1, u2, c, spare_);
  has_spare_ = true;
  return c;
}

void Rng::fill_normal(double* out, std::size_t n, double std) {
  std::size_t first = 0;  // a spare left by the last call comes first
  if (n > 0 && has_spare_) {
    out[0] = std * normal();
    first = 1;
  }
  std::size_t rest = n - first;
  if (rest < kParallelFill || thread_count() <= 1) {
    for (std::size_t i = first; i < n; ++i) out[i] = std * normal();
    return;
  }
  // Pair p (numbers first + 2p and first + 2p + 1) draws the uniforms of states s0 + (2p+1)γ and
  // s0 + (2p+2)γ — unless some u1 is exactly 0 (odds 2^-53 a pair), which the sequential loop
  // rejects, shifting every later draw: then the whole fill is redone sequentially.
  const std::uint64_t s0 = state_;
  const std::size_t pairs = (rest + 1) / 2;
  std::atomic<bool> rejected{false};
  double last_sin = 0.0;
  parallel_for(pairs, 4096, [&](std::size_t p0, std::size_t p1) {
    for (std::size_t p = p0; p < p1; ++p) {
      std::uint64_t base = s0 + 2 * static_cast<std::uint64_t>(p) * kGamma;  // wraps like state_ +=
      double u1 = to_uniform(mix(base + kGamma));
      if (u1 == 0.0) {
        rejected.store(true, std::memory_order_relaxed);
        return;
      }
      double u2 = to_uniform(mix(base + 2 * kGamma));
      double c, s;
      box_muller(u1, u2, c, s);
      std::size_t e = first + 2 * p;
      out[e] = std * c;
      if (e + 1 < n) out[e + 1] = std * s;
      if (p + 1 == pairs) last_sin = s;
    }
  });
  if (rejected.load()) {
    state_ = s0;
    for (std::size_t i = first; i < n; ++i) out[i] = std * normal();
    return;
  }
  state_ = s0 + 2 * static_cast<std::uint64_t>(pairs) * kGamma;
  spare_ = last_sin;           // the sin half of the last pair, as normal() leaves it
  has_spare_ = rest % 2 == 1;  // unused when the fill ended on a pair's second number
}

Tensor randn(Rng& rng, const Shape& shape, double std) {
  Tensor t(shape);
  rng.fill_normal(t.data.data(), t.numel(), std);
  return t;
}

Tensor init_weight(Rng& rng, std::size_t d_in, std::size_t d_out) {
  return randn(rng, {d_in, d_out}, 1.0 / std::sqrt(static_cast<double>(d_in)));
}

}  // namespace attn
