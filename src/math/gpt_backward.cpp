// The GPT-2 backward passes (see gpt.h), one per forward layer, each adding into its gradients.
// Deterministic for every thread count: a thread owns whole outputs, and every sum over rows
// (weight and bias gradients, embedding rows) runs row by row in one fixed order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu.h"
#include "gpt.h"
#include "matmul.h"
#include "parallel.h"
#include "fused.h"

namespace attn::gpt {

namespace {
std::size_t grain_for(std::size_t per_item) { return std::max<std::size_t>(1, 16384 / std::max<std::size_t>(1, per_item)); }

// out (cols, rows) = inᵀ for in (rows, cols), in 16 x 16 tiles (a copy: no arithmetic).
template <class S>
void transpose_into(S* out, const S* in, std::size_t rows, std::size_t cols) {
  constexpr std::size_t kTile = 16;
  parallel_for((cols + kTile - 1) / kTile, grain_for(rows * kTile), [&](std::size_t b0, std::size_t b1) {
    for (std::size_t r0 = 0; r0 < rows; r0 += kTile) {
      const std::size_t r1 = std::min(rows, r0 + kTile);
      for (std::size_t c = b0 * kTile; c < std::min(cols, b1 * kTile); ++c)
        for (std::size_t r = r0; r < r1; ++r) out[c * rows + r] = in[r * cols + c];
    }
  });
}

// db[c] += Σ_n x[n][c], n in order from 0; threads split the columns. Row by row into a buffer of
// the chunk's column sums (each column still added in row order, so the same bits as a column
// walked alone, without its stride).
template <class S>
void add_column_sums(S* db, const S* x, std::size_t N, std::size_t C) {
  parallel_for(C, grain_for(N), [&](std::size_t c0, std::size_t c1) {
    std::vector<S> s(c1 - c0, S(0));
    for (std::size_t n = 0; n < N; ++n) {
      const S* row = x + n * C + c0;
      for (std::size_t c = 0; c < c1 - c0; ++c) s[c] += row[c];
    }
    for (std::size_t c = c0; c < c1; ++c) db[c] += s[c - c0];
  });
}
}  // namespace

template <class S>
void encoder_backward(S* dwte, S* dwpe, const S* dout, const int* tokens, std::size_t B,
                      std::size_t T, std::size_t C, std::size_t /*V*/) {
  // Threads split the channels; each channel's rows are added in the order of the positions.
  parallel_for(C, grain_for(B * T), [&](std::size_t c0, std::size_t c1) {
    for (std::size_t n = 0; n < B * T; ++n) {
      S* e = dwte + static_cast<std::size_t>(tokens[n]) * C;
      S* p = dwpe + (n % T) * C;
      for (std::size_t i = c0; i < c1; ++i) {
        e[i] += dout[n * C + i];
        p[i] += dout[n * C + i];
      }
    }
  });
}

template <class S>
void layernorm_backward(S* dinp, S* dw, S* db, const S* dout, const S* inp,
                        const S* w, const S* mean, const S* rstd, std::size_t N, std::size_t C) {
  parallel_for(N, grain_for(4 * C), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      const S* x = inp + n * C;
      const S* d = dout + n * C;
      S dnorm_mean = 0, dnorm_norm_mean = 0;
      for (std::size_t i = 0; i < C; ++i) {
        S norm = (x[i] - mean[n]) * rstd[n];
        S dnorm = w[i] * d[i];
        dnorm_mean += dnorm;
        dnorm_norm_mean += dnorm * norm;
      }
      dnorm_mean /= static_cast<S>(C);
      dnorm_norm_mean /= static_cast<S>(C);
      for (std::size_t i = 0; i < C; ++i) {
        S norm = (x[i] - mean[n]) * rstd[n];
        S dnorm = w[i] * d[i];
        dinp[n * C + i] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * rstd[n];
      }
    }
  });
  parallel_for(C, grain_for(N), [&](std::size_t c0, std::size_t c1) {
    for (std::size_t i = c0; i < c1; ++i) {
      S sw = 0, sb = 0;
      for (std::size_t n = 0; n < N; ++n) {
        S norm = (inp[n * C + i] - mean[n]) * rstd[n];
        sw += norm * dout[n * C + i];
        sb += dout[n * C + i];
      }
      dw[i] += sw;
      db[i] += sb;
    }
  });
}

template <class S>
void matmul_backward(S* dinp, S* dw, NoDeduce<S*> dbias, const S* dout, const S* inp,
                     const S* w, std::size_t N, std::size_t IC, std::size_t OC) {
  // dinp += dout (N, OC) @ wᵀ (OC, IC)
  std::vector<S> wt(OC * IC), tmp(N * IC);
  transpose_into(wt.data(), w, IC, OC);
  gemm(dout, wt.data(), tmp.data(), N, IC, OC);
  parallel_for(N * IC, 65536, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) dinp[i] += tmp[i];
  });
  // dw += inpᵀ (IC, N) @ dout (N, OC)
  std::vector<S> it(IC * N), tw(IC * OC);
  transpose_into(it.data(), inp, N, IC);
  gemm(it.data(), dout, tw.data(), IC, OC, N);
  for (std::size_t i = 0; i < IC * OC; ++i) dw[i] += tw[i];
  if (dbias) add_column_sums(dbias, dout, N, OC);
}

namespace {

// One (sequence b, head h) of attention_backward. As in the forward pass, the head's values are
// copied transposed, vT (hs, T), so that datt[t2] = dy · v_t2 is a loop over keys for each
// component i, vectorized across keys, each dot still summed in the order i = 0…hs−1 from 0.0
// with one fused multiply-add per term (as every dot product and matmul in attnlab).
//   dqkv_b, qkv_b (T, 3C); att_bh (T, T); dout_b (T, C); vT scratch (hs·T); datt, dy scratch
template <class S>
[[gnu::always_inline]] inline void attention_head_backward_body(S* __restrict dqkv_b, const S* __restrict dout_b,
                                                                const S* __restrict qkv_b,
                                                                const S* __restrict att_bh, S* __restrict vT,
                                                                S* __restrict datt, S* __restrict dy,
                                                                std::size_t T, std::size_t C, std::size_t hs,
                                                                std::size_t h, S gate, bool gated) {
  const std::size_t C3 = 3 * C;
  const S scale = S(1) / std::sqrt(static_cast<S>(hs));
  for (std::size_t t2 = 0; t2 < T; ++t2)
    for (std::size_t i = 0; i < hs; ++i) vT[i * T + t2] = qkv_b[t2 * C3 + 2 * C + h * hs + i];
  for (std::size_t t = 0; t < T; ++t) {
    const S* row = att_bh + t * T;
    const S* d = dout_b + t * C + h * hs;
    const std::size_t n = t + 1;
    for (std::size_t i = 0; i < hs; ++i) dy[i] = gated ? d[i] * gate : d[i];
    // out_t = Σ att[t2] v_t2: datt[t2] = dy · v_t2, dv_t2 += att[t2] dy
    for (std::size_t t2 = 0; t2 < n; ++t2) datt[t2] = 0;
    for (std::size_t i = 0; i < hs; ++i) {
      const S di = dy[i];
      const S* vr = vT + i * T;
      for (std::size_t t2 = 0; t2 < n; ++t2) datt[t2] = fused(di, vr[t2], datt[t2]);
    }
    for (std::size_t t2 = 0; t2 < n; ++t2) {
      S* dv = dqkv_b + t2 * C3 + 2 * C + h * hs;
      const S w = row[t2];
      for (std::size_t i = 0; i < hs; ++i) dv[i] = fused(w, dy[i], dv[i]);
    }
    // softmax: dpre = att ⊙ (datt − Σ att·datt)
    S dot = 0;
    for (std::size_t t2 = 0; t2 < n; ++t2) dot = fused(row[t2], datt[t2], dot);
    const S* q = qkv_b + t * C3 + h * hs;
    S* dq = dqkv_b + t * C3 + h * hs;
    for (std::size_t t2 = 0; t2 < n; ++t2) {
      const S dpre = row[t2] * (datt[t2] - dot) * scale;
      const S* k = qkv_b + t2 * C3 + C + h * hs;
      S* dk = dqkv_b + t2 * C3 + C + h * hs;
      for (std::size_t i = 0; i < hs; ++i) {
        dq[i] = fused(dpre, k[i], dq[i]);
        dk[i] = fused(dpre, q[i], dk[i]);
      }
    }
  }
}

template <class S>
using HeadBackward = void (*)(S*, const S*, const S*, const S*, S*, S*, S*,
                              std::size_t, std::size_t, std::size_t, std::size_t, S, bool);

template <class S>
void attention_head_backward_portable(S* dqkv_b, const S* dout_b, const S* qkv_b, const S* att_bh,
                                      S* vT, S* datt, S* dy, std::size_t T, std::size_t C,
                                      std::size_t hs, std::size_t h, S gate, bool gated) {
  attention_head_backward_body(dqkv_b, dout_b, qkv_b, att_bh, vT, datt, dy, T, C, hs, h, gate, gated);
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same body compiled for AVX2 and FMA (std::fma the CPU's instruction).
template <class S>
__attribute__((target("avx2,fma"))) void attention_head_backward_avx2(S* dqkv_b, const S* dout_b,
                                                                  const S* qkv_b, const S* att_bh,
                                                                  S* vT, S* datt, S* dy, std::size_t T,
                                                                  std::size_t C, std::size_t hs, std::size_t h,
                                                                  S gate, bool gated) {
  attention_head_backward_body(dqkv_b, dout_b, qkv_b, att_bh, vT, datt, dy, T, C, hs, h, gate, gated);
}
#endif

template <class S>
HeadBackward<S> head_backward() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2() && cpu_has_fma()) return attention_head_backward_avx2<S>;
#endif
  return attention_head_backward_portable<S>;
}

}  // namespace

template <class S>
void attention_backward(S* dqkv, const S* dout, const S* qkv, const S* att, std::size_t B,
                        std::size_t T, std::size_t C, std::size_t H, NoDeduce<const S*> head_gate) {
  const std::size_t hs = C / H;
  const HeadBackward<S> f = head_backward<S>();
  // threads own whole sequences' heads: dqkv rows of one (b, h) are written by one thread only
  parallel_for(B * H, 1, [&](std::size_t j0, std::size_t j1) {
    std::vector<S> vT(hs * T), datt(T), dy(hs);
    for (std::size_t j = j0; j < j1; ++j) {
      const std::size_t b = j / H, h = j % H;
      f(dqkv + b * T * 3 * C, dout + b * T * C, qkv + b * T * 3 * C, att + (b * H + h) * T * T, vT.data(), datt.data(),
        dy.data(), T, C, hs, h, head_gate ? head_gate[h] : S(1), head_gate != nullptr);
    }
  });
}

template <class S>
void crossentropy_softmax_backward(S* dlogits, const S* dlosses, const S* probs, const int* targets,
                                   std::size_t N, std::size_t V) {
  parallel_for(N, grain_for(V), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      if (targets[n] < 0) continue;
      const std::size_t y = static_cast<std::size_t>(targets[n]);
      for (std::size_t i = 0; i < V; ++i)
        dlogits[n * V + i] += (probs[n * V + i] - (i == y ? S(1) : S(0))) * dlosses[n];
    }
  });
}

template <class S>
void gpt_backward(const GptT<S>& m, const int* tokens, const int* targets, const GptActsT<S>& a, std::vector<S>& grads) {
  const GptConfig& c = m.config;
  const GptLayout& g = m.layout;
  const std::size_t B = a.B, T = a.T, N = B * T, C = c.d_model, L = c.n_layer, H = c.n_head, V = c.vocab, F = c.d_ff();
  const S* p = m.params.data();
  grads.assign(g.total, S(0));
  S* dp = grads.data();
  if (a.counted == 0) return;

  std::vector<S> dlosses(N, S(0));
  for (std::size_t n = 0; n < N; ++n)
    if (targets[n] >= 0) dlosses[n] = S(1) / static_cast<S>(a.counted);
  std::vector<S> dlogits(N * V, S(0)), dlnf(N * C, S(0)), dwte_t(C * V, S(0)), dresidual(N * C, S(0));
  crossentropy_softmax_backward(dlogits.data(), dlosses.data(), a.probs.data(), targets, N, V);
  matmul_backward(dlnf.data(), dwte_t.data(), nullptr, dlogits.data(), a.lnf.data(), a.wte_t.data(), N, C, V);
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t i = 0; i < C; ++i) dp[g.wte + v * C + i] += dwte_t[i * V + v];
  auto residual_out = [&](std::size_t l) -> const S* {  // the residual stream after layer l
    return c.mlp ? a.residual3.data() + l * N * C : a.residual2.data() + l * N * C;
  };
  layernorm_backward(dresidual.data(), dp + g.lnfw, dp + g.lnfb, dlnf.data(), L ? residual_out(L - 1) : a.encoded.data(),
                     p + g.lnfw, a.lnf_mean.data(), a.lnf_rstd.data(), N, C);

  std::vector<S> dfch_gelu, dfch, dln2, datty(N * C), dqkv(N * 3 * C), dln1(N * C);
  if (c.mlp) dfch_gelu.resize(N * F), dfch.resize(N * F), dln2.resize(N * C);
  for (std::size_t l = L; l-- > 0;) {
    const LayerOffsets& o = g.layers[l];
    const S* residual_in = l == 0 ? a.encoded.data() : residual_out(l - 1);
    // dresidual holds d(residual out of layer l)
    if (c.mlp) {
      std::fill(dfch_gelu.begin(), dfch_gelu.end(), S(0));
      std::fill(dfch.begin(), dfch.end(), S(0));
      std::fill(dln2.begin(), dln2.end(), S(0));
      // residual3 = residual2 + fcproj: both get dresidual; residual2's share stays in dresidual
      matmul_backward(dfch_gelu.data(), dp + o.fcprojw, dp + o.fcprojb, dresidual.data(), a.fch_gelu.data() + l * N * F,
                      p + o.fcprojw, N, F, C);
      gelu_backward_kept(dfch.data(), a.fch.data() + l * N * F, a.fch_tanh.data() + l * N * F, dfch_gelu.data(), N * F);
      matmul_backward(dln2.data(), dp + o.fcw, dp + o.fcb, dfch.data(), a.ln2.data() + l * N * C, p + o.fcw, N, C, F);
      layernorm_backward(dresidual.data(), dp + o.ln2w, dp + o.ln2b, dln2.data(), a.residual2.data() + l * N * C,
                         p + o.ln2w, a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N, N, C);
    }
    // dresidual holds d residual2 = d(residual_in + attproj)
    std::fill(datty.begin(), datty.end(), S(0));
    std::fill(dqkv.begin(), dqkv.end(), S(0));
    std::fill(dln1.begin(), dln1.end(), S(0));
    matmul_backward(datty.data(), dp + o.projw, dp + o.projb, dresidual.data(), a.atty.data() + l * N * C, p + o.projw,
                    N, C, C);
    attention_backward(dqkv.data(), datty.data(), a.qkv.data() + l * N * 3 * C, a.att.data() + l * B * H * T * T, B, T,
                       C, H);
    matmul_backward(dln1.data(), dp + o.qkvw, dp + o.qkvb, dqkv.data(), a.ln1.data() + l * N * C, p + o.qkvw, N, C,
                    3 * C);
    layernorm_backward(dresidual.data(), dp + o.ln1w, dp + o.ln1b, dln1.data(), residual_in, p + o.ln1w,
                       a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N, N, C);
  }
  encoder_backward(dp + g.wte, dp + g.wpe, dresidual.data(), tokens, B, T, C, V);
}

#define ATTNLAB_GPT_BACKWARD(S)                                                                                         \
  template void encoder_backward(S*, S*, const S*, const int*, std::size_t, std::size_t, std::size_t, std::size_t);     \
  template void layernorm_backward(S*, S*, S*, const S*, const S*, const S*, const S*, const S*, std::size_t,           \
                                   std::size_t);                                                                        \
  template void matmul_backward(S*, S*, S*, const S*, const S*, const S*, std::size_t, std::size_t, std::size_t);       \
  template void attention_backward(S*, const S*, const S*, const S*, std::size_t, std::size_t, std::size_t, std::size_t, \
                                   const S*);                                                                           \
  template void crossentropy_softmax_backward(S*, const S*, const S*, const int*, std::size_t, std::size_t);            \
  template void gpt_backward(const GptT<S>&, const int*, const int*, const GptActsT<S>&, std::vector<S>&);
ATTNLAB_GPT_BACKWARD(double)
ATTNLAB_GPT_BACKWARD(float)
#undef ATTNLAB_GPT_BACKWARD

}  // namespace attn::gpt
