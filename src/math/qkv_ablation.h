#pragma once
// The four ablations of the `qkv-roles` lesson: what attention computes when some of W_Q, W_K,
// W_V are taken away. One head of full width (Dh = D), no mask, so the four are comparable.
//   T = tokens, D = d_model. W_Q, W_K, W_V are (D, D).
#include <cstddef>
#include <vector>

#include "tensor.h"

namespace attn {

struct QkvAblation {
  // (a) no projections at all: Q = K = V = X
  Tensor scores_raw;      // (T, T) X Xᵀ / √D — symmetric
  Tensor weights_raw;     // (T, T)
  Tensor output_raw;      // (T, D) weights_raw X
  // (b) only V learned: nothing to score with, so every weight is 1/T
  Tensor weights_only_v;  // (T, T) all 1/T
  Tensor V;               // (T, D) X W_V
  Tensor output_only_v;   // (T, D) every row the mean of V
  // (c) Q and K learned, V = X
  Tensor Q, K;            // (T, D) X W_Q, X W_K
  Tensor scores_qk;       // (T, T) Q Kᵀ / √D
  Tensor weights_qk;      // (T, T)
  Tensor output_qk;       // (T, D) weights_qk X
  // (d) full: Q, K and V learned
  Tensor weights_full;    // (T, T) the same pattern as (c): W_V plays no part in it
  Tensor output_full;     // (T, D) weights_full V
};

QkvAblation qkv_ablations(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V);

// Rows of a (T, T) weights matrix whose largest weight is on the diagonal (the token itself),
// strictly larger than every other weight in the row; 0-based row indices.
std::vector<std::size_t> self_attending_rows(const Tensor& weights);
// max |S - Sᵀ| of a square matrix: exactly 0 for a symmetric one.
double asymmetry(const Tensor& S);
// max over rows i and columns c of |x[i][c] - x[0][c]|: 0 when every row is the same.
double max_row_spread(const Tensor& x);

}  // namespace attn
