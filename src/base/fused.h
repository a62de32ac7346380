#pragma once
// fused(a, b, c) = a·b + c rounded once (IEEE 754's fusedMultiplyAdd): every kernel's and every
// polynomial's multiply-add in attnlab goes through it, so that the CPU, a CPU without FMA and the
// book's WebAssembly give the same bits.
//
// Natively it is std::fma: the CPU's instruction in code compiled for FMA (the AVX2 and AVX-512
// kernels, libm's FMA copies), the C library's fma elsewhere. WebAssembly has no FMA instruction,
// and musl's fma (the book's C library) computes in 64-bit integers: 34 ns a call in node against
// fused_soft's 15-16 (docs/speed.md). There fused_soft computes the same correctly rounded result
// in double arithmetic:
//   a·b = p + e exactly (Dekker's product, with Veltkamp's split),
//   c + p = s + t exactly (Knuth's two-sum),
//   a·b + c = s + (t + e), and rounding (t + e) "to odd" before the last addition makes that
//   addition round as the exact sum would (Boldo and Melquiond, "Emulation of FMA and correctly
//   rounded sums: proved algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008).
// Those steps are exact only away from overflow and underflow: operands out of the range below,
// zeros, subnormals, infinities and NaNs take std::fma. tests/test_fused.cpp compares fused_soft
// with std::fma bit for bit on millions of triples, cancellations, ties and edge cases included.
#include <cmath>
#include <cstdint>

#include "bit_cast.h"

namespace attn {

namespace fused_detail {
// the biased exponent field of x (0 for zeros and subnormals, 2047 for infinities and NaNs)
inline int exponent_bits(double x) { return static_cast<int>((bit_cast<std::uint64_t>(x) >> 52) & 0x7ff); }
}  // namespace fused_detail

inline double fused_soft(double a, double b, double c) {
  using fused_detail::exponent_bits;
  const int ea = exponent_bits(a) - 1023, eb = exponent_bits(b) - 1023, ec = exponent_bits(c) - 1023;
  // a·b exactly zero (a or b ±0, the other finite): the sum c + (±0) is exact, with fma's sign of zero
  if ((a == 0.0 && ea < 1024 && eb < 1024) || (b == 0.0 && ea < 1024 && eb < 1024)) return c + a * b;
  // the range where every step below is exact: a and b normal and below 2^500 (Veltkamp's split
  // multiplies by 2^27 + 1), a·b above 2^-900 (its error term stays normal), c finite and below 2^900
  if (ea < -500 || ea > 500 || eb < -500 || eb > 500 || ea + eb < -900 || ec > 900) return std::fma(a, b, c);
  // Veltkamp's split: x = hi + lo, each of at most 26 significant bits, so every partial product is exact
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double ta = kSplit * a, ah = ta - (ta - a), al = a - ah;
  const double tb = kSplit * b, bh = tb - (tb - b), bl = b - bh;
  // Dekker's product: p = a·b rounded, e = a·b − p exactly
  const double p = a * b;
  const double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  // Knuth's two-sum: s = c + p rounded, t = c + p − s exactly
  const double s = c + p, sp = s - c, t = (c - (s - sp)) + (p - sp);
  // u = t + e rounded to odd: rounded to nearest, then, if that was inexact and landed on an even
  // last bit, moved one unit toward the exact sum (the result is then the neighbour with the odd bit)
  double u = t + e;
  const double up = u - t, err = (t - (u - up)) + (e - up);  // t + e − u, exactly
  std::uint64_t ub = bit_cast<std::uint64_t>(u);
  if (err != 0.0 && (ub & 1) == 0) {
    // away from zero when the error has u's sign, toward zero otherwise (u ≠ 0 here: t + e = 0 is exact)
    ub += ((err > 0.0) == (u > 0.0)) ? 1 : -1;
    u = bit_cast<double>(ub);
  }
  return s + u;
}

#ifdef __EMSCRIPTEN__
[[gnu::always_inline]] inline double fused(double a, double b, double c) { return fused_soft(a, b, c); }
#else
[[gnu::always_inline]] inline double fused(double a, double b, double c) { return std::fma(a, b, c); }
#endif
// float: musl's fmaf computes in double, which holds a float product exactly, and is fast already
[[gnu::always_inline]] inline float fused(float a, float b, float c) { return std::fma(a, b, c); }

}  // namespace attn
