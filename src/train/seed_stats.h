#pragma once
// What a claim about training is computed from: several runs that differ only in their seed, their
// median and range, and a difference compared with that range (lessons tradeoffs, specialize and
// symmetry say "within the spread of N seeds" from these, never from one run).
#include <cstddef>
#include <vector>

namespace attn::train {

struct SeedSpread {
  double median = 0.0, lo = 0.0, hi = 0.0;  // over the seeds
  double range() const { return hi - lo; }
};
SeedSpread seed_spread(std::vector<double> values);
// other − base on the medians, against the larger of the two seed ranges: within the spread when
// |diff| ≤ that range; otherwise ratio = |diff| / range (0 when the range is 0).
struct Comparison {
  double diff = 0.0, spread = 0.0, ratio = 0.0;
  bool within = true;
};
Comparison compare_spreads(const SeedSpread& base, const SeedSpread& other);

}  // namespace attn::train

namespace attn::train {

// Two variants trained at the same seeds see the same windows in the same order (the seed draws
// them), so their runs are paired: d_s = other_s − base_s, seed by seed.
struct PairedTest {
  std::size_t n = 0, up = 0, down = 0;  // seeds; seeds with d > 0; seeds with d < 0
  double mean = 0.0, sd = 0.0;          // mean of d and its sample standard deviation (n − 1)
  double t = 0.0;                       // mean / (sd / √n), ±∞ when every d is the same and not 0
  std::size_t df = 0;                   // n − 1
  double p_t = 1.0;                     // two-sided p of the paired t-test
  double p_sign = 1.0;                  // two-sided p of the sign test (ties dropped)
};
// base and other: one loss per seed, in the same seed order (same length, at least 2).
PairedTest paired_test(const std::vector<double>& base, const std::vector<double>& other);
// P(|T| ≥ |t|) for Student's t with df degrees of freedom (df ≥ 1): Abramowitz & Stegun 26.7.3
// and 26.7.4, finite sums in θ = atan(|t|/√df) — square roots and one arctangent for odd df.
double student_t_two_sided_p(double t, std::size_t df);
// 2 · P(X ≤ min(up, down)) for X ~ Binomial(up + down, 1/2), at most 1.
double sign_test_p(std::size_t up, std::size_t down);

}  // namespace attn::train
