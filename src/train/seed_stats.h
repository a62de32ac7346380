#pragma once
// What a claim about training is computed from: several runs that differ only in their seed, their
// median and range, and a difference compared with that range (lessons tradeoffs, specialize and
// symmetry say "within the spread of N seeds" from these, never from one run).
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
