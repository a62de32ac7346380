#include "gqa.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace attn {

namespace {

void require_groups(const char* op, std::size_t H, std::size_t G) {
  if (G == 0 || H % G != 0)
    throw std::invalid_argument(fmt::format("{}: {} query heads is not a multiple of {} KV heads", op, H, G));
}

}  // namespace

Tensor group_of_head(std::size_t n_heads, std::size_t n_kv_heads) {
  require_groups("group_of_head", n_heads, n_kv_heads);
  Tensor g({n_heads});  // (H)
  for (std::size_t i = 0; i < n_heads; ++i) g.data[i] = static_cast<double>(i / (n_heads / n_kv_heads));
  return g;
}

Tensor expand_kv_weights(const Tensor& W, std::size_t n_heads, std::size_t n_kv_heads) {
  require_groups("expand_kv_weights", n_heads, n_kv_heads);
  if (W.rank() != 2 || W.dim(1) % n_kv_heads != 0)
    throw std::invalid_argument("expand_kv_weights: W " + shape_str(W.shape) + " is not (D, G·Dh)");
  std::size_t Dh = W.dim(1) / n_kv_heads;
  std::vector<Tensor> blocks;  // H blocks of (D, Dh)
  for (std::size_t i = 0; i < n_heads; ++i) blocks.push_back(col_block(W, i / (n_heads / n_kv_heads), Dh));
  return concat_cols(blocks);  // (D, H*Dh)
}

GroupedPass gqa_by_group(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
                         const Tensor& W_O, std::size_t n_heads, std::size_t n_kv_heads, bool causal) {
  require_groups("gqa_by_group", n_heads, n_kv_heads);
  std::size_t H = n_heads, G = n_kv_heads, r = H / G, T = X.dim(0), Dh = W_Q.dim(1) / H;
  double inv_sqrt_dk = 1.0 / std::sqrt(static_cast<double>(Dh));
  std::vector<Tensor> scores(H), weights(H), heads(H);
  for (std::size_t j = 0; j < G; ++j) {
    // pass 1: the group's one key and value, and its r query heads stacked into rows
    Tensor K_j = matmul(X, col_block(W_K, j, Dh));  // (T, Dh)
    Tensor V_j = matmul(X, col_block(W_V, j, Dh));  // (T, Dh)
    Tensor Q_j({r * T, Dh});  // (r*T, Dh): row m*T + t is query head j*r + m, token t
    for (std::size_t m = 0; m < r; ++m) {
      Tensor q = matmul(X, col_block(W_Q, j * r + m, Dh));  // (T, Dh)
      std::copy(q.data.begin(), q.data.end(), Q_j.data.begin() + static_cast<std::ptrdiff_t>(m * T * Dh));
    }
    // pass 2: one matmul against K_j for all r heads, mask, softmax, one matmul with V_j
    Tensor S = scale(matmul(Q_j, transpose(K_j)), inv_sqrt_dk);  // (r*T, T)
    if (causal)
      for (std::size_t row = 0; row < r * T; ++row)
        for (std::size_t k = row % T + 1; k < T; ++k) S(row, k) = -std::numeric_limits<double>::infinity();
    Tensor P = softmax_rows(S);  // (r*T, T)
    Tensor O = matmul(P, V_j);   // (r*T, Dh)
    // pass 3: unstack the r heads
    for (std::size_t m = 0; m < r; ++m) {
      scores[j * r + m] = row_block(S, m, T);   // (T, T)
      weights[j * r + m] = row_block(P, m, T);  // (T, T)
      heads[j * r + m] = row_block(O, m, T);    // (T, Dh)
    }
  }
  GroupedPass p;
  p.scores = stack0(scores);    // (H, T, T)
  p.weights = stack0(weights);  // (H, T, T)
  p.heads = stack0(heads);      // (H, T, Dh)
  p.output = matmul(merge_heads(p.heads), W_O);  // (T, D)
  return p;
}

std::int64_t kv_cache_vectors(std::int64_t n_kv_heads) { return 2 * n_kv_heads; }

std::int64_t kv_cache_elements(std::int64_t n_kv_heads, std::int64_t head_dim) { return 2 * n_kv_heads * head_dim; }

Fraction cache_reduction(std::int64_t n_heads, std::int64_t n_kv_heads) {
  std::int64_t num = n_heads - n_kv_heads, g = std::gcd(num, n_heads);
  return {num / g, n_heads / g};
}

}  // namespace attn
