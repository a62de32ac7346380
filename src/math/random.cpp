#include "random.h"
#include "libm.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu.h"
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

// Box–Muller, n pairs at a time: out[2i] = scale·(r·cos θ), out[2i+1] = scale·(r·sin θ) with
// r = √(−2 ln u1[i]) and θ = 2π·u2[i]. attnlab's own log (in its atanh form, log_atanh) and
// sincos (libm.h) give the bits, the same on every platform, computed a batch at a time by their
// branch-free forms (several lanes per instruction); the rest (−2·, √, the products) is exact
// IEEE arithmetic, the same in every lane of a vector.
constexpr std::size_t kBatch = 256;  // pairs per batch: 5 × 2 KiB of scratch, in L1

// out[2i], out[2i+1] = scale·(r·c[i]), scale·(r·s[i]) with r = √(−2·lg[i]).
void box_muller_finish_portable(const double* lg, const double* c, const double* s, std::size_t n, double scale,
                                double* out) {
  for (std::size_t i = 0; i < n; ++i) {
    double r = std::sqrt(-2.0 * lg[i]);
    out[2 * i] = scale * (r * c[i]);
    out[2 * i + 1] = scale * (r * s[i]);
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ATTNLAB_RANDOM_AVX2 1
// The same operations four pairs at a time (vsqrtpd and vmulpd round as sqrtsd and mulsd do).
__attribute__((target("avx2"))) void box_muller_finish_avx2(const double* lg, const double* c, const double* s,
                                                            std::size_t n, double scale, double* out) {
  const __m256d minus2 = _mm256_set1_pd(-2.0), k = _mm256_set1_pd(scale);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d r = _mm256_sqrt_pd(_mm256_mul_pd(minus2, _mm256_loadu_pd(lg + i)));
    __m256d cc = _mm256_mul_pd(k, _mm256_mul_pd(r, _mm256_loadu_pd(c + i)));  // c0 c1 c2 c3
    __m256d ss = _mm256_mul_pd(k, _mm256_mul_pd(r, _mm256_loadu_pd(s + i)));  // s0 s1 s2 s3
    __m256d lo = _mm256_unpacklo_pd(cc, ss), hi = _mm256_unpackhi_pd(cc, ss);  // c0 s0 c2 s2 | c1 s1 c3 s3
    _mm256_storeu_pd(out + 2 * i, _mm256_permute2f128_pd(lo, hi, 0x20));      // c0 s0 c1 s1
    _mm256_storeu_pd(out + 2 * i + 4, _mm256_permute2f128_pd(lo, hi, 0x31));  // c2 s2 c3 s3
  }
  box_muller_finish_portable(lg + i, c + i, s + i, n - i, scale, out + 2 * i);
}
#endif

// lg[i] = ln u1[i], s[i], c[i] = sin, cos of 2π·u2[i]
void log_sincos_portable(const double* u1, const double* u2, std::size_t n, double* lg, double* s, double* c) {
  double theta[kBatch];
  for (std::size_t i = 0; i < n; ++i) theta[i] = 2.0 * M_PI * u2[i];
  libm::log_batch(u1, lg, n);
  libm::sincos_batch(theta, s, c, n);
}

#ifdef ATTNLAB_RANDOM_AVX2
// The same loops compiled for AVX2 and FMA: four lanes, the same operations (log's polynomial
// in fused multiply-adds, the CPU's instruction here), the same bits.
__attribute__((target("avx2,fma"))) void log_sincos_avx2(const double* u1, const double* u2, std::size_t n, double* lg,
                                                     double* s, double* c) {
  double theta[kBatch];
  for (std::size_t i = 0; i < n; ++i) theta[i] = 2.0 * M_PI * u2[i];
  libm::log_batch(u1, lg, n);
  libm::sincos_batch(theta, s, c, n);
}
#endif

using FinishFn = void (*)(const double*, const double*, const double*, std::size_t, double, double*);
using LogSincosFn = void (*)(const double*, const double*, std::size_t, double*, double*, double*);
FinishFn pick_finish() {
#ifdef ATTNLAB_RANDOM_AVX2
  if (cpu_has_avx2()) return box_muller_finish_avx2;
#endif
  return box_muller_finish_portable;
}
LogSincosFn pick_log_sincos() {
#ifdef ATTNLAB_RANDOM_AVX2
  if (cpu_has_avx2() && cpu_has_fma()) return log_sincos_avx2;
#endif
  return log_sincos_portable;
}
const FinishFn box_muller_finish = pick_finish();
const LogSincosFn log_sincos = pick_log_sincos();

// n <= kBatch pairs; u1[i] > 0. Not inlined, so that normal() (one pair) and the fills (batches)
// run the very same machine code.
[[gnu::noinline]] void box_muller(const double* u1, const double* u2, std::size_t n, double scale, double* out) {
  double lg[kBatch], c[kBatch], s[kBatch];
  log_sincos(u1, u2, n, lg, s, c);
  box_muller_finish(lg, c, s, n, scale, out);
}

// The uniforms of `n` pairs whose first pair draws the states base + γ and base + 2γ; false if
// some u1 is exactly 0 (which the sequential sampler rejects and redraws).
bool pair_uniforms(std::uint64_t base, std::size_t n, double* u1, double* u2) {
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t state = base + 2 * static_cast<std::uint64_t>(i) * kGamma;  // wraps like state_ +=
    u1[i] = to_uniform(mix(state + kGamma));
    u2[i] = to_uniform(mix(state + 2 * kGamma));
    ok = ok && u1[i] != 0.0;
  }
  return ok;
}

// Pairs [p0, p1) of a fill whose pair 0 starts after state s0, written to out[2p], out[2p+1]
// (scaled); false, with out partly written, if some u1 is exactly 0.
bool fill_pairs(std::uint64_t s0, std::size_t p0, std::size_t p1, double scale, double* out) {
  double u1[kBatch], u2[kBatch];
  for (std::size_t b = p0; b < p1; b += kBatch) {
    std::size_t n = std::min(kBatch, p1 - b);
    if (!pair_uniforms(s0 + 2 * static_cast<std::uint64_t>(b) * kGamma, n, u1, u2)) return false;
    box_muller(u1, u2, n, scale, out + 2 * b);
  }
  return true;
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
  double cs[2];
  box_muller(&u1, &u2, 1, 1.0, cs);  // 1.0 · x is x
  spare_ = cs[1];
  has_spare_ = true;
  return cs[0];
}

void Rng::fill_normal(double* out, std::size_t n, double std) {
  std::size_t first = 0;  // a spare left by the last call comes first
  if (n > 0 && has_spare_) {
    out[0] = std * normal();
    first = 1;
  }
  // Pair p (numbers first + 2p and first + 2p + 1) draws the uniforms of states s0 + (2p+1)γ and
  // s0 + (2p+2)γ — unless some u1 is exactly 0 (odds 2^-53 a pair), which the sequential loop
  // rejects, shifting every later draw: then the whole fill is redone one number at a time.
  // Whole pairs go through batches (on several threads when large); an odd last number takes
  // its pair's cos half and leaves the sin half as the spare, as normal() does.
  const std::uint64_t s0 = state_;
  std::size_t rest = n - first, whole = rest / 2;
  double* pairs_out = out + first;
  bool ok = true;
  if (rest < kParallelFill || thread_count() <= 1) {
    ok = fill_pairs(s0, 0, whole, std, pairs_out);
  } else {
    std::atomic<bool> rejected{false};
    parallel_for(whole, 4096, [&](std::size_t p0, std::size_t p1) {
      if (!fill_pairs(s0, p0, p1, std, pairs_out)) rejected.store(true, std::memory_order_relaxed);
    });
    ok = !rejected.load();
  }
  if (!ok) {
    state_ = s0;
    for (std::size_t i = first; i < n; ++i) out[i] = std * normal();
    return;
  }
  state_ = s0 + 2 * static_cast<std::uint64_t>(whole) * kGamma;
  if (rest % 2 == 1) out[n - 1] = std * normal();  // draws the last pair, keeps its sin half
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
