#pragma once
// Per-row summaries of a (T, C) tensor, for narration: how big each token's vector is, its mean,
// which token stands out.
#include <cstddef>

#include "tensor.h"

namespace attn {

// row_norms: x (T, C) -> (T), the Euclidean length of each row.
Tensor row_norms(const Tensor& x);
// row_means: x (T, C) -> (T), the mean of each row.
Tensor row_means(const Tensor& x);
// argmin: the index of the smallest entry of v (any shape, flat index; the first one on ties).
std::size_t argmin(const Tensor& v);
// max |a - b| over every row but row `skip` of two (T, C) tensors.
double max_abs_diff_except_row(const Tensor& a, const Tensor& b, std::size_t skip);

// The smallest, largest and mean entry of a tensor of any shape (mean summed in storage order).
struct Spread {
  double min, max, mean;
};
Spread spread_of(const Tensor& x);

// For narration: in row r of a (T, T) weights matrix (or of block b of an (H, T, T) one), the
// column with the largest weight.
std::size_t strongest_column(const Tensor& weights, std::size_t b, std::size_t r);
// The largest |row sum − 1| over all rows of a weights tensor (0 up to rounding).
double max_row_sum_error(const Tensor& weights);

}  // namespace attn
