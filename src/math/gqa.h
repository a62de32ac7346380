#pragma once
// Grouped-query attention (GQA) and multi-query attention (MQA): the pieces the gqa and mqa
// lessons add to attention.h. Row-vector convention as in the chapter.
//   T = tokens, D = d_model, H = query heads, G = key/value heads (groups), Dh = d_k,
//   r = H / G query heads per group. Query head i reads group i / r (0-based).
//
// Two code paths compute the same layer, so that the equivalences can be checked:
//   grouped_attention (attention.h)  repeats each group's K, V for its r heads ("expanded view")
//                                    and runs ordinary per-head attention on (H, T, Dh) tensors;
//   gqa_by_group (here)              never repeats anything: for each group it stacks the r query
//                                    heads into one (r·T, Dh) matrix and scores it against the
//                                    group's single K_j — each K/V group is read once, as GQA
//                                    kernels do.
// And an MHA whose K/V head weights are copies within each group (expand_kv_weights) computes
// the same layer again with G = H.
#include <cstdint>

#include "tensor.h"

namespace attn {

// group_of_head: (H), entry i = i / (H / G), the 0-based group query head i reads.
// Requires G > 0 and H % G == 0.
Tensor group_of_head(std::size_t n_heads, std::size_t n_kv_heads);

// expand_kv_weights: W (D, G·Dh) -> (D, H·Dh); head i's column block is a copy of the block of
// group i / (H / G). With these as W_K and W_V, plain MHA (G = H) equals GQA on W.
Tensor expand_kv_weights(const Tensor& W, std::size_t n_heads, std::size_t n_kv_heads);

// What gqa_by_group computes (same meaning as the AttentionPass fields of the same names).
struct GroupedPass {
  Tensor scores;   // (H, T, T), masked entries -inf
  Tensor weights;  // (H, T, T)
  Tensor heads;    // (H, T, Dh)
  Tensor output;   // (T, D)
};

// The second code path (see above). W_Q (D, H·Dh), W_K and W_V (D, G·Dh), W_O (H·Dh, D).
GroupedPass gqa_by_group(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
                         const Tensor& W_O, std::size_t n_heads, std::size_t n_kv_heads, bool causal);

// KV cache of one token in one layer: 2·G vectors (one K and one V per group), 2·G·Dh numbers.
std::int64_t kv_cache_vectors(std::int64_t n_kv_heads);
std::int64_t kv_cache_elements(std::int64_t n_kv_heads, std::int64_t head_dim);

// The cache saved against MHA as a reduced fraction (H − G) / H, e.g. H 12, G 4 -> {2, 3}.
struct Fraction {
  std::int64_t num, den;
};
Fraction cache_reduction(std::int64_t n_heads, std::int64_t n_kv_heads);

}  // namespace attn
