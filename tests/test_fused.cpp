// fused_soft (src/base/fused.h), the book's fused multiply-add in double arithmetic, against the
// C library's std::fma (the CPU's instruction on a CPU with FMA): the same bits on every triple.
// Natively the kernels use std::fma; WebAssembly uses fused_soft, so this is what keeps the book's
// numbers identical to the terminal's (the book's tests compare the two outputs as well).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "fused.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_fused {

struct Compare {
  std::mt19937_64 g{11};
  std::size_t n = 0, differ = 0;

  // ±(1 + m/2^52)·2^e with e uniform in [elo, ehi]
  double draw(int elo, int ehi) {
    const double m = static_cast<double>(g() >> 12);
    const int e = elo + static_cast<int>(g() % static_cast<std::uint64_t>(ehi - elo + 1));
    const double x = std::ldexp(1.0 + std::ldexp(m, -52), e);
    return (g() & 1) ? -x : x;
  }
  double bits(std::uint64_t b) {
    double x;
    std::memcpy(&x, &b, 8);
    return x;
  }
  void check(double a, double b, double c) {
    const double x = attn::fused_soft(a, b, c), y = std::fma(a, b, c);
    ++n;
    if (std::isnan(x) && std::isnan(y)) return;
    if (std::memcmp(&x, &y, 8) != 0) {
      if (differ < 5) UNSCOPED_INFO("fused_soft(" << std::hexfloat << a << ", " << b << ", " << c << ") = " << x << ", fma " << y);
      ++differ;
    }
  }
};

TEST_CASE("fused_soft gives std::fma's bits: random, cancelling, tied and edge triples", "[fused]") {
  Compare t;
  for (int i = 0; i < 1000000; ++i) t.check(t.draw(-60, 60), t.draw(-60, 60), t.draw(-120, 120));
  // c close to −a·b: the sum cancels, and the product's error term is most of the result
  for (int i = 0; i < 500000; ++i) {
    const double a = t.draw(-20, 20), b = t.draw(-20, 20), p = a * b;
    std::uint64_t cb;
    const double neg = -p;
    std::memcpy(&cb, &neg, 8);
    t.check(a, b, t.bits(cb + (t.g() % 9) - 4));
    t.check(a, b, -p * (1 + std::ldexp(1.0, -static_cast<int>(t.g() % 60))));
  }
  // ties: a·b exact integers (27-bit factors) plus integers of 55 bits, so that the exact sum lies
  // halfway between two doubles at a quarter of the triples
  for (int i = 0; i < 500000; ++i) {
    const double a = static_cast<double>((t.g() >> 37) | 1), b = static_cast<double>((t.g() >> 37) | 1);
    const double c = static_cast<double>(t.g() >> 9);
    t.check(std::ldexp(a, static_cast<int>(t.g() % 3) - 1), b, (t.g() & 1) ? c : -c);
    const double a2 = static_cast<double>((t.g() >> 37) | (1ULL << 26)), b2 = static_cast<double>((t.g() >> 37) | (1ULL << 26));
    t.check(a2, -b2, std::ldexp(static_cast<double>(t.g() % 64) - 32, static_cast<int>(t.g() % 6)));
  }
  // the borders of the fast range, and any bit pattern at all (mostly std::fma's range)
  for (int i = 0; i < 500000; ++i) {
    const double a = t.draw(-500, 500), b = t.draw(-500, 500), p = a * b;
    t.check(a, b, -p);
    t.check(a, b, t.draw(-1022, 1023));
    t.check(a, b, -p * (1 + 0x1p-30));
    t.check(t.bits(t.g()), t.bits(t.g()), t.bits(t.g()));
  }
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double edges[] = {0.0, -0.0, 1.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023, inf, -inf, nan, 0x1p500, 0x1p501,
                          0x1p-500, 0x1p-501, 0x1.fffffffffffffp500, 0x1p900, 0x1p901, 0x1p-450, 0x1.8p-450, 3.0, 0x1p-900};
  for (double a : edges)
    for (double b : edges)
      for (double c : edges) {
        t.check(a, b, c);
        t.check(-a, b, -c);
        t.check(a * 1.1, b, c);
      }
  CHECK(t.n > 5000000);
  CHECK(t.differ == 0);
}

TEST_CASE("fused_soft by hand: one rounding where a·b + c in two would round twice", "[fused]") {
  // (1 + 2^-52)·(1 − 2^-52) = 1 − 2^-104: rounded alone it is 1, and 1 − 1 = 0; fused, 1 − 2^-104 − 1
  const double a = 1 + 0x1p-52, b = 1 - 0x1p-52;
  CHECK(a * b - 1.0 == 0.0);
  CHECK(attn::fused_soft(a, b, -1.0) == -0x1p-104);
  // a tie broken by the product's tail: (1 + 2^-52)² − 3·2^-53 = 1 + 2^-53 + 2^-104, just above the
  // halfway point 1 + 2^-53, so it rounds up; rounded twice it lands on the tie and goes to even, 1
  const double u = 1 + 0x1p-52;
  CHECK(u * u - 3 * 0x1p-53 == 1.0);
  CHECK(attn::fused_soft(u, u, -3 * 0x1p-53) == 1 + 0x1p-52);
  CHECK(attn::fused_soft(2.0, 3.0, 1.0) == 7.0);
  CHECK(std::signbit(attn::fused_soft(-0.0, 1.0, -0.0)));  // −0 + −0 stays −0
  CHECK(!std::signbit(attn::fused_soft(1.0, 1.0, -1.0)));   // an exact zero sum is +0
}

}  // namespace file_test_fused
