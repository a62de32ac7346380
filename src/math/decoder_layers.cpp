// The layers the chapter's variants add to GPT-2's (decoder.h): RMSNorm, RoPE, SwiGLU and the one
// attention core with a key-value group map, each forward beside its backward.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu.h"
#include "decoder.h"
#include "libm.h"
#include "parallel.h"
#include "fused.h"

namespace attn::decoder {

namespace {
std::size_t grain_for(std::size_t per_item) { return std::max<std::size_t>(1, 16384 / std::max<std::size_t>(1, per_item)); }
}  // namespace

// ---- RMSNorm ---------------------------------------------------------------------------------------

void rmsnorm_forward(double* out, double* rstd, const double* inp, const double* w, std::size_t N, std::size_t C) {
  parallel_for(N, grain_for(2 * C), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      const double* x = inp + n * C;
      double ss = 0.0;
      for (std::size_t i = 0; i < C; ++i) ss += x[i] * x[i];
      const double s = 1.0 / std::sqrt(ss / static_cast<double>(C) + kNormEps);
      for (std::size_t i = 0; i < C; ++i) out[n * C + i] = x[i] * s * w[i];
      rstd[n] = s;
    }
  });
}

// With norm = x · rstd and dnorm = w ⊙ dout:  dx = rstd · (dnorm − norm · mean(dnorm ⊙ norm)),
// dw = Σ_rows norm ⊙ dout.
void rmsnorm_backward(double* dinp, double* dw, const double* dout, const double* inp, const double* w,
                      const double* rstd, std::size_t N, std::size_t C) {
  parallel_for(N, grain_for(3 * C), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      const double* x = inp + n * C;
      const double* d = dout + n * C;
      double dot = 0.0;
      for (std::size_t i = 0; i < C; ++i) dot += w[i] * d[i] * x[i] * rstd[n];
      dot /= static_cast<double>(C);
      for (std::size_t i = 0; i < C; ++i) dinp[n * C + i] += (w[i] * d[i] - x[i] * rstd[n] * dot) * rstd[n];
    }
  });
  parallel_for(C, grain_for(N), [&](std::size_t c0, std::size_t c1) {
    for (std::size_t i = c0; i < c1; ++i) {
      double s = 0.0;
      for (std::size_t n = 0; n < N; ++n) s += inp[n * C + i] * rstd[n] * dout[n * C + i];
      dw[i] += s;
    }
  });
}

// ---- RoPE (rotate_half) ----------------------------------------------------------------------------

std::vector<double> rope_table(std::size_t T, std::size_t d, double theta) {
  const std::size_t half = d / 2;
  std::vector<double> cs(T * half * 2);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < half; ++i) {
      const double inv_freq = libm::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d));
      const double angle = static_cast<double>(t) * inv_freq;
      cs[(t * half + i) * 2] = libm::cos(angle);
      cs[(t * half + i) * 2 + 1] = libm::sin(angle);
    }
  return cs;
}

// x'_i = x_i cos − x_{i+d/2} sin,  x'_{i+d/2} = x_{i+d/2} cos + x_i sin   (inverse: sin → −sin)
void rope_apply(double* x, const double* cos_sin, std::size_t N, std::size_t T, std::size_t stride, std::size_t offset,
                std::size_t n_vec, std::size_t step, std::size_t d, bool inverse) {
  const std::size_t half = d / 2;
  const double sign = inverse ? -1.0 : 1.0;
  parallel_for(N, grain_for(n_vec * d), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      const double* cs = cos_sin + (n % T) * half * 2;
      for (std::size_t j = 0; j < n_vec; ++j) {
        double* v = x + n * stride + offset + j * step;
        for (std::size_t i = 0; i < half; ++i) {
          const double c = cs[2 * i], s = sign * cs[2 * i + 1];
          const double a = v[i], b = v[i + half];
          v[i] = a * c - b * s;
          v[i + half] = b * c + a * s;
        }
      }
    }
  });
}

// ---- SwiGLU ----------------------------------------------------------------------------------------

// silu(a) = a · σ(a);  silu'(a) = σ(a) · (1 + a · (1 − σ(a)))
void swiglu_forward(double* out, const double* gate, const double* up, std::size_t n) {
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      const double a = gate[i];
      out[i] = a / (1.0 + libm::exp(-a)) * up[i];
    }
  });
}

void swiglu_backward(double* dgate, double* dup, const double* dout, const double* gate, const double* up, std::size_t n) {
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      const double a = gate[i];
      const double sig = 1.0 / (1.0 + libm::exp(-a));
      dgate[i] += dout[i] * up[i] * sig * (1.0 + a * (1.0 - sig));
      dup[i] += dout[i] * a * sig;
    }
  });
}

// ---- the attention core ----------------------------------------------------------------------------

namespace {

// Sequence b's key-value group grp, forward: its query heads' attention rows and outputs. The
// group's keys are copied transposed, kT (dq, T), so a query's scores are a loop over keys per
// component (vectorized across keys, each score still summed over i = 0 … dq−1 in order with one
// fused multiply-add per term, as every dot product and matmul in attnlab).
ATTNLAB_FMA_CLONES void attention_group_forward(double* out, double* att, const double* q, const double* k,
                                                const double* v, double* kT, std::size_t b, std::size_t grp,
                                                std::size_t T, std::size_t H, std::size_t G, std::size_t dq,
                                                std::size_t dv, const double* head_gate) {
  const std::size_t per_group = H / G;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dq));
  for (std::size_t t2 = 0; t2 < T; ++t2)
    for (std::size_t i = 0; i < dq; ++i) kT[i * T + t2] = k[((b * T + t2) * G + grp) * dq + i];
  for (std::size_t h = grp * per_group; h < (grp + 1) * per_group; ++h) {
    const double gate = head_gate ? head_gate[h] : 1.0;
    for (std::size_t t = 0; t < T; ++t) {
      // pass 1: q·k for keys 0…t, scaled, and their max
      const double* qt = q + ((b * T + t) * H + h) * dq;
      double* row = att + ((b * H + h) * T + t) * T;
      const std::size_t n = t + 1;
      for (std::size_t t2 = 0; t2 < n; ++t2) row[t2] = 0.0;
      for (std::size_t i = 0; i < dq; ++i) {
        const double qi = qt[i];
        const double* kr = kT + i * T;
        for (std::size_t t2 = 0; t2 < n; ++t2) row[t2] = fused(qi, kr[t2], row[t2]);
      }
      double maxv = -std::numeric_limits<double>::infinity();
      for (std::size_t t2 = 0; t2 < n; ++t2) {
        row[t2] *= scale;
        maxv = std::max(maxv, row[t2]);
      }
      // pass 2: exp and sum; pass 3: normalize (masked keys get exactly 0)
      double sum = 0.0;
      for (std::size_t t2 = 0; t2 < n; ++t2) {
        row[t2] = libm::exp(row[t2] - maxv);
        sum += row[t2];
      }
      for (std::size_t t2 = 0; t2 < n; ++t2) row[t2] /= sum;
      for (std::size_t t2 = n; t2 < T; ++t2) row[t2] = 0.0;
      // pass 4: the weighted sum of the group's values
      double* o = out + ((b * T + t) * H + h) * dv;
      for (std::size_t i = 0; i < dv; ++i) o[i] = 0.0;
      for (std::size_t t2 = 0; t2 < n; ++t2) {
        const double* vr = v + ((b * T + t2) * G + grp) * dv;
        const double w = row[t2];
        for (std::size_t i = 0; i < dv; ++i) o[i] = fused(w, vr[i], o[i]);
      }
      if (head_gate)
        for (std::size_t i = 0; i < dv; ++i) o[i] *= gate;
    }
  }
}

// Sequence b's key-value group grp, backward (the group's values copied transposed, vT (Dv, T)).
ATTNLAB_FMA_CLONES void attention_group_backward(double* dq, double* dk, double* dv, const double* dout,
                                                 const double* q, const double* k, const double* v,
                                                 const double* att, double* vT, double* datt, std::size_t b,
                                                 std::size_t grp, std::size_t T, std::size_t H, std::size_t G,
                                                 std::size_t Dq, std::size_t Dv) {
  const std::size_t per_group = H / G;
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dq));
  for (std::size_t t2 = 0; t2 < T; ++t2)
    for (std::size_t i = 0; i < Dv; ++i) vT[i * T + t2] = v[((b * T + t2) * G + grp) * Dv + i];
  for (std::size_t h = grp * per_group; h < (grp + 1) * per_group; ++h) {
    for (std::size_t t = 0; t < T; ++t) {
      const double* row = att + ((b * H + h) * T + t) * T;
      const double* dy = dout + ((b * T + t) * H + h) * Dv;
      const std::size_t n = t + 1;
      // out_t = Σ att[t2] v_t2:  datt[t2] = dy · v_t2,  dv_t2 += att[t2] dy
      for (std::size_t t2 = 0; t2 < n; ++t2) datt[t2] = 0.0;
      for (std::size_t i = 0; i < Dv; ++i) {
        const double di = dy[i];
        const double* vr = vT + i * T;
        for (std::size_t t2 = 0; t2 < n; ++t2) datt[t2] = fused(di, vr[t2], datt[t2]);
      }
      for (std::size_t t2 = 0; t2 < n; ++t2) {
        double* dvr = dv + ((b * T + t2) * G + grp) * Dv;
        const double w = row[t2];
        for (std::size_t i = 0; i < Dv; ++i) dvr[i] = fused(w, dy[i], dvr[i]);
      }
      // softmax: dscore = att ⊙ (datt − Σ att·datt), then the scale
      double dot = 0.0;
      for (std::size_t t2 = 0; t2 < n; ++t2) dot = fused(row[t2], datt[t2], dot);
      const double* qt = q + ((b * T + t) * H + h) * Dq;
      double* dqt = dq + ((b * T + t) * H + h) * Dq;
      for (std::size_t t2 = 0; t2 < n; ++t2) {
        const double dpre = row[t2] * (datt[t2] - dot) * scale;
        const double* kr = k + ((b * T + t2) * G + grp) * Dq;
        double* dkr = dk + ((b * T + t2) * G + grp) * Dq;
        for (std::size_t i = 0; i < Dq; ++i) {
          dqt[i] = fused(dpre, kr[i], dqt[i]);
          dkr[i] = fused(dpre, qt[i], dkr[i]);
        }
      }
    }
  }
}

}  // namespace

void attention_core_forward(double* out, double* att, const double* q, const double* k, const double* v, std::size_t B,
                            std::size_t T, std::size_t H, std::size_t G, std::size_t dq, std::size_t dv,
                            const double* head_gate) {
  // Threads take whole (sequence, key-value head) pairs.
  parallel_for(B * G, 1, [&](std::size_t j0, std::size_t j1) {
    std::vector<double> kT(dq * T);
    for (std::size_t j = j0; j < j1; ++j)
      attention_group_forward(out, att, q, k, v, kT.data(), j / G, j % G, T, H, G, dq, dv, head_gate);
  });
}

void attention_core_backward(double* dq, double* dk, double* dv, const double* dout, const double* q, const double* k,
                             const double* v, const double* att, std::size_t B, std::size_t T, std::size_t H,
                             std::size_t G, std::size_t dq_width, std::size_t dv_width) {
  parallel_for(B * G, 1, [&](std::size_t j0, std::size_t j1) {
    std::vector<double> vT(dv_width * T), datt(T);
    for (std::size_t j = j0; j < j1; ++j)
      attention_group_backward(dq, dk, dv, dout, q, k, v, att, vT.data(), datt.data(), j / G, j % G, T, H, G,
                               dq_width, dv_width);
  });
}

}  // namespace attn::decoder
