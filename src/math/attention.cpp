#include "attention.h"

#include <cmath>
#include <stdexcept>

#include "matmul.h"
#include "parallel.h"

namespace attn {

namespace {

// B products (M, K) @ (K, N), operand i at a + i*M*K and b + i*K*N, each written straight into
// its place in the stacked (B, M, N) result: one allocation, no per-slice tensors, no stack copy.
Tensor stacked_products(const double* a, const double* b, std::size_t B, std::size_t M, std::size_t K,
                        std::size_t N) {
  Tensor out({B, M, N});
  for (std::size_t i = 0; i < B; ++i) gemm(a + i * M * K, b + i * K * N, &out.data[i * M * N], M, N, K);
  return out;
}

}  // namespace

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (a.rank() != 3 || b.rank() != 3 || a.dim(0) != b.dim(0) || a.dim(2) != b.dim(1))
    throw std::invalid_argument("bmm: shapes " + shape_str(a.shape) + " and " + shape_str(b.shape) +
                                " do not fit (B, M, K) @ (B, K, N)");
  return stacked_products(a.data.data(), b.data.data(), a.dim(0), a.dim(1), a.dim(2), b.dim(2));
}

Tensor bmm_nt(const Tensor& a, const Tensor& b) {
  if (a.rank() != 3 || b.rank() != 3 || a.dim(0) != b.dim(0) || a.dim(2) != b.dim(2))
    throw std::invalid_argument("bmm_nt: shapes " + shape_str(a.shape) + " and " + shape_str(b.shape) +
                                " do not fit (B, M, K) @ (B, N, K)ᵀ");
  const std::size_t B = a.dim(0), M = a.dim(1), K = a.dim(2), N = b.dim(1);
  Tensor out({B, M, N});
  for (std::size_t i = 0; i < B; ++i) {
    const Tensor bt = transpose(slice0(b, i));                                     // (K, N)
    gemm(&a.data[i * M * K], bt.data.data(), &out.data[i * M * N], M, N, K);  // (M, K) @ (K, N)
  }
  return out;
}

Tensor attention_scores(const Tensor& Q, const Tensor& K) {
  double inv_sqrt_dk = 1.0 / std::sqrt(static_cast<double>(Q.shape.back()));
  if (Q.rank() == 2) return scale(matmul(Q, transpose(K)), inv_sqrt_dk);  // (T, T)
  Tensor scores = bmm_nt(Q, K);  // (H, T, T), scaled in place: the bits of scale(), no second copy
  scale_in_place(scores, inv_sqrt_dk);
  return scores;
}

HeadsAttention attend(Tensor scores, const Tensor& V_heads, bool causal) {
  HeadsAttention a;
  a.scores = causal ? causal_mask(scores) : std::move(scores);  // (H, T, T)
  a.weights = softmax_rows(a.scores);                            // (H, T, T)
  a.heads = bmm(a.weights, V_heads);                             // (H, T, Dv)
  return a;
}

HeadsAttention multi_head_attention(const Tensor& Q_heads, const Tensor& K_heads, const Tensor& V_heads, bool causal) {
  return attend(attention_scores(Q_heads, K_heads), V_heads, causal);  // scores (H, T, T)
}

AttentionPass grouped_attention(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
                                const Tensor& W_O, std::size_t n_heads, std::size_t n_kv_heads, bool causal) {
  if (n_kv_heads == 0 || n_heads % n_kv_heads != 0)
    throw std::invalid_argument("grouped_attention: heads must be a multiple of kv heads");
  AttentionPass p;
  // pass 1: the fused projections
  p.Q = matmul(X, W_Q);  // (T, H*Dh)
  p.K = matmul(X, W_K);  // (T, G*Dh)
  p.V = matmul(X, W_V);  // (T, G*Dh)
  // pass 2: split into heads; each KV group is repeated for the query heads that read it
  p.Q_heads = split_heads(p.Q, n_heads);     // (H, T, Dh)
  p.K_heads = split_heads(p.K, n_kv_heads);  // (G, T, Dh)
  p.V_heads = split_heads(p.V, n_kv_heads);  // (G, T, Dh)
  p.K_expanded = repeat_kv(p.K_heads, n_heads);  // (H, T, Dh)
  p.V_expanded = repeat_kv(p.V_heads, n_heads);  // (H, T, Dh)
  // pass 3: scores, mask, softmax, weighted sum of values — per head
  HeadsAttention a = multi_head_attention(p.Q_heads, p.K_expanded, p.V_expanded, causal);
  p.scores = std::move(a.scores);    // (H, T, T)
  p.weights = std::move(a.weights);  // (H, T, T)
  p.heads = std::move(a.heads);      // (H, T, Dh)
  // pass 4: concat and the output projection
  p.concat = merge_heads(p.heads);            // (T, H*Dh)
  p.output = matmul(p.concat, W_O);           // (T, D)
  return p;
}

Tensor head_contributions(const Tensor& heads, const Tensor& W_O) {
  // heads (H, T, Dh), W_O (H*Dh, D) -> (H, T, D): block i is head_i W_O,i (W_O's rows i*Dh …)
  if (heads.rank() != 3 || W_O.rank() != 2 || W_O.dim(0) != heads.dim(0) * heads.dim(2))
    throw std::invalid_argument("head_contributions: shapes " + shape_str(heads.shape) + " and " + shape_str(W_O.shape) +
                                " do not fit (H, T, Dh) and (H*Dh, D)");
  // W_O's rows are H blocks of Dh: stored as (H, Dh, D), so head i's block is the i-th operand
  return stacked_products(heads.data.data(), W_O.data.data(), heads.dim(0), heads.dim(1), heads.dim(2), W_O.dim(1));
}

Tensor sum_over_heads(const Tensor& parts) {
  // parts (H, T, D) -> (T, D): 0 + part_1 + part_2 + …, in head order for every number; the
  // numbers are independent, so they are split across threads (no per-head copies)
  if (parts.rank() != 3) throw std::invalid_argument("sum_over_heads: expected (H, T, D), got " + shape_str(parts.shape));
  const std::size_t H = parts.dim(0), n = parts.dim(1) * parts.dim(2);
  Tensor sum({parts.dim(1), parts.dim(2)});
  parallel_for(n, 1 << 14, [&](std::size_t j0, std::size_t j1) {
    for (std::size_t i = 0; i < H; ++i) {
      const double* part = &parts.data[i * n];
      for (std::size_t j = j0; j < j1; ++j) sum.data[j] = sum.data[j] + part[j];
    }
  });
  return sum;
}

Tensor output_as_head_sum(const Tensor& heads, const Tensor& W_O) {
  // heads (H, T, Dh), W_O (H*Dh, D) -> (T, D)
  return sum_over_heads(head_contributions(heads, W_O));
}

std::int64_t attention_param_count(std::int64_t d_model, std::int64_t n_heads, std::int64_t n_kv_heads,
                                   std::int64_t head_dim) {
  return 2 * d_model * n_heads * head_dim + 2 * d_model * n_kv_heads * head_dim;
}

}  // namespace attn
