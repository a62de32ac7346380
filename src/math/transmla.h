#pragma once
// TransMLA's first observation (Meng et al., arXiv:2502.07864): a GQA layer is an MLA layer.
// Row-vector convention: X is (T, D), a projection is X @ W with W (D_in, D_out).
//   T tokens, D = d_model, H query heads, G KV heads (groups), Dh head width,
//   C = d_c = 2·G·Dh (the exact latent), r ≤ min(D, C) a compressed latent width.
//
//   W_DKV = [W_K | W_V]                         (D, C)      the G keys' and G values' columns stacked
//   W_UK  = copy: row j·Dh + a -> column i·Dh + a for every head i of group j      (C, H*Dh), 0/1
//   W_UV  = copy: row G·Dh + j·Dh + a -> column i·Dh + a                           (C, H*Dh), 0/1
//   c_KV  = X W_DKV = [K | V]                   (T, C)      <- the cache: exactly GQA's 2·G·Dh numbers
//   K_C   = c_KV W_UK = K repeated for each head of its group; V_C likewise — GQA's expanded view.
//
// Compression (the MHA2MLA / TransMLA step, here on the weights alone): the SVD
// W_DKV = U diag(S) Vᵀ, kept to rank r: W_DKV,r = U_r diag(S_r) (D, r) and the up-projections
// through Vᵀ: W_UK,r = V_rᵀ W_UK, W_UV,r = V_rᵀ W_UV (r, H*Dh). At r = rank(W_DKV) the layer is
// unchanged; below it, the output moves, and the cache is r numbers per token.
#include <cstdint>
#include <vector>

#include "mla.h"
#include "svd.h"
#include "tensor.h"

namespace attn {

struct TransMlaDims {
  std::size_t T, D, H, G, Dh;
  std::size_t C() const { return 2 * G * Dh; }
};

// The copy matrices: (2·G·Dh, H·Dh); `value_half` false gives W_UK, true gives W_UV.
Tensor gqa_up_projection(std::size_t n_heads, std::size_t n_kv_heads, std::size_t head_dim, bool value_half);

// The GQA layer (W_Q (D, H*Dh), W_K and W_V (D, G*Dh), W_O (H*Dh, D)) as MLA weights with no
// query latent and no RoPE part: W_DKV = [W_K | W_V], W_UK, W_UV the copies, W_Q and W_O as they are.
MlaWeights gqa_as_mla(const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V, const Tensor& W_O,
                      std::size_t n_heads, std::size_t n_kv_heads);

// The rank-r layer from the SVD of exact.W_DKV (see above). W_Q and W_O are kept.
MlaWeights compress_latent(const MlaWeights& exact, const Svd& svd, std::size_t r);

// V_rᵀ W_UK (value_half false) or V_rᵀ W_UV (true) for the copy matrices of gqa_up_projection,
// gathered instead of multiplied: head i's block of columns is its group's block of rows of
// V_rᵀ. right (r, 2·G·Dh) = V_rᵀ -> (r, H*Dh). The same bits as
// matmul(right, gqa_up_projection(H, G, Dh, value_half)): matmul sums each entry in order from
// +0.0, and here one term is the entry times 1 and every other a product with 0, so the sum is
// that entry (x + 0.0: a −0.0 comes out as +0.0, as from the sum). r·H·Dh copies instead of
// r·2·G·Dh·H·Dh multiply-adds (1.7e10 at Llama 3 8B's sizes and r = 1024).
Tensor gathered_up_projection(const Tensor& right, std::size_t n_heads, std::size_t n_kv_heads, bool value_half);

// compress_latent for a GQA layer rewritten by gqa_as_mla (its W_UK, W_UV the copies), with the
// up-projections gathered: the same weights, bit for bit.
MlaWeights compress_gqa_latent(const MlaWeights& exact, const Svd& svd, std::size_t r, std::size_t n_heads,
                               std::size_t n_kv_heads);
// The same in place: w's W_DKV, W_UK and W_UV become the rank-r ones, W_Q and W_O are left as
// they are (the sweep reuses one copy of them for every rank: 2·D·H·Dh numbers, 268 MB at Llama 3 8B's sizes).
void set_compressed_gqa_latent(MlaWeights& w, const Svd& svd, std::size_t r, std::size_t n_heads, std::size_t n_kv_heads);

// The MLA dims of a (possibly compressed) latent of width r: Cq = 0, R = 0.
MlaDims transmla_mla_dims(const TransMlaDims& d, std::size_t r);

// The ranks r_1 < … < r_n (each 1 … K, K = min(D, C)) of a GQA layer rewritten by gqa_as_mla: the
// cache per token (r numbers), its share of GQA's 2·G·Dh, and how far the rank-r layer's output
// (compress_gqa_latent, then mla_naive) is from `reference` (T, D). n forwards of the layer.
struct RankSweep {
  Tensor rank;        // (n): r_1 … r_n
  Tensor cache_share; // (n): r / (2·G·Dh)
  Tensor max_error;   // (n): max |output_r − reference|
  Tensor rel_error;   // (n): ‖output_r − reference‖_F / ‖reference‖_F
};
RankSweep latent_rank_sweep(const Tensor& X, const MlaWeights& exact, const Svd& svd, const TransMlaDims& d,
                            const Tensor& reference, bool causal, const std::vector<std::size_t>& ranks);

// ‖a − b‖_F / ‖b‖_F (0 when both are zero).
double relative_frobenius_error(const Tensor& a, const Tensor& b);

}  // namespace attn
