#pragma once
// Multi-head Latent Attention (MLA), as in DeepSeek-V2 (arXiv:2405.04434, section 2.1) and V3.
// Row-vector convention: X is (T, D), a projection is X @ W with W (D_in, D_out).
//   T = tokens, D = d_model, H = heads, Dh = per-head width d_h (of the compressed part),
//   C = KV latent width d_c, Cq = query latent width d_c' (0: no query latent),
//   R = decoupled RoPE width d_R (0: no RoPE part).
//
//   c_KV = X W_DKV                          (T, C)       <- cached
//   K_C  = c_KV W_UK,  V_C = c_KV W_UV      (T, H*Dh)
//   Q_C  = X W_Q   or   c_Q = X W_DQ, Q_C = c_Q W_UQ     (T, H*Dh)
//   Q_R  = RoPE(X W_QR  or  c_Q W_QR)       (T, H*R)     one RoPE query per head
//   K_R  = RoPE(X W_KR)                     (T, R)       <- cached, one key shared by all heads
//   scores_i = (Q_C,i K_C,iᵀ + Q_R,i K_Rᵀ) / √(Dh + R)
//   output = concat_i(softmax(scores_i) V_C,i) W_O
//
// Two code paths compute the same layer, as DeepSeek-V3's inference/model.py switches between
// "naive" and "absorb":
//   mla_naive     expands the latent into per-head K_C, V_C and runs MHA on them;
//   mla_absorbed  only ever reads the cache (c_KV, K_R): W_UK,i is folded into the query
//                 (q_absorbed_i = Q_C,i W_UK,iᵀ, width C) and W_UV,i into W_O,i (W_UV,i W_O,i).
// (DeepSeek's RMSNorm on c_KV and c_Q is left out: it changes the latent, not the algebra.)
#include <cstdint>
#include <string>
#include <vector>

#include "random.h"
#include "tensor.h"

namespace attn {

struct MlaDims {
  std::size_t T, D, H, Dh, C;
  std::size_t Cq = 0;  // query latent width; 0 = Q_C straight from X
  std::size_t R = 0;   // decoupled RoPE width; 0 = none (even when set)
};

struct MlaWeights {
  Tensor W_DKV;  // (D, C)       down-projection to the KV latent
  Tensor W_UK;   // (C, H*Dh)    up-projection to keys, head i = column block i
  Tensor W_UV;   // (C, H*Dh)    up-projection to values
  Tensor W_Q;    // (D, H*Dh)    when Cq == 0
  Tensor W_DQ;   // (D, Cq)      when Cq > 0
  Tensor W_UQ;   // (Cq, H*Dh)   when Cq > 0
  Tensor W_QR;   // (D or Cq, H*R)  when R > 0: the per-head RoPE queries
  Tensor W_KR;   // (D, R)       when R > 0: the shared RoPE key
  Tensor W_O;    // (H*Dh, D)
};

// Draws the weights in this order (each N(0, 1/d_in), row-major): W_DKV, W_UK, W_UV,
// then W_Q or (W_DQ, W_UQ), then W_QR, W_KR when R > 0, then W_O.
MlaWeights init_mla_weights(Rng& rng, const MlaDims& d);

struct MlaNaive {
  Tensor c_KV;     // (T, C)
  Tensor K_C;      // (T, H*Dh)
  Tensor V_C;      // (T, H*Dh)
  Tensor c_Q;      // (T, Cq), empty without a query latent
  Tensor Q_C;      // (T, H*Dh)
  Tensor Q_R_raw;  // (T, H*R), before the rotation; empty when R = 0
  Tensor K_R_raw;  // (T, R), before the rotation
  Tensor Q_R;      // (T, H*R), rotated
  Tensor K_R;      // (T, R), rotated
  Tensor scores;   // (H, T, T), masked entries -inf
  Tensor weights;  // (H, T, T)
  Tensor heads;    // (H, T, Dh)
  Tensor concat;   // (T, H*Dh)
  Tensor output;   // (T, D)
};
MlaNaive mla_naive(const Tensor& X, const MlaWeights& w, const MlaDims& d, bool causal);

struct MlaAbsorbed {
  Tensor W_UVO;            // (H, C, D): W_UV,i W_O,i, folded once (offline in a real engine)
  Tensor q_absorbed;       // (H, T, C): Q_C,i W_UK,iᵀ
  Tensor scores_absorbed;  // (H, T, T): (q_absorbed_i c_KVᵀ + Q_R,i K_Rᵀ) / √(Dh + R)
  Tensor weights_absorbed; // (H, T, T)
  Tensor context_latent;   // (H, T, C): weights_i c_KV — attention over the cache itself
  Tensor output_absorbed;  // (T, D): Σ_i context_latent_i W_UVO_i
};
// Reads only the cache (c_KV, K_R) and the queries (Q_C, Q_R); never forms K_C or V_C.
// Q_R and K_R are empty tensors when d.R == 0.
MlaAbsorbed mla_absorbed(const Tensor& c_KV, const Tensor& K_R, const Tensor& Q_C, const Tensor& Q_R,
                         const MlaWeights& w, const MlaDims& d, bool causal);

// What happens if RoPE rotates the compressed keys K_C (and the queries Q_C) instead of a
// separate K_R. Needs an even Dh. Scale 1/√Dh; no decoupled part.
struct RopeOnLatent {
  Tensor scores;           // (H, T, T): RoPE(Q_C,i) RoPE(K_C,i)ᵀ / √Dh — what the model means
  Tensor scores_absorbed;  // (H, T, T): (RoPE(Q_C,i) W_UK,iᵀ) c_KVᵀ / √Dh — all absorption can do:
                           // the rotation of key n sits between W_UK,i and c_KV,n and changes with n
};
RopeOnLatent mla_rope_on_latent(const Tensor& c_KV, const Tensor& Q_C, const Tensor& K_C, const Tensor& W_UK,
                                const MlaDims& d, bool causal);

// Per decoded token, per layer, with L tokens in the cache: numbers read from the cache and
// multiply-adds of the attention core (the query and latent projections, the same on every
// path, are not counted).
struct DecodeCost {
  std::string id;           // kv_cache | latent_reexpand | absorbed_fold_wo | absorbed_uv_after
  std::uint64_t cache_read; // elements
  std::uint64_t macs;       // multiply-adds
};
//   kv_cache          cache K_C, V_C (2·H·Dh) and K_R (R): up-project the new token only
//                     2·C·H·Dh + H·L·(Dh+R) + H·L·Dh + H·Dh·D
//   latent_reexpand   cache c_KV, K_R but expand every cached token again each step
//                     2·L·C·H·Dh + H·L·(Dh+R) + H·L·Dh + H·Dh·D
//   absorbed_fold_wo  W_UK in the query, W_UV folded into W_O (W_UVO precomputed)
//                     H·Dh·C + H·L·(C+R) + H·L·C + H·C·D
//   absorbed_uv_after W_UK in the query, W_UV applied to the latent context after attention
//                     (DeepSeek-V3's model.py)   H·Dh·C + H·L·(C+R) + H·L·C + H·C·Dh + H·Dh·D
std::vector<DecodeCost> mla_decode_costs(const MlaDims& d, std::uint64_t L);

}  // namespace attn

namespace attn {

// mismatch_by_key: a, b (H, T, T) -> (T), entry n = max over heads and query rows of |a − b| in
// key column n. Entries equal in both (masked -inf included) count as 0.
Tensor mismatch_by_key(const Tensor& a, const Tensor& b);

}  // namespace attn
