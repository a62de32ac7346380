#include "transmla.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace attn {

Tensor gqa_up_projection(std::size_t n_heads, std::size_t n_kv_heads, std::size_t head_dim, bool value_half) {
  if (n_kv_heads == 0 || n_heads % n_kv_heads != 0) throw std::invalid_argument("gqa_up_projection: heads not a multiple of KV heads");
  const std::size_t per_group = n_heads / n_kv_heads, offset = value_half ? n_kv_heads * head_dim : 0;
  Tensor W({2 * n_kv_heads * head_dim, n_heads * head_dim});  // (C, H*Dh)
  for (std::size_t i = 0; i < n_heads; ++i)
    for (std::size_t a = 0; a < head_dim; ++a) W(offset + (i / per_group) * head_dim + a, i * head_dim + a) = 1.0;
  return W;
}

MlaWeights gqa_as_mla(const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V, const Tensor& W_O,
                      std::size_t n_heads, std::size_t n_kv_heads) {
  const std::size_t Dh = W_K.dim(1) / n_kv_heads;
  MlaWeights w;
  w.W_DKV = concat_cols({W_K, W_V});                               // (D, 2*G*Dh)
  w.W_UK = gqa_up_projection(n_heads, n_kv_heads, Dh, false);     // (C, H*Dh)
  w.W_UV = gqa_up_projection(n_heads, n_kv_heads, Dh, true);      // (C, H*Dh)
  w.W_Q = W_Q;                                                     // (D, H*Dh)
  w.W_O = W_O;                                                     // (H*Dh, D)
  return w;
}

MlaWeights compress_latent(const MlaWeights& exact, const Svd& svd, std::size_t r) {
  LowRank lr = truncate_svd(svd, r);
  MlaWeights w = exact;
  w.W_DKV = lr.left;                       // (D, r)
  w.W_UK = matmul(lr.right, exact.W_UK);   // (r, C) @ (C, H*Dh) -> (r, H*Dh)
  w.W_UV = matmul(lr.right, exact.W_UV);   // (r, H*Dh)
  return w;
}

Tensor gathered_up_projection(const Tensor& right, std::size_t n_heads, std::size_t n_kv_heads, bool value_half) {
  if (right.rank() != 2 || n_kv_heads == 0 || n_heads % n_kv_heads != 0 || right.dim(1) % (2 * n_kv_heads) != 0)
    throw std::invalid_argument("gathered_up_projection: right must be (r, 2*G*Dh) with G dividing H, got " + shape_str(right.shape));
  const std::size_t r = right.dim(0), C = right.dim(1), Dh = C / (2 * n_kv_heads), per_group = n_heads / n_kv_heads;
  const std::size_t offset = value_half ? n_kv_heads * Dh : 0;
  Tensor W({r, n_heads * Dh});  // (r, H*Dh)
  for (std::size_t k = 0; k < r; ++k) {
    const double* from = right.data.data() + k * C + offset;
    double* to = W.data.data() + k * n_heads * Dh;
    for (std::size_t i = 0; i < n_heads; ++i)
      for (std::size_t a = 0; a < Dh; ++a) to[i * Dh + a] = from[(i / per_group) * Dh + a] + 0.0;
  }
  return W;
}

void set_compressed_gqa_latent(MlaWeights& w, const Svd& svd, std::size_t r, std::size_t n_heads, std::size_t n_kv_heads) {
  LowRank lr = truncate_svd(svd, r);
  w.W_DKV = std::move(lr.left);                                            // (D, r)
  w.W_UK = gathered_up_projection(lr.right, n_heads, n_kv_heads, false);  // (r, H*Dh)
  w.W_UV = gathered_up_projection(lr.right, n_heads, n_kv_heads, true);   // (r, H*Dh)
}

MlaWeights compress_gqa_latent(const MlaWeights& exact, const Svd& svd, std::size_t r, std::size_t n_heads,
                               std::size_t n_kv_heads) {
  MlaWeights w;
  w.W_Q = exact.W_Q;
  w.W_O = exact.W_O;
  w.W_DQ = exact.W_DQ;
  w.W_UQ = exact.W_UQ;
  w.W_QR = exact.W_QR;
  w.W_KR = exact.W_KR;
  set_compressed_gqa_latent(w, svd, r, n_heads, n_kv_heads);
  return w;
}

MlaDims transmla_mla_dims(const TransMlaDims& d, std::size_t r) { return MlaDims{d.T, d.D, d.H, d.Dh, r}; }

double relative_frobenius_error(const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape) throw std::invalid_argument("relative_frobenius_error: shapes differ");
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.numel(); ++i) {
    num += (a.data[i] - b.data[i]) * (a.data[i] - b.data[i]);
    den += b.data[i] * b.data[i];
  }
  return den == 0 ? (num == 0 ? 0.0 : INFINITY) : std::sqrt(num / den);
}

RankSweep latent_rank_sweep(const Tensor& X, const MlaWeights& exact, const Svd& svd, const TransMlaDims& d,
                            const Tensor& reference, bool causal, const std::vector<std::size_t>& ranks) {
  const std::size_t n = ranks.size();
  RankSweep s{Tensor({n}), Tensor({n}), Tensor({n}), Tensor({n})};
  MlaWeights w;  // W_Q and W_O copied once (for the first rank); the latent's three tensors replaced for each rank
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t r = ranks[k];
    if (k == 0) w = compress_gqa_latent(exact, svd, r, d.H, d.G);
    else set_compressed_gqa_latent(w, svd, r, d.H, d.G);
    Tensor out = mla_naive(X, w, transmla_mla_dims(d, r), causal).output;  // (T, D)
    s.rank.data[k] = static_cast<double>(r);
    s.cache_share.data[k] = static_cast<double>(r) / static_cast<double>(d.C());
    s.max_error.data[k] = max_abs_diff(out, reference);
    s.rel_error.data[k] = relative_frobenius_error(out, reference);
  }
  return s;
}

}  // namespace attn
