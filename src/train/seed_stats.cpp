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

namespace attn::train {

namespace {

constexpr double kPi = 3.141592653589793;

// atan(x) for x ≥ 0 from + − × ÷ and √ only (IEEE-exact, so the same bits everywhere): three
// halvings atan(x) = 2·atan(x / (1 + √(1 + x²))) bring x under tan(π/16) ≈ 0.2, where the
// series x − x³/3 + x⁵/5 − … has converged by its 30th term.
double atan_nonneg(double x) {
  if (std::isinf(x)) return kPi / 2;
  double scale = 1.0;
  for (int i = 0; i < 3; ++i) x = x / (1.0 + std::sqrt(1.0 + x * x)), scale *= 2.0;
  const double x2 = x * x;
  double sum = 0.0, power = x;
  for (int k = 0; k < 30; ++k, power *= x2) sum += (k % 2 ? -power : power) / static_cast<double>(2 * k + 1);
  return scale * sum;
}

}  // namespace

double student_t_two_sided_p(double t, std::size_t df) {
  const double a = std::fabs(t), nu = static_cast<double>(df);
  if (std::isinf(a)) return 0.0;
  const double r = std::sqrt(a * a + nu);
  const double sin_th = a / r, cos_th = std::sqrt(nu) / r, cos2 = cos_th * cos_th;
  double inside;  // A(t|ν) = P(|T| < |t|)
  if (df % 2 == 0) {  // sinθ·(1 + ½cos²θ + (1·3)/(2·4)cos⁴θ + … up to cos^(ν−2)θ)
    double term = 1.0, sum = 1.0;
    for (std::size_t k = 1; 2 * k <= df - 2; ++k) term *= cos2 * static_cast<double>(2 * k - 1) / static_cast<double>(2 * k), sum += term;
    inside = sin_th * sum;
  } else {  // (2/π)·(θ + sinθ·(cosθ + (2/3)cos³θ + … up to cos^(ν−2)θ)), the sum empty for ν = 1
    const double theta = atan_nonneg(a / std::sqrt(nu));
    double sum = 0.0;
    if (df > 1) {
      double term = cos_th;
      sum = term;
      for (std::size_t k = 1; 2 * k + 1 <= df - 2; ++k) term *= cos2 * static_cast<double>(2 * k) / static_cast<double>(2 * k + 1), sum += term;
    }
    inside = 2.0 / kPi * (theta + sin_th * sum);
  }
  return std::clamp(1.0 - inside, 0.0, 1.0);
}

double sign_test_p(std::size_t up, std::size_t down) {
  const std::size_t n = up + down, k = std::min(up, down);
  if (n == 0) return 1.0;
  double choose = 1.0, tail = 0.0;  // C(n, i), Σ_{i ≤ k} C(n, i)
  for (std::size_t i = 0; i <= k; ++i) {
    tail += choose;
    choose = choose * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return std::min(1.0, 2.0 * tail / std::pow(2.0, static_cast<double>(n)));
}

PairedTest paired_test(const std::vector<double>& base, const std::vector<double>& other) {
  PairedTest p;
  p.n = std::min(base.size(), other.size());
  if (p.n < 2) return p;
  std::vector<double> d(p.n);  // (n) other − base, seed by seed
  for (std::size_t s = 0; s < p.n; ++s) {
    d[s] = other[s] - base[s];
    p.up += d[s] > 0, p.down += d[s] < 0;
    p.mean += d[s];
  }
  p.mean /= static_cast<double>(p.n);
  double ss = 0.0;
  for (double x : d) ss += (x - p.mean) * (x - p.mean);
  p.sd = std::sqrt(ss / static_cast<double>(p.n - 1));
  p.df = p.n - 1;
  const double se = p.sd / std::sqrt(static_cast<double>(p.n));
  p.t = se > 0 ? p.mean / se : p.mean == 0 ? 0.0 : std::copysign(INFINITY, p.mean);
  p.p_t = student_t_two_sided_p(p.t, p.df);
  p.p_sign = sign_test_p(p.up, p.down);
  return p;
}

}  // namespace attn::train
