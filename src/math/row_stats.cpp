#include "row_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "parallel.h"

namespace attn {

namespace {

void require_matrix(const char* op, const Tensor& x) {
  if (x.rank() != 2) throw std::invalid_argument(std::string(op) + ": expected (T, C), got " + shape_str(x.shape));
}

}  // namespace

Tensor row_norms(const Tensor& x) {
  require_matrix("row_norms", x);
  Tensor out({x.dim(0)});  // (T)
  for (std::size_t i = 0; i < x.dim(0); ++i) {
    double s = 0.0;
    for (std::size_t c = 0; c < x.dim(1); ++c) s += x(i, c) * x(i, c);
    out.data[i] = std::sqrt(s);
  }
  return out;
}

Tensor row_means(const Tensor& x) {
  require_matrix("row_means", x);
  Tensor out({x.dim(0)});  // (T)
  for (std::size_t i = 0; i < x.dim(0); ++i) {
    for (std::size_t c = 0; c < x.dim(1); ++c) out.data[i] += x(i, c);
    out.data[i] /= static_cast<double>(x.dim(1));
  }
  return out;
}

std::size_t argmin(const Tensor& v) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.numel(); ++i)
    if (v.data[i] < v.data[best]) best = i;
  return best;
}

double max_abs_diff_except_row(const Tensor& a, const Tensor& b, std::size_t skip) {
  require_matrix("max_abs_diff_except_row", a);
  if (a.shape != b.shape)
    throw std::invalid_argument("max_abs_diff_except_row: shapes " + shape_str(a.shape) + " and " + shape_str(b.shape));
  double worst = 0.0;
  for (std::size_t i = 0; i < a.dim(0); ++i)
    if (i != skip)
      for (std::size_t c = 0; c < a.dim(1); ++c) worst = std::max(worst, std::fabs(a(i, c) - b(i, c)));
  return worst;
}

Spread spread_of(const Tensor& x) {
  if (x.numel() == 0) throw std::invalid_argument("spread_of: an empty tensor");
  Spread s{x.data[0], x.data[0], 0.0};
  double sum = 0.0;
  for (double v : x.data) {
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  s.mean = sum / static_cast<double>(x.numel());
  return s;
}

std::size_t strongest_column(const Tensor& weights, std::size_t b, std::size_t r) {
  std::size_t T = weights.shape.back(), R = weights.shape[weights.rank() - 2];
  const double* row = &weights.data[(b * R + r) * T];
  std::size_t best = 0;
  for (std::size_t j = 1; j < T; ++j)
    if (row[j] > row[best]) best = j;
  return best;
}

double max_row_sum_error(const Tensor& weights) {
  std::size_t T = weights.shape.back(), rows = weights.numel() / T;
  // each row's |Σ − 1| on any thread (a row's sum in order), then the largest: a max is exact
  std::vector<double> error(rows);
  parallel_for(rows, std::max<std::size_t>(1, (std::size_t{1} << 14) / T), [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r) {
      double sum = 0.0;
      for (std::size_t j = 0; j < T; ++j) sum += weights.data[r * T + j];
      error[r] = std::fabs(sum - 1.0);
    }
  });
  double worst = 0.0;
  for (double e : error) worst = std::max(worst, e);
  return worst;
}

}  // namespace attn
