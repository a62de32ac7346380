#include "mla.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "attention.h"
#include "matmul.h"
#include "rope.h"

namespace attn {

MlaWeights init_mla_weights(Rng& rng, const MlaDims& d) {
  MlaWeights w;
  w.W_DKV = init_weight(rng, d.D, d.C);         // (D, C)
  w.W_UK = init_weight(rng, d.C, d.H * d.Dh);   // (C, H*Dh)
  w.W_UV = init_weight(rng, d.C, d.H * d.Dh);   // (C, H*Dh)
  if (d.Cq == 0) {
    w.W_Q = init_weight(rng, d.D, d.H * d.Dh);  // (D, H*Dh)
  } else {
    w.W_DQ = init_weight(rng, d.D, d.Cq);        // (D, Cq)
    w.W_UQ = init_weight(rng, d.Cq, d.H * d.Dh); // (Cq, H*Dh)
  }
  if (d.R > 0) {
    w.W_QR = init_weight(rng, d.Cq == 0 ? d.D : d.Cq, d.H * d.R);  // (D or Cq, H*R)
    w.W_KR = init_weight(rng, d.D, d.R);                            // (D, R)
  }
  w.W_O = init_weight(rng, d.H * d.Dh, d.D);    // (H*Dh, D)
  return w;
}

namespace {

// The decoupled RoPE term Q_R,i K_Rᵀ for every head: (H, T, T); zeros when R = 0.
Tensor rope_term(const Tensor& Q_R, const Tensor& K_R, const MlaDims& d) {
  Tensor out({d.H, d.T, d.T});
  if (d.R == 0) return out;
  Tensor Q_R_heads = split_heads(Q_R, d.H);  // (H, T, R)
  Tensor K_R_T = transpose(K_R);             // (R, T): one key shared by every head
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < d.H; ++i) parts.push_back(matmul(slice0(Q_R_heads, i), K_R_T));  // (T, T)
  return stack0(parts);
}

Tensor finish_scores(Tensor s, double scale_by, bool causal) {
  s = scale(s, scale_by);  // (H, T, T)
  return causal ? causal_mask(s) : s;
}

}  // namespace

MlaNaive mla_naive(const Tensor& X, const MlaWeights& w, const MlaDims& d, bool causal) {
  MlaNaive n;
  // pass 1: compress, then expand the latent into per-head keys and values
  n.c_KV = matmul(X, w.W_DKV);   // (T, C)
  n.K_C = matmul(n.c_KV, w.W_UK); // (T, H*Dh)
  n.V_C = matmul(n.c_KV, w.W_UV); // (T, H*Dh)
  // pass 2: queries, directly or through the query latent
  if (d.Cq == 0) {
    n.Q_C = matmul(X, w.W_Q);       // (T, H*Dh)
  } else {
    n.c_Q = matmul(X, w.W_DQ);      // (T, Cq)
    n.Q_C = matmul(n.c_Q, w.W_UQ);  // (T, H*Dh)
  }
  // pass 3: the decoupled RoPE parts: per-head queries, one shared key
  if (d.R > 0) {
    n.Q_R_raw = matmul(d.Cq == 0 ? X : n.c_Q, w.W_QR);  // (T, H*R)
    n.K_R_raw = matmul(X, w.W_KR);                       // (T, R)
    n.Q_R = apply_rope(n.Q_R_raw, d.R);                  // (T, H*R)
    n.K_R = apply_rope(n.K_R_raw, d.R);                  // (T, R)
  }
  // pass 4: MHA on the expanded keys and values
  Tensor Q_heads = split_heads(n.Q_C, d.H);  // (H, T, Dh)
  Tensor K_heads = split_heads(n.K_C, d.H);  // (H, T, Dh)
  Tensor V_heads = split_heads(n.V_C, d.H);  // (H, T, Dh)
  Tensor content = bmm_nt(Q_heads, K_heads); // (H, T, T)
  HeadsAttention a = attend(scale(add(content, rope_term(n.Q_R, n.K_R, d)),
                                  1.0 / std::sqrt(static_cast<double>(d.Dh + d.R))),
                            V_heads, causal);
  n.scores = std::move(a.scores);    // (H, T, T)
  n.weights = std::move(a.weights);  // (H, T, T)
  n.heads = std::move(a.heads);      // (H, T, Dh)
  n.concat = merge_heads(n.heads);           // (T, H*Dh)
  n.output = matmul(n.concat, w.W_O);        // (T, D)
  return n;
}

MlaAbsorbed mla_absorbed(const Tensor& c_KV, const Tensor& K_R, const Tensor& Q_C, const Tensor& Q_R,
                         const MlaWeights& w, const MlaDims& d, bool causal) {
  MlaAbsorbed a;
  Tensor Q_heads = split_heads(Q_C, d.H);  // (H, T, Dh)
  Tensor c_KV_T = transpose(c_KV);         // (C, T)
  std::vector<Tensor> q_abs, content;
  const std::size_t C = c_KV.dim(1);
  a.W_UVO = Tensor({d.H, C, d.D});  // (H, C, D), filled head by head (one copy: 1 GiB at Llama 3 8B's sizes)
  for (std::size_t i = 0; i < d.H; ++i) {
    // pass 1: fold the key up-projection into the query: width Dh -> C
    Tensor W_UK_i = col_block(w.W_UK, i, d.Dh);                        // (C, Dh)
    q_abs.push_back(matmul(slice0(Q_heads, i), transpose(W_UK_i)));    // (T, C)
    content.push_back(matmul(q_abs.back(), c_KV_T));                   // (T, T)
    // the value up-projection folded into the output projection, once per head
    const Tensor fold = matmul(col_block(w.W_UV, i, d.Dh), row_block(w.W_O, i, d.Dh));  // (C, D)
    std::copy(fold.data.begin(), fold.data.end(), a.W_UVO.data.begin() + static_cast<std::ptrdiff_t>(i * C * d.D));
  }
  a.q_absorbed = stack0(q_abs);  // (H, T, C)
  // pass 2: scores straight against the cache, softmax
  a.scores_absorbed = finish_scores(add(stack0(content), rope_term(Q_R, K_R, d)),
                                    1.0 / std::sqrt(static_cast<double>(d.Dh + d.R)), causal);
  a.weights_absorbed = softmax_rows(a.scores_absorbed);  // (H, T, T)
  // pass 3: attend over the latent itself, then one folded matrix per head to d_model
  std::vector<Tensor> ctx;
  Tensor out({d.T, d.D});  // (T, D)
  Tensor part({d.T, d.D});  // (T, D): ctx_i W_UVO_i, read from W_UVO in place (no copy of the head's C × D)
  for (std::size_t i = 0; i < d.H; ++i) {
    ctx.push_back(matmul(slice0(a.weights_absorbed, i), c_KV));  // (T, C)
    gemm(ctx.back().data.data(), a.W_UVO.data.data() + i * C * d.D, part.data.data(), d.T, d.D, C);  // matmul's kernel
    out = add(out, part);                                         // (T, D)
  }
  a.context_latent = stack0(ctx);  // (H, T, C)
  a.output_absorbed = out;
  return a;
}

RopeOnLatent mla_rope_on_latent(const Tensor& c_KV, const Tensor& Q_C, const Tensor& K_C, const Tensor& W_UK,
                                const MlaDims& d, bool causal) {
  if (d.Dh % 2 != 0)
    throw std::invalid_argument(fmt::format("mla_rope_on_latent: head width {} is odd; RoPE rotates pairs", d.Dh));
  double s = 1.0 / std::sqrt(static_cast<double>(d.Dh));
  Tensor Q_rot = split_heads(apply_rope(Q_C, d.Dh), d.H);  // (H, T, Dh): every head's pairs rotated
  Tensor K_rot = split_heads(apply_rope(K_C, d.Dh), d.H);  // (H, T, Dh)
  RopeOnLatent r;
  r.scores = finish_scores(bmm_nt(Q_rot, K_rot), s, causal);  // (H, T, T)
  std::vector<Tensor> parts;
  Tensor c_KV_T = transpose(c_KV);  // (C, T)
  for (std::size_t i = 0; i < d.H; ++i) {
    Tensor q_abs = matmul(slice0(Q_rot, i), transpose(col_block(W_UK, i, d.Dh)));  // (T, C)
    parts.push_back(matmul(q_abs, c_KV_T));                                          // (T, T)
  }
  r.scores_absorbed = finish_scores(stack0(parts), s, causal);  // (H, T, T)
  return r;
}

std::vector<DecodeCost> mla_decode_costs(const MlaDims& d, std::uint64_t L) {
  using u = std::uint64_t;
  u H = d.H, Dh = d.Dh, C = d.C, R = d.R, D = d.D;
  u attend_expanded = H * L * (Dh + R) + H * L * Dh + H * Dh * D;  // scores, values, W_O
  u attend_latent = H * Dh * C + H * L * (C + R) + H * L * C;       // q absorb, scores, latent context
  return {
      {"kv_cache", L * (2 * H * Dh + R), 2 * C * H * Dh + attend_expanded},
      {"latent_reexpand", L * (C + R), 2 * L * C * H * Dh + attend_expanded},
      {"absorbed_fold_wo", L * (C + R), attend_latent + H * C * D},
      {"absorbed_uv_after", L * (C + R), attend_latent + H * C * Dh + H * Dh * D},
  };
}


}  // namespace attn

namespace attn {

Tensor mismatch_by_key(const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape || a.rank() != 3)
    throw std::invalid_argument("mismatch_by_key: shapes " + shape_str(a.shape) + " and " + shape_str(b.shape) +
                                " must be equal (H, T, T)");
  Tensor out({a.dim(2)});  // (T)
  for (std::size_t i = 0; i < a.numel(); ++i) {
    if (a.data[i] == b.data[i]) continue;
    std::size_t n = i % a.dim(2);
    out.data[n] = std::max(out.data[n], std::fabs(a.data[i] - b.data[i]));
  }
  return out;
}

}  // namespace attn
