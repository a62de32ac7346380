// The variant decoder's backward pass (decoder.h): the forward's layers in reverse, each adding
// into its gradients; deterministic for every thread count (see gpt_backward.cpp).
#include <algorithm>
#include <vector>

#include "decoder.h"

namespace attn::decoder {

namespace {
void norm_backward(const DecoderConfig& c, double* dinp, double* dw, double* db, const double* dout, const double* inp,
                   const double* w, const double* mean, const double* rstd, std::size_t N) {
  if (c.norm == Norm::LayerNorm)
    gpt::layernorm_backward(dinp, dw, db, dout, inp, w, mean, rstd, N, c.d_model);
  else
    rmsnorm_backward(dinp, dw, dout, inp, w, rstd, N, c.d_model);
}

void zero(std::vector<double>& v, std::size_t n) { v.assign(n, 0.0); }
}  // namespace

void decoder_backward(const Decoder& m, const int* tokens, const int* targets, const DecoderActs& a,
                      std::vector<double>& grads) {
  const DecoderConfig& c = m.config;
  const DecoderLayout& g = m.layout;
  const std::size_t B = a.B, T = a.T, N = B * T, C = c.d_model, L = c.n_layer, H = c.n_head, V = c.vocab, F = c.F(),
                    hs = c.hs(), Gk = c.kv_heads(), dq = c.qk_dim(), Dc = c.kv_lora_rank, R = c.rope_dim;
  const bool mla = c.attention == Attention::Mla, rope = c.positions == Positions::Rope;
  const double* p = m.params.data();
  grads.assign(g.total, 0.0);
  double* dp = grads.data();
  if (a.counted == 0) return;

  // loss -> logits -> norm_f -> the last residual
  std::vector<double> dlosses(N, 0.0);
  for (std::size_t n = 0; n < N; ++n)
    if (targets[n] >= 0) dlosses[n] = 1.0 / static_cast<double>(a.counted);
  std::vector<double> dlogits(N * V, 0.0), dnormf(N * C, 0.0), dwte_t(C * V, 0.0), dresidual(N * C, 0.0);
  gpt::crossentropy_softmax_backward(dlogits.data(), dlosses.data(), a.probs.data(), targets, N, V);
  gpt::matmul_backward(dnormf.data(), dwte_t.data(), nullptr, dlogits.data(), a.normf.data(), a.wte_t.data(), N, C, V);
  for (std::size_t t = 0; t < V; ++t)
    for (std::size_t i = 0; i < C; ++i) dp[g.wte + t * C + i] += dwte_t[i * V + t];
  norm_backward(c, dresidual.data(), dp + g.normfw, g.normfb ? dp + g.normfb : nullptr, dnormf.data(),
                a.residual3.data() + (L - 1) * N * C, p + g.normfw, a.normf_mean.data(), a.normf_rstd.data(), N);

  std::vector<double> dfc_act, dfc_a, dfc_b, dnorm2, datty, dq_buf, dk_buf, dv_buf, dnorm1, dckv, dqc, dkc, dqr, dkr;
  for (std::size_t l = L; l-- > 0;) {
    const LayerOffsets& o = g.layers[l];
    const double* residual_in = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * N * C;
    const double* norm1 = a.norm1.data() + l * N * C;
    const double* norm2 = a.norm2.data() + l * N * C;
    // dresidual holds d residual3 = d(residual2 + ffn(norm_2(residual2)))
    zero(dfc_act, N * F), zero(dfc_a, N * F), zero(dnorm2, N * C);
    if (c.ffn == Ffn::Gelu) {
      gpt::matmul_backward(dfc_act.data(), dp + o.w2, nullptr, dresidual.data(), a.fc_act.data() + l * N * F, p + o.w2,
                           N, F, C);
      gpt::gelu_backward(dfc_a.data(), a.fc_a.data() + l * N * F, dfc_act.data(), N * F);
      gpt::matmul_backward(dnorm2.data(), dp + o.w1, nullptr, dfc_a.data(), norm2, p + o.w1, N, C, F);
    } else {
      zero(dfc_b, N * F);
      gpt::matmul_backward(dfc_act.data(), dp + o.wdown, nullptr, dresidual.data(), a.fc_act.data() + l * N * F,
                           p + o.wdown, N, F, C);
      swiglu_backward(dfc_a.data(), dfc_b.data(), dfc_act.data(), a.fc_a.data() + l * N * F, a.fc_b.data() + l * N * F,
                      N * F);
      gpt::matmul_backward(dnorm2.data(), dp + o.wgate, nullptr, dfc_a.data(), norm2, p + o.wgate, N, C, F);
      gpt::matmul_backward(dnorm2.data(), dp + o.wup, nullptr, dfc_b.data(), norm2, p + o.wup, N, C, F);
    }
    norm_backward(c, dresidual.data(), dp + o.norm2w, o.norm2b ? dp + o.norm2b : nullptr, dnorm2.data(),
                  a.residual2.data() + l * N * C, p + o.norm2w, a.norm2_mean.data() + l * N,
                  a.norm2_rstd.data() + l * N, N);

    // dresidual holds d residual2 = d(residual_in + attention(norm_1(residual_in)) W_O)
    zero(datty, N * H * hs), zero(dq_buf, N * H * dq), zero(dk_buf, N * Gk * dq), zero(dv_buf, N * Gk * hs);
    zero(dnorm1, N * C);
    gpt::matmul_backward(datty.data(), dp + o.wo, nullptr, dresidual.data(), a.atty.data() + l * N * H * hs, p + o.wo,
                         N, H * hs, C);
    attention_core_backward(dq_buf.data(), dk_buf.data(), dv_buf.data(), datty.data(), a.q.data() + l * N * H * dq,
                            a.k.data() + l * N * Gk * dq, a.v.data() + l * N * Gk * hs, a.att.data() + l * B * H * T * T,
                            B, T, H, Gk, dq, hs);
    if (!mla) {
      if (rope) {  // the rotation's backward: rotate the gradients back
        rope_apply(dq_buf.data(), a.rope.data(), N, T, H * hs, 0, H, hs, hs, true);
        rope_apply(dk_buf.data(), a.rope.data(), N, T, Gk * hs, 0, Gk, hs, hs, true);
      }
      gpt::matmul_backward(dnorm1.data(), dp + o.wq, nullptr, dq_buf.data(), norm1, p + o.wq, N, C, H * hs);
      gpt::matmul_backward(dnorm1.data(), dp + o.wk, nullptr, dk_buf.data(), norm1, p + o.wk, N, C, Gk * hs);
      gpt::matmul_backward(dnorm1.data(), dp + o.wv, nullptr, dv_buf.data(), norm1, p + o.wv, N, C, Gk * hs);
    } else {
      // split the per-head [C | R] gradients; K_R's is the sum over the heads that share it
      zero(dqc, N * H * hs), zero(dkc, N * H * hs), zero(dqr, N * H * R), zero(dkr, N * R), zero(dckv, N * Dc);
      for (std::size_t n = 0; n < N; ++n)
        for (std::size_t h = 0; h < H; ++h) {
          const double* dqrow = dq_buf.data() + (n * H + h) * dq;
          const double* dkrow = dk_buf.data() + (n * H + h) * dq;
          for (std::size_t i = 0; i < hs; ++i) {
            dqc[(n * H + h) * hs + i] = dqrow[i];
            dkc[(n * H + h) * hs + i] = dkrow[i];
          }
          for (std::size_t i = 0; i < R; ++i) {
            dqr[(n * H + h) * R + i] = dqrow[hs + i];
            dkr[n * R + i] += dkrow[hs + i];
          }
        }
      const double* ckv = a.ckv.data() + l * N * Dc;
      gpt::matmul_backward(dckv.data(), dp + o.wuk, nullptr, dkc.data(), ckv, p + o.wuk, N, Dc, H * hs);
      gpt::matmul_backward(dckv.data(), dp + o.wuv, nullptr, dv_buf.data(), ckv, p + o.wuv, N, Dc, H * hs);
      gpt::matmul_backward(dnorm1.data(), dp + o.wdkv, nullptr, dckv.data(), norm1, p + o.wdkv, N, C, Dc);
      gpt::matmul_backward(dnorm1.data(), dp + o.wq, nullptr, dqc.data(), norm1, p + o.wq, N, C, H * hs);
      if (R > 0) {
        rope_apply(dqr.data(), a.rope.data(), N, T, H * R, 0, H, R, R, true);
        rope_apply(dkr.data(), a.rope.data(), N, T, R, 0, 1, R, R, true);
        gpt::matmul_backward(dnorm1.data(), dp + o.wqr, nullptr, dqr.data(), norm1, p + o.wqr, N, C, H * R);
        gpt::matmul_backward(dnorm1.data(), dp + o.wkr, nullptr, dkr.data(), norm1, p + o.wkr, N, C, R);
      }
    }
    norm_backward(c, dresidual.data(), dp + o.norm1w, o.norm1b ? dp + o.norm1b : nullptr, dnorm1.data(), residual_in,
                  p + o.norm1w, a.norm1_mean.data() + l * N, a.norm1_rstd.data() + l * N, N);
  }
  // x = wte[token] (+ wpe[position]): rows added in the order of the positions
  for (std::size_t n = 0; n < N; ++n) {
    double* e = dp + g.wte + static_cast<std::size_t>(tokens[n]) * C;
    for (std::size_t i = 0; i < C; ++i) e[i] += dresidual[n * C + i];
    if (!rope)
      for (std::size_t i = 0; i < C; ++i) dp[g.wpe + (n % T) * C + i] += dresidual[n * C + i];
  }
}

}  // namespace attn::decoder
