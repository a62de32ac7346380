#include "seed_stats.h"

#include <algorithm>
#include <cmath>

namespace attn::train {

SeedSpread seed_spread(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  return {median, values.front(), values.back()};
}

Comparison compare_spreads(const SeedSpread& base, const SeedSpread& other) {
  Comparison c;
  c.diff = other.median - base.median;
  c.spread = std::max(base.range(), other.range());
  c.within = std::fabs(c.diff) <= c.spread;
  c.ratio = c.spread > 0 ? std::fabs(c.diff) / c.spread : 0.0;
  return c;
}

}  // namespace attn::train
