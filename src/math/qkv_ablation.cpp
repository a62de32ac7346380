#include "qkv_ablation.h"

#include <cmath>

#include "attention.h"

namespace attn {

QkvAblation qkv_ablations(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V) {
  QkvAblation a;
  std::size_t T = X.dim(0);
  // (a) no projections: the raw embeddings play all three roles
  a.scores_raw = attention_scores(X, X);        // (T, T) X Xᵀ / √D
  a.weights_raw = softmax_rows(a.scores_raw);   // (T, T)
  a.output_raw = matmul(a.weights_raw, X);      // (T, D)
  // (b) only W_V: without Q and K every score is the same, so the softmax is uniform
  a.weights_only_v = softmax_rows(Tensor({T, T}));  // (T, T) softmax of zeros = 1/T
  a.V = matmul(X, W_V);                              // (T, D)
  a.output_only_v = matmul(a.weights_only_v, a.V);   // (T, D)
  // (c) W_Q and W_K: a learned pattern over the untransformed content X
  a.Q = matmul(X, W_Q);                         // (T, D)
  a.K = matmul(X, W_K);                         // (T, D)
  a.scores_qk = attention_scores(a.Q, a.K);     // (T, T)
  a.weights_qk = softmax_rows(a.scores_qk);     // (T, T)
  a.output_qk = matmul(a.weights_qk, X);        // (T, D)
  // (d) all three
  a.weights_full = softmax_rows(attention_scores(a.Q, a.K));  // (T, T)
  a.output_full = matmul(a.weights_full, a.V);                // (T, D)
  return a;
}

std::vector<std::size_t> self_attending_rows(const Tensor& weights) {
  std::size_t T = weights.dim(0);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < T; ++i) {
    bool self = true;
    for (std::size_t j = 0; j < T; ++j)
      if (j != i && weights(i, j) >= weights(i, i)) self = false;
    if (self) rows.push_back(i);
  }
  return rows;
}

double asymmetry(const Tensor& S) { return max_abs_diff(S, transpose(S)); }

double max_row_spread(const Tensor& x) {
  double worst = 0.0;
  for (std::size_t i = 1; i < x.dim(0); ++i)
    for (std::size_t c = 0; c < x.dim(1); ++c) worst = std::max(worst, std::fabs(x(i, c) - x(0, c)));
  return worst;
}

}  // namespace attn
