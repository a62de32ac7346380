// The generator is ours so that every compiler and platform draws the same numbers.
#include <catch2/catch.hpp>

#include <cmath>

#include "random.h"

using namespace attn;

TEST_CASE("SplitMix64 reference values", "[random]") {
  // The first outputs of SplitMix64 seeded with 0, as published with the algorithm
  // (Vigna's splitmix64.c): 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F.
  Rng rng(0);
  CHECK(rng.next_u64() == 0xE220A8397B1DCDAFULL);
  CHECK(rng.next_u64() == 0x6E789E6AA1B965F4ULL);
  CHECK(rng.next_u64() == 0x06C45D188009454FULL);
}

TEST_CASE("uniform stays in 0 to 1 and normal has mean 0, variance 1", "[random]") {
  Rng rng(42);
  double sum = 0, sum_sq = 0;
  int outside = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double u = rng.uniform();
    if (u < 0.0 || u >= 1.0) ++outside;
    double z = rng.normal();
    sum += z;
    sum_sq += z * z;
  }
  // standard error of the mean is 1/√n ≈ 0.0022; of the variance ≈ √(2/n) ≈ 0.0032
  CHECK(outside == 0);
  CHECK(std::fabs(sum / n) < 0.01);
  CHECK(std::fabs(sum_sq / n - 1.0) < 0.015);
}

TEST_CASE("the same seed gives the same weights, another seed different ones", "[random]") {
  Rng a(7), b(7), c(8);
  Tensor wa = init_weight(a, 8, 4), wb = init_weight(b, 8, 4), wc = init_weight(c, 8, 4);
  CHECK(wa.data == wb.data);
  CHECK(wa.data != wc.data);
  CHECK(wa.shape == Shape{8, 4});
}
