#pragma once
// attnlab's own elementary functions: exp, expm1, log, log10, sin, cos, tanh, erf, pow.
//
// Why not the C library's: its functions differ between libraries and even between one
// library's code paths. glibc picks an FMA version of exp and log on CPUs that have FMA, musl
// (the WebAssembly book's C library) and macOS use other algorithms for sin, cos, tanh and erf,
// and each answer may differ in the last bit. A random tensor goes through log, sin and cos
// (Box–Muller), softmax through exp, GELU through tanh or erf, so the last bits of a lesson's
// numbers, and every step of a training run after them, would depend on the machine. These
// functions use only +, −, ×, ÷, fused multiply-add, floor and integer operations, each rounded
// by IEEE 754 the same way everywhere (the build turns off FMA contraction; the fused multiply-adds
// are explicit, attn::fused of fused.h, one correct rounding whether the CPU's instruction or
// software computes it), so the same flags give the same bytes on every compiler and platform, in the terminal and
// in the book. log's and erf's polynomials use fused multiply-adds: on x86-64 they run as the
// CPU's instruction where it has one (log and erf pick that version at run time), else as the C
// library's fma (software on a CPU without FMA: slower, the same bits).
//
// Accuracy: within one unit in the last place (ulp) of the exact value for exp, log, sin and cos,
// within two for expm1, tanh, erf, pow and log10; tests/test_libm.cpp checks this against values
// computed at 200 digits by tests/golden/gen_libm.py and against the C library on millions of
// arguments. Methods: range reduction to a small interval, then a Taylor polynomial (or, for erf,
// a Taylor expansion around the nearest quarter); the constants are computed from first
// principles by scripts/gen-libm-tables.py.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "bit_cast.h"
#include "fused.h"
#include "libm_tables.h"

namespace attn::libm {

namespace detail {

// x86-64 code built for the baseline (no FMA): log and erf call a copy of themselves compiled for
// FMA where the CPU has it; std::fma elsewhere in them would be a call into the C library.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__)
#define ATTNLAB_LIBM_FMA_DISPATCH 1
inline bool cpu_fma() { return __builtin_cpu_supports("fma"); }
#endif

inline double floor_(double x) {  // ⌊x⌋ for |x| < 2^52, exact, with no call into the C library
  double t = static_cast<double>(static_cast<std::int64_t>(x));  // rounds toward zero
  return t > x ? t - 1.0 : t;
}
inline double abs_(double x) { return bit_cast<double>(bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffULL); }
inline bool is_nan(double x) { return x != x; }
inline double inf() { return std::numeric_limits<double>::infinity(); }
inline double nan() { return std::numeric_limits<double>::quiet_NaN(); }

// 2^m for −1022 <= m <= 1023, built from its bits
inline double pow2(int m) { return bit_cast<double>(static_cast<std::uint64_t>(m + 1023) << 52); }

// y · 2^m for y in [0.5, 4) and −1100 <= m <= 1100, rounded once (also into the subnormals)
inline double scale2(double y, int m) {
  if (m > 1023) {
    y *= pow2(1023);
    m -= 1023;
  } else if (m < -1022) {
    y *= pow2(-1022);  // still normal: exact
    m += 1022;
    if (m < -1022) return 0.0 * y;
  }
  return y * pow2(m);
}

// s + e = a + b exactly (Knuth's TwoSum)
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
// s + e = a + b exactly, for |a| >= |b| (Dekker's Fast2Sum)
inline void fast_two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  e = b - (s - a);
}
// p + e = a · b exactly (Dekker's product with Veltkamp's split; no FMA), for |a|, |b| < 2^995
inline void two_prod(double a, double b, double& p, double& e) {
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  double ta = kSplit * a, ah = ta - (ta - a), al = a - ah;
  double tb = kSplit * b, bh = tb - (tb - b), bl = b - bh;
  p = a * b;
  e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

// expm1(r) for |r| <= 0.7: Taylor to r^18/18! (the rest is below 2^-62 of the value)
inline double expm1_taylor(double r) {
  constexpr double c2 = 1.0 / 2, c3 = 1.0 / 6, c4 = 1.0 / 24, c5 = 1.0 / 120, c6 = 1.0 / 720, c7 = 1.0 / 5040,
                   c8 = 1.0 / 40320, c9 = 1.0 / 362880, c10 = 1.0 / 3628800, c11 = 1.0 / 39916800,
                   c12 = 1.0 / 479001600, c13 = 1.0 / 6227020800, c14 = 1.0 / 87178291200,
                   c15 = 1.0 / 1307674368000, c16 = 1.0 / 20922789888000, c17 = 1.0 / 355687428096000,
                   c18 = 1.0 / 6402373705728000;
  double p = c14 + r * (c15 + r * (c16 + r * (c17 + r * c18)));
  p = c8 + r * (c9 + r * (c10 + r * (c11 + r * (c12 + r * (c13 + r * p)))));
  p = c2 + r * (c3 + r * (c4 + r * (c5 + r * (c6 + r * (c7 + r * p)))));
  return r + r * r * p;
}

// sin(r + rl) and cos(r + rl) for |r| <= π/4 (a little more is fine), rl below r's last bit.
// Taylor to r^17/17! and r^18/18!: the rest is below 2^-60 of the value.
inline double sin_kernel(double r, double rl) {
  constexpr double s3 = -1.0 / 6, s5 = 1.0 / 120, s7 = -1.0 / 5040, s9 = 1.0 / 362880, s11 = -1.0 / 39916800,
                   s13 = 1.0 / 6227020800, s15 = -1.0 / 1307674368000, s17 = 1.0 / 355687428096000;
  double z = r * r;
  double p = s3 + z * (s5 + z * (s7 + z * (s9 + z * (s11 + z * (s13 + z * (s15 + z * s17))))));
  return r + (rl * (1.0 - 0.5 * z) + r * z * p);
}
inline double cos_kernel(double r, double rl) {
  constexpr double c4 = 1.0 / 24, c6 = -1.0 / 720, c8 = 1.0 / 40320, c10 = -1.0 / 3628800, c12 = 1.0 / 479001600,
                   c14 = -1.0 / 87178291200, c16 = 1.0 / 20922789888000, c18 = -1.0 / 6402373705728000;
  double z = r * r, hz = 0.5 * z, w = 1.0 - hz;
  double q = c4 + z * (c6 + z * (c8 + z * (c10 + z * (c12 + z * (c14 + z * (c16 + z * c18))))));
  return w + (((1.0 - w) - hz) + (z * z * q - r * rl));
}

// high × low 64-bit halves of a · b, in 32-bit pieces (no 128-bit type on every target)
inline void mul64(std::uint64_t a, std::uint64_t b, std::uint64_t& hi, std::uint64_t& lo) {
  std::uint64_t a0 = a & 0xffffffffULL, a1 = a >> 32, b0 = b & 0xffffffffULL, b1 = b >> 32;
  std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  std::uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL);
  lo = (mid << 32) | (p00 & 0xffffffffULL);
  hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

// x = q·π/2 + (r + rl) for |x| < 1.5·2^20, with |r| <= π/4 (about): π/2 in four parts, the
// first three of 33 bits, so that k·part is exact for k < 2^20 and the reduction keeps more than
// 100 bits of π/2 beyond x's closest approach to a multiple of it.
inline void reduce_medium(double x, double& r, double& rl, int& q) {
  using namespace table;
  double k = floor_(x * kTwoOverPi + 0.5);
  q = static_cast<int>(k);
  double r1 = x - k * kPio2_1;  // exact
  double h, e1, h2, e2;
  two_sum(r1, -(k * kPio2_2), h, e1);
  two_sum(h, -(k * kPio2_3), h2, e2);
  fast_two_sum(h2, (e1 + e2) - k * kPio2_4, r, rl);
}

// The same for any finite |x| >= 2^20 (Payne and Hanek's reduction): x·2/π mod 4 from the bits of
// 2/π that matter, in integers, then the fraction times π/2.
[[gnu::noinline]] inline void reduce_large(double x, double& r, double& rl, int& q) {
  const std::uint64_t bits = bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffULL;
  const std::uint64_t M = (bits & 0xfffffffffffffULL) | (1ULL << 52);  // |x| = M · 2^e
  const int e = static_cast<int>(bits >> 52) - 1075;
  // |x|·2/π = M·2^e·Σ b_i 2^−i; the bits i <= e − 2 add multiples of 4 and are left out. The 192
  // bits from i0 on give it mod 4 with an error below 2^−136.
  const int i0 = e - 1 > 1 ? e - 1 : 1;
  std::uint64_t W[3];
  {
    const int w = (i0 - 1) / 64, sh = (i0 - 1) % 64;
    for (int i = 0; i < 3; ++i)
      W[i] = sh == 0 ? table::two_over_pi_bits[w + i]
                     : (table::two_over_pi_bits[w + i] << sh) | (table::two_over_pi_bits[w + i + 1] >> (64 - sh));
  }
  // P = M · W, 256 bits in P[3] (top) … P[0]
  std::uint64_t P[5] = {0, 0, 0, 0, 0}, h0, l0, h1, l1, h2, l2;
  mul64(M, W[0], h0, l0);
  mul64(M, W[1], h1, l1);
  mul64(M, W[2], h2, l2);
  P[0] = l2;
  P[1] = h2 + l1;
  std::uint64_t c1 = P[1] < h2 ? 1 : 0;
  P[2] = h1 + l0;
  std::uint64_t c2 = P[2] < h1 ? 1 : 0;
  P[2] += c1;
  c2 += (P[2] < c1) ? 1 : 0;
  P[3] = h0 + c2;
  // |x|·2/π mod 4 = P · 2^−s: s fraction bits
  const int s = i0 + 191 - e;
  auto bits64 = [&](int low) {  // P's bits low … low + 63
    const int wi = low / 64, sh = low % 64;
    return sh == 0 ? P[wi] : (P[wi] >> sh) | (P[wi + 1] << (64 - sh));
  };
  int quadrant = static_cast<int>(bits64(s) & 3);
  std::uint64_t F1 = bits64(s - 64), F0 = bits64(s - 128);  // the fraction's first 128 bits
  bool negative = false;
  if (F1 >> 63) {  // fraction >= 1/2: round up, the rest is 1 − fraction, taken negative
    quadrant = (quadrant + 1) & 3;
    negative = true;
    F0 = ~F0 + 1;
    F1 = ~F1 + (F0 == 0 ? 1 : 0);
  }
  // the magnitude F1:F0 · 2^−128 as hi + lo (each exact from a 53-bit integer)
  int shift = 0;
  while (F1 == 0 && shift < 128) {  // x is never a multiple of π/2, but stay finite if it were
    F1 = F0;
    F0 = 0;
    shift += 64;
  }
  int z = 0;
  while (z < 63 && !((F1 << z) >> 63)) ++z;
  if (z) {
    F1 = (F1 << z) | (F0 >> (64 - z));
    F0 <<= z;
  }
  shift += z;
  const double hi = static_cast<double>(F1 >> 11) * pow2(-53 - shift);
  const double lo = static_cast<double>(((F1 & 0x7ffULL) << 42) | (F0 >> 22)) * pow2(-106 - shift);
  double p, pe;
  two_prod(hi, table::kPio2_hi, p, pe);
  pe += hi * table::kPio2_lo + lo * table::kPio2_hi;
  fast_two_sum(p, pe, r, rl);
  if (negative) r = -r, rl = -rl;
  if (x < 0) r = -r, rl = -rl, quadrant = (4 - quadrant) & 3;
  q = quadrant;
}

inline void reduce(double x, double& r, double& rl, int& q) {
  const double a = abs_(x);
  if (a <= 0.78539816339744828) {
    r = x, rl = 0.0, q = 0;
  } else if (a < 0x1.8p20) {
    reduce_medium(x, r, rl, q);
  } else {
    reduce_large(x, r, rl, q);
  }
}

// R(z) = 2z/3 + 2z²/5 + … + 2z^11/23 by Horner's rule, one fused multiply-add a term
[[gnu::always_inline]] inline double log_poly(double z) {
  constexpr double r1 = 2.0 / 3, r2 = 2.0 / 5, r3 = 2.0 / 7, r4 = 2.0 / 9, r5 = 2.0 / 11, r6 = 2.0 / 13,
                   r7 = 2.0 / 15, r8 = 2.0 / 17, r9 = 2.0 / 19, r10 = 2.0 / 21, r11 = 2.0 / 23;
  double R = fused(r11, z, r10);
  R = fused(R, z, r9), R = fused(R, z, r8), R = fused(R, z, r7), R = fused(R, z, r6);
  R = fused(R, z, r5), R = fused(R, z, r4), R = fused(R, z, r3), R = fused(R, z, r2);
  R = fused(R, z, r1);
  return z * R;
}

// log(x) for finite x > 0 as hi + lo, about 2^-60 apart from the exact value relative to it.
// x = 2^e · (1 + f) with 1 + f in [√½, √2); s = f / (2 + f), so that log(1 + f) = 2 atanh(s) =
// f − f²/2 + s·(f²/2 + R(s²)) with R(z) = 2z/3 + 2z²/5 + … (to 2z^11/23).
[[gnu::always_inline]] inline void log_parts(double x, double& f, double& hfsq, double& corr, int& e) {
  std::uint64_t b = bit_cast<std::uint64_t>(x);
  e = 0;
  if ((b >> 52) == 0) {  // subnormal
    x *= 0x1p54;
    b = bit_cast<std::uint64_t>(x);
    e = -54;
  }
  e += static_cast<int>(b >> 52) - 1023;
  double m = bit_cast<double>((b & 0xfffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
  if (m > table::kSqrt2) {
    m *= 0.5;
    ++e;
  }
  f = m - 1.0;  // exact
  const double s = f / (2.0 + f), z = s * s;
  const double R = log_poly(z);
  hfsq = 0.5 * f * f;
  corr = s * (hfsq + R);
}

// log x as lh + ll, about 2^-60 from the exact value relative to it (finite x > 0)
inline void log_dd(double x, double& lh, double& ll) {
  double f, hfsq, corr;
  int e;
  log_parts(x, f, hfsq, corr, e);
  // log x = e·ln2_hi + f − f²/2 + corr + e·ln2_lo, with f²/2 exact in two parts
  double hh, hl, s1, t1, t2;
  two_prod(f, f, hh, hl);
  hh *= 0.5, hl *= 0.5;
  const double ed = e;
  two_sum(ed * table::kLn2_hi, f, s1, t1);
  two_sum(s1, -hh, lh, t2);
  ll = ((t1 + t2) - hl) + (corr + ed * table::kLn2_lo);
  fast_two_sum(lh, ll, lh, ll);
}

}  // namespace detail

// e^x
inline double exp(double x) {
  using namespace table;
  if (!(x > -745.2 && x < 709.79)) {
    if (detail::is_nan(x)) return x;
    return x > 0 ? detail::inf() : 0.0;
  }
  // x = k·ln2/128 + r, |r| <= ln2/256; e^x = 2^(k/128) · e^r, e^r − 1 by Taylor to r^5/5!
  const double kd = detail::floor_(x * kExpN_over_ln2 + 0.5);
  const int k = static_cast<int>(kd);
  const double r = (x - kd * kLn2_over_N_hi) - kd * kLn2_over_N_lo;
  const int j = k & 127, m = (k - j) / 128;
  const double p = r + r * r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120))));
  const double y = exp2_hi[j] + (exp2_hi[j] * p + exp2_lo[j]);
  return detail::scale2(y, m);
}

// e^x − 1, accurate for small x
inline double expm1(double x) {
  using namespace table;
  if (detail::is_nan(x)) return x;
  const double a = detail::abs_(x);
  if (a <= 0.7) return a < 0x1p-54 ? x : detail::expm1_taylor(x);
  if (x > 40.0) return exp(x);  // e^x − 1 rounds to e^x
  if (x < -40.0) return -1.0;
  // x = k·ln2 + r, |r| <= ln2/2 and r of x's sign (|x| > 0.7 > ln 2): e^x − 1 = 2^k·expm1(r) +
  // (2^k − 1), with 2^k and 2^k − 1 exact
  const double kd = detail::floor_(x * kInvLn2 + 0.5);
  const int k = static_cast<int>(kd);
  const double hi = x - kd * kLn2_hi, lo = kd * kLn2_lo;  // hi exact
  double r, c;
  detail::fast_two_sum(hi, -lo, r, c);
  double em = detail::expm1_taylor(r);
  em += c + c * em;  // expm1(r + c) = expm1(r) + c·e^r
  const double two = detail::pow2(k);
  return (two - 1.0) + two * em;
}

namespace detail {
// log x near 1 (and in log_batch): 2 atanh(s) as log_parts computes it, where no table entry's
// logarithm can cancel against e·ln 2
[[gnu::always_inline]] inline double log_atanh(double x) {
  using namespace table;
  double f, hfsq, corr;
  int e;
  log_parts(x, f, hfsq, corr, e);
  const double ed = e;
  return ed * kLn2_hi + (f - (hfsq - (corr + ed * kLn2_lo)));
}

// log(1 + r) − r = r²·(−1/2 + r/3 − r²/4 + r³/5 − r⁴/6 + r⁵/7), the Taylor series, whose next
// term r⁸/8 is below 2^-67 for |r| < 2^-8. Evaluated in three independent pairs (Estrin), each
// pair one fused multiply-add, so that the CPU can work on them at once.
[[gnu::always_inline]] inline double log1p_tail(double r) {
  const double r2 = r * r;
  const double p01 = fused(r, 1.0 / 3, -0.5);
  const double p23 = fused(r, 1.0 / 5, -0.25);
  const double p45 = fused(r, 1.0 / 7, -1.0 / 6);
  const double p = fused(r2, fused(r2, p45, p23), p01);
  return r2 * p;
}

// log x = e·ln 2 + log c_i + log(1 + r): x = 2^e·m, m in [1, 2), c_i the centre of m's 1/128th of
// [1, 2), r = m/c_i − 1 computed as m·invc_i − 1 in one fused multiply-add (|r| < 2^-8). For x
// within 1/16 of 1 the result is small and e·ln 2 + log c_i would cancel: log_atanh there.
[[gnu::always_inline]] inline double log_body(double x) {
  using namespace table;
  if (!(x > 0.0) || x == inf()) {
    if (is_nan(x) || x == inf()) return x;
    return x == 0.0 ? -inf() : nan();
  }
  std::uint64_t b = bit_cast<std::uint64_t>(x);
  // x in [0.9375, 1.0625): one unsigned comparison of the bits
  if (b - 0x3FEE000000000000ULL < 0x3FF1000000000000ULL - 0x3FEE000000000000ULL) return log_atanh(x);
  int e = 0;
  if ((b >> 52) == 0) {  // subnormal
    b = bit_cast<std::uint64_t>(x * 0x1p54);
    e = -54;
  }
  e += static_cast<int>(b >> 52) - 1023;
  const int i = static_cast<int>((b >> 45) & 127);
  const double m = bit_cast<double>((b & 0xfffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
  const double r = fused(m, log_invc[i], -1.0);
  const double ed = e;
  // t = e·ln2_hi + log_c_hi[i]: e·ln2_hi is exact, and |e·ln 2| > |log c_i| where e ≠ 0
  double t, te, hi, he;
  fast_two_sum(ed * kLn2_hi, log_c_hi[i], t, te);
  // |t| > 1/16 > |r| here (x is not near 1)
  fast_two_sum(t, r, hi, he);
  return hi + (((te + he) + (log_c_lo[i] + ed * kLn2_lo)) + log1p_tail(r));
}
#ifdef ATTNLAB_LIBM_FMA_DISPATCH
__attribute__((target("fma"))) inline double log_fma(double x) { return log_body(x); }
#endif
}  // namespace detail

// natural logarithm
inline double log(double x) {
#ifdef ATTNLAB_LIBM_FMA_DISPATCH
  if (detail::cpu_fma()) return detail::log_fma(x);
#endif
  return detail::log_body(x);
}

// base-10 logarithm: log x · (1 / ln 10) in double-double, so that a power of ten gives its
// exponent exactly
inline double log10(double x) {
  if (!(x > 0.0) || x == detail::inf()) return log(x);
  double lh, ll, p, pe;
  detail::log_dd(x, lh, ll);
  detail::two_prod(lh, table::kInvLn10_hi, p, pe);
  return p + (pe + (lh * table::kInvLn10_lo + ll * table::kInvLn10_hi));
}

// sin x and cos x together (one reduction)
inline void sincos(double x, double& s, double& c) {
  if (!(detail::abs_(x) < detail::inf())) {
    s = c = x - x;  // NaN for ±∞ and NaN
    return;
  }
  if (detail::abs_(x) < 0x1p-27) {  // sin x = x − x³/6 rounds to x, cos x = 1 − x²/2 to 1 (keeps −0)
    s = x, c = 1.0;
    return;
  }
  double r, rl;
  int q;
  detail::reduce(x, r, rl, q);
  const double sr = detail::sin_kernel(r, rl), cr = detail::cos_kernel(r, rl);
  switch (q & 3) {
    case 0: s = sr, c = cr; break;
    case 1: s = cr, c = -sr; break;
    case 2: s = -sr, c = -cr; break;
    default: s = -cr, c = sr; break;
  }
}
inline double sin(double x) {
  double s, c;
  sincos(x, s, c);
  return s;
}
inline double cos(double x) {
  double s, c;
  sincos(x, s, c);
  return c;
}

// tanh x = t / (t + 2) with t = e^(2|x|) − 1: below |x| = 0.35 t by Taylor, above as e^(2|x|) − 1
// (exact there: e^(2|x|) >= 2)
inline double tanh(double x) {
  const double a = detail::abs_(x);
  if (detail::is_nan(x) || a < 0x1p-28) return x;
  if (a > 22.0) return x > 0 ? 1.0 : -1.0;
  const double t = a < 0.35 ? detail::expm1_taylor(2.0 * a) : exp(2.0 * a) - 1.0;
  double d, de;  // d + de = t + 2 exactly
  detail::two_sum(t, 2.0, d, de);
  const double q = t / d, y = q - q * (de / d);  // t / (d + de) = q·(1 − de/d + …)
  return x < 0 ? -y : y;
}

// erf x. Below 1/2, its Maclaurin series (to x^27). Above, the Taylor expansion around the
// nearest quarter c = k/4 (|h| = |x − c| <= 1/8), erf(c + h) = erf(c) + erf'(c)·Σ_n (−1)^n H_n(c)
// h^(n+1)/(n+1)!, with H_n Hermite's polynomials (H_0 = 1, H_1 = 2c, H_n+1 = 2c·H_n − 2n·H_n−1).
// erf(c), erf'(c) and both polynomials' coefficients come from the table (exact rationals rounded
// once by scripts/gen-libm-tables.py: no division at run time); each polynomial by Horner's rule,
// one fused multiply-add a term.
namespace detail {
[[gnu::always_inline]] inline double erf_body(double x) {
  if (is_nan(x)) return x;
  const double a = abs_(x);
  if (a >= 6.0) return x > 0 ? 1.0 : -1.0;  // 1 − erf(6) < 2^-55
  double y;
  if (a < 0.5) {
    // 2/√π · (a − a·Σ_{n=1..13} (−1)^(n+1) z^n / (n! (2n+1))), z = a²
    const double z = a * a;
    const double* p = table::erf_small;
    double sum = p[12];
    for (int n = 11; n >= 0; --n) sum = fused(sum, z, p[n]);
    y = table::erf_slope_at[0] * fused(-a, sum * z, a);
  } else {
    const int k = static_cast<int>(floor_(4.0 * a + 0.5));
    const double h = a - 0.25 * k;  // exact
    const double* p = table::erf_taylor[k];  // the next term is below 2^-70 of erf'(c)
    double sum = p[19];
    for (int n = 18; n >= 0; --n) sum = fused(sum, h, p[n]);
    y = fused(table::erf_slope_at[k], sum * h, table::erf_at[k]);
  }
  return x < 0 ? -y : y;
}
#ifdef ATTNLAB_LIBM_FMA_DISPATCH
__attribute__((target("fma"))) inline double erf_fma(double x) { return erf_body(x); }
#endif
}  // namespace detail

inline double erf(double x) {
#ifdef ATTNLAB_LIBM_FMA_DISPATCH
  if (detail::cpu_fma()) return detail::erf_fma(x);
#endif
  return detail::erf_body(x);
}

// x^y = e^(y·log x), with log x and the product carried to about 2^-60
inline double pow(double x, double y) {
  using detail::inf;
  if (y == 0.0 || x == 1.0) return 1.0;
  if (detail::is_nan(x) || detail::is_nan(y)) return x + y;
  double sign = 1.0;
  if (x < 0.0) {
    if (detail::abs_(y) < 0x1p53 && detail::floor_(y) != y) return detail::nan();
    const bool odd = detail::abs_(y) < 0x1p53 && detail::floor_(0.5 * y) != 0.5 * y;
    sign = odd ? -1.0 : 1.0;
    x = -x;
  }
  if (detail::abs_(y) == inf()) return x == 1.0 ? 1.0 : ((x > 1.0) == (y > 0.0) ? inf() : 0.0);
  if (x == 0.0) return sign * (y > 0.0 ? 0.0 : inf());
  if (x == inf()) return sign * (y > 0.0 ? inf() : 0.0);
  double lh, ll;
  detail::log_dd(x, lh, ll);
  const double ph = y * lh;
  if (!(ph < 709.79)) return sign * inf();
  if (!(ph > -745.2)) return sign * 0.0;
  double p, pe;
  detail::two_prod(y, lh, p, pe);
  pe += y * ll;
  const double r = exp(p);
  return sign * (r + r * pe);
}

// Batches for Box–Muller (src/math/random.cpp): the same operations as log_atanh and sincos above,
// so the same bits, but without branches, so that a compiler can compute several numbers per instruction.
// log_batch needs normal x > 0 (Box–Muller's u1 >= 2^-53); sincos_batch needs 0 <= x < 1.5·2^20
// (Box–Muller's angles are in [0, 2π)); tests/test_libm.cpp compares them with log_atanh and
// sincos bit for bit.
namespace detail {
// ⌊t⌋ for |t| < 2^51, as floor_ gives it: t rounded to an integer by adding and taking away
// 1.5·2^52, then one less where that rounded up
inline double floor_batch(double t) {
  const double y = (t + 0x1.8p52) - 0x1.8p52;
  return y > t ? y - 1.0 : y;
}
}  // namespace detail

// (always inlined: a caller compiled for FMA, as random.cpp's AVX2 copy, runs the polynomial as
// the CPU's instruction)
[[gnu::always_inline]] inline void log_batch(const double* x, double* out, std::size_t n) {
  using namespace table;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t b = bit_cast<std::uint64_t>(x[i]);
    double m = bit_cast<double>((b & 0xfffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
    // e + 1024 as a double: its bits under 2^52's exponent (exact; no integer-to-double instruction)
    double e = bit_cast<double>(0x4330000000000000ULL | ((b >> 52) + 1)) - 0x1p52 - 1024.0;
    const bool big = m > kSqrt2;
    m = big ? m * 0.5 : m;
    e = big ? e + 1.0 : e;
    const double f = m - 1.0, s = f / (2.0 + f), z = s * s;
    const double R = detail::log_poly(z);
    const double hfsq = 0.5 * f * f, corr = s * (hfsq + R);
    out[i] = e * kLn2_hi + (f - (hfsq - (corr + e * kLn2_lo)));
  }
}

inline void sincos_batch(const double* x, double* s, double* c, std::size_t n) {
  using namespace table;
  for (std::size_t i = 0; i < n; ++i) {
    const double xi = x[i];
    // reduce_medium, and for |x| <= π/4 the plain x (k = 0 gives x and 0 exactly as reduce does)
    const double k = detail::floor_batch(xi * kTwoOverPi + 0.5);
    const double r1 = xi - k * kPio2_1;
    const double w2 = -(k * kPio2_2), h = r1 + w2, bb = h - r1, e1 = (r1 - (h - bb)) + (w2 - bb);
    const double w3 = -(k * kPio2_3), h2 = h + w3, bb2 = h2 - h, e2 = (h - (h2 - bb2)) + (w3 - bb2);
    const double lo = (e1 + e2) - k * kPio2_4, r = h2 + lo, rl = lo - (r - h2);
    const bool small = xi <= 0.78539816339744828;
    const double rr = small ? xi : r, rrl = small ? 0.0 : rl;
    const double sr = detail::sin_kernel(rr, rrl), cr = detail::cos_kernel(rr, rrl);
    // the quadrant k mod 4 from the low bits of k + 1.5·2^52
    const std::uint64_t q = small ? 0 : bit_cast<std::uint64_t>(k + 0x1.8p52) & 3;
    const double sv = (q & 1) ? cr : sr, cv = (q & 1) ? sr : cr;
    s[i] = (q & 2) ? -sv : sv;
    c[i] = ((q + 1) & 2) ? -cv : cv;
    // below 2^-27 sincos returns x and 1, which the kernels give too (tested)
  }
}

// float versions: the double function rounded to float
inline float exp(float x) { return static_cast<float>(exp(static_cast<double>(x))); }
inline float log(float x) { return static_cast<float>(log(static_cast<double>(x))); }
inline float tanh(float x) { return static_cast<float>(tanh(static_cast<double>(x))); }

}  // namespace attn::libm
