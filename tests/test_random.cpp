// The generator is ours so that every compiler and platform draws the same numbers.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "libm.h"
#include "random.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_random {

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

TEST_CASE("the batched sampler gives Box-Muller's numbers pair by pair, written out plainly", "[random]") {
  // The sampler visits each batch's angles in sorted order; a mix-up of indices would pair the
  // wrong sin/cos with the wrong radius. Here each pair is computed the textbook way from the
  // same uniforms (u1 rejected when 0, which seed 5 never draws) and compared bit for bit.
  const double k = 0.37;
  for (std::size_t n : {1u, 7u, 256u, 513u, 20000u}) {
    Rng draws(5), sampler(5);
    std::vector<double> want;
    while (want.size() < n) {
      double u1 = draws.uniform(), u2 = draws.uniform();
      // log_atanh: Box–Muller keeps the atanh form of log (libm.h), so the draws did not move when log
      // became table-driven
      double r = std::sqrt(-2.0 * attn::libm::detail::log_atanh(u1)), theta = 2.0 * M_PI * u2;
      double c = r * attn::libm::cos(theta), s = r * attn::libm::sin(theta);
      want.push_back(k * c);
      want.push_back(k * s);
    }
    std::vector<double> got(n);
    sampler.fill_normal(got.data(), n, k);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) differ += std::memcmp(&got[i], &want[i], sizeof(double)) != 0;
    INFO("n=" << n);
    CHECK(differ == 0);
  }
}

}  // namespace file_test_random
