#pragma once
// Scaled dot-product attention and its multi-head / grouped-query forms, in plain passes.
// Row-vector convention as in the chapter: X is (T, D), a projection is X @ W with W (D_in, D_out).
//   T = tokens, D = d_model, H = query heads, G = key/value heads, Dh = head width d_k.
#include <cstdint>

#include "tensor.h"

namespace attn {

// bmm: a (B, M, K) @ b (B, K, N) -> (B, M, N), one matmul per leading index.
Tensor bmm(const Tensor& a, const Tensor& b);
// bmm_nt: a (B, M, K) @ b (B, N, K)ᵀ -> (B, M, N).
Tensor bmm_nt(const Tensor& a, const Tensor& b);

// scores: Q (T, Dh) or (H, T, Dh) against K of the same shape -> Q Kᵀ / √Dh, (T, T) or (H, T, T).
Tensor attention_scores(const Tensor& Q, const Tensor& K);

// Everything one attention layer computes, named as in the chapter.
// The one attention core every lesson's attention goes through (mha, gqa/mqa, block, the
// symmetry forward, MLA's naive path):
//   attend: scores (H, T, T) before the mask, V heads (H, T, Dv) ->
//           masked scores, weights = row softmax (masked entries exactly 0), heads = weights V
//   multi_head_attention: the same with scores = Q_i K_iᵀ / √Dh from Q, K heads (H, T, Dh)
struct HeadsAttention {
  Tensor scores;   // (H, T, T), future positions -inf when causal
  Tensor weights;  // (H, T, T)
  Tensor heads;    // (H, T, Dv)
};
HeadsAttention attend(Tensor scores, const Tensor& V_heads, bool causal);
HeadsAttention multi_head_attention(const Tensor& Q_heads, const Tensor& K_heads, const Tensor& V_heads, bool causal);

struct AttentionPass {
  Tensor Q, K, V;                    // (T, H*Dh), (T, G*Dh), (T, G*Dh): the fused projections
  Tensor Q_heads, K_heads, V_heads;  // (H, T, Dh), (G, T, Dh), (G, T, Dh)
  Tensor K_expanded, V_expanded;     // (H, T, Dh): each group repeated for its query heads
  Tensor scores;                     // (H, T, T): Q_i K_iᵀ / √Dh, masked entries -inf
  Tensor weights;                    // (H, T, T): row softmax of scores, masked entries exactly 0
  Tensor heads;                      // (H, T, Dh): head_i = weights_i V_i
  Tensor concat;                     // (T, H*Dh): heads side by side
  Tensor output;                     // (T, D): concat W_O
};

// Multi-head attention with G key/value heads: G = H is MHA, 1 < G < H is GQA, G = 1 is MQA.
// Query head i reads KV group i / (H / G). Requires H % G == 0 and W shapes
// W_Q (D, H*Dh), W_K (D, G*Dh), W_V (D, G*Dh), W_O (H*Dh, D).
AttentionPass grouped_attention(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
                                const Tensor& W_O, std::size_t n_heads, std::size_t n_kv_heads, bool causal);

// The output as a sum over heads: Σ_i head_i W_O,i, where W_O,i is row block i of W_O.
Tensor output_as_head_sum(const Tensor& heads, const Tensor& W_O);
// head_contributions: heads (H, T, Dh), W_O (H*Dh, D) -> (H, T, D), block i = head_i W_O,i
// (W_O,i = rows i·Dh … (i+1)·Dh − 1 of W_O). sum_over_heads: (H, T, D) -> (T, D), summed in head order.
Tensor head_contributions(const Tensor& heads, const Tensor& W_O);
Tensor sum_over_heads(const Tensor& parts);

// Parameters of one attention layer: W_Q and W_O are D × H·Dh, W_K and W_V are D × G·Dh.
// With Dh = D / H and G = H this is the chapter's 4·D².
std::int64_t attention_param_count(std::int64_t d_model, std::int64_t n_heads, std::int64_t n_kv_heads,
                                   std::int64_t head_dim);

}  // namespace attn
