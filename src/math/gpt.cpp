// The GPT-2 forward pass (see gpt.h); the backward passes are in gpt_backward.cpp.
#include "gpt.h"
#include "libm.h"

#include <algorithm>
#include "bit_cast.h"
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu.h"
#include "lm_batch.h"
#include "matmul.h"
#include "parallel.h"
#include "random.h"
#include "fused.h"

namespace attn::gpt {

namespace {
// Rows per thread chunk for row-wise loops: enough work to pay for a thread.
std::size_t row_grain(std::size_t per_row) { return std::max<std::size_t>(1, 16384 / std::max<std::size_t>(1, per_row)); }
}  // namespace

GptLayout gpt_layout(const GptConfig& c) {
  GptLayout g;
  const std::size_t V = c.vocab, P = c.n_positions, C = c.d_model, F = c.d_ff();
  auto add = [&g](std::string name, Shape shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    g.tensors.push_back({std::move(name), std::move(shape), g.total, n});
    g.total += n;
    return g.tensors.back().offset;
  };
  g.wte = add("wte.weight", {V, C});
  g.wpe = add("wpe.weight", {P, C});
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    std::string h = "h." + std::to_string(l) + ".";
    LayerOffsets o{};
    o.ln1w = add(h + "ln_1.weight", {C});
    o.ln1b = add(h + "ln_1.bias", {C});
    o.qkvw = add(h + "attn.c_attn.weight", {C, 3 * C});
    o.qkvb = add(h + "attn.c_attn.bias", {3 * C});
    o.projw = add(h + "attn.c_proj.weight", {C, C});
    o.projb = add(h + "attn.c_proj.bias", {C});
    if (c.mlp) {
      o.ln2w = add(h + "ln_2.weight", {C});
      o.ln2b = add(h + "ln_2.bias", {C});
      o.fcw = add(h + "mlp.c_fc.weight", {C, F});
      o.fcb = add(h + "mlp.c_fc.bias", {F});
      o.fcprojw = add(h + "mlp.c_proj.weight", {F, C});
      o.fcprojb = add(h + "mlp.c_proj.bias", {C});
    }
    g.layers.push_back(o);
  }
  g.lnfw = add("ln_f.weight", {C});
  g.lnfb = add("ln_f.bias", {C});
  return g;
}

double gpt_param_count(const GptConfig& c) {
  double V = static_cast<double>(c.vocab), P = static_cast<double>(c.n_positions), C = static_cast<double>(c.d_model);
  double layer = 2 * C + 3 * C * C + 3 * C + C * C + C;
  if (c.mlp) layer += 2 * C + 4 * C * C + 4 * C + 4 * C * C + C;
  return V * C + P * C + static_cast<double>(c.n_layer) * layer + 2 * C;
}

std::vector<double> gpt_init(const GptConfig& c, std::uint64_t seed) {
  GptLayout g = gpt_layout(c);
  std::vector<double> p(g.total, 0.0);
  Rng rng(seed);
  const double std_w = 0.02, std_res = 0.02 / std::sqrt(2.0 * static_cast<double>(c.n_layer));
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const ParamTensor& t : g.tensors) {
    double* at = p.data() + t.offset;
    if (ends_with(t.name, "c_proj.weight")) {
      rng.fill_normal(at, t.size, std_res);
    } else if (t.shape.size() == 2) {
      rng.fill_normal(at, t.size, std_w);
    } else if (t.name.find("ln_") != std::string::npos && ends_with(t.name, ".weight")) {
      for (std::size_t i = 0; i < t.size; ++i) at[i] = 1.0;
    }  // biases stay 0
  }
  return p;
}

Gpt make_gpt(const GptConfig& c, std::uint64_t seed) { return Gpt{c, gpt_layout(c), gpt_init(c, seed)}; }

// ---- layers ----------------------------------------------------------------------------------------

template <class S>
void encoder_forward(S* out, const int* tokens, const S* wte, const S* wpe, std::size_t B,
                     std::size_t T, std::size_t C) {
  parallel_for(B * T, row_grain(C), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      const S* e = wte + static_cast<std::size_t>(tokens[n]) * C;
      const S* p = wpe + (n % T) * C;
      for (std::size_t i = 0; i < C; ++i) out[n * C + i] = e[i] + p[i];
    }
  });
}

template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* inp, const S* w,
                       const S* b, std::size_t N, std::size_t C) {
  parallel_for(N, row_grain(3 * C), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      const S* x = inp + n * C;
      S m = 0;
      for (std::size_t i = 0; i < C; ++i) m += x[i];
      m /= static_cast<S>(C);
      S v = 0;
      for (std::size_t i = 0; i < C; ++i) v += (x[i] - m) * (x[i] - m);
      v /= static_cast<S>(C);
      S s = S(1) / std::sqrt(v + S(kLayerNormEps));
      for (std::size_t i = 0; i < C; ++i) out[n * C + i] = (x[i] - m) * s * w[i] + b[i];
      mean[n] = m;
      rstd[n] = s;
    }
  });
}

template <class S>
void matmul_forward(S* out, const S* inp, const S* w, NoDeduce<const S*> bias, std::size_t N,
                    std::size_t IC, std::size_t OC) {
  gemm(inp, w, out, N, OC, IC);
  if (bias == nullptr) return;
  parallel_for(N, row_grain(OC), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n)
      for (std::size_t o = 0; o < OC; ++o) out[n * OC + o] += bias[o];
  });
}

namespace {

// One (sequence b, head h) of causal attention. The head's keys are first copied transposed,
// kT (hs, T), so that one query's scores against every earlier key are a loop over keys for each
// component i: the compiler vectorizes it across keys, while each score still adds its hs
// products in the order i = 0…hs−1, from 0.0, one fused multiply-add each, as the plain dot
// product (and matmul) does. Same bits, fewer dependent operations.
//   qkv_b (T, 3C) this sequence's rows; att_bh (T, T); out_b (T, C); kT scratch (hs·T)
template <class S>
[[gnu::always_inline]] inline void attention_head_forward_body(S* __restrict out_b, S* __restrict att_bh,
                                                               const S* __restrict qkv_b, S* __restrict kT,
                                                               std::size_t T, std::size_t C, std::size_t hs,
                                                               std::size_t h, S gate, bool gated) {
  const std::size_t C3 = 3 * C;
  const S scale = S(1) / std::sqrt(static_cast<S>(hs));
  for (std::size_t t2 = 0; t2 < T; ++t2)
    for (std::size_t i = 0; i < hs; ++i) kT[i * T + t2] = qkv_b[t2 * C3 + C + h * hs + i];
  for (std::size_t t = 0; t < T; ++t) {
    const S* q = qkv_b + t * C3 + h * hs;
    S* row = att_bh + t * T;
    const std::size_t n = t + 1;  // keys 0…t
    for (std::size_t t2 = 0; t2 < n; ++t2) row[t2] = 0;
    for (std::size_t i = 0; i < hs; ++i) {
      const S qi = q[i];
      const S* kr = kT + i * T;
      for (std::size_t t2 = 0; t2 < n; ++t2) row[t2] = fused(qi, kr[t2], row[t2]);
    }
    S maxv = -std::numeric_limits<S>::infinity();
    for (std::size_t t2 = 0; t2 < n; ++t2) {
      row[t2] *= scale;
      if (row[t2] > maxv) maxv = row[t2];
    }
    S sum = 0;
    for (std::size_t t2 = 0; t2 < n; ++t2) {
      row[t2] = libm::exp(row[t2] - maxv);
      sum += row[t2];
    }
    for (std::size_t t2 = 0; t2 < n; ++t2) row[t2] /= sum;
    for (std::size_t t2 = n; t2 < T; ++t2) row[t2] = 0;
    S* o = out_b + t * C + h * hs;
    for (std::size_t i = 0; i < hs; ++i) o[i] = 0;
    for (std::size_t t2 = 0; t2 < n; ++t2) {
      const S* v = qkv_b + t2 * C3 + 2 * C + h * hs;
      const S w = row[t2];
      for (std::size_t i = 0; i < hs; ++i) o[i] = fused(w, v[i], o[i]);
    }
    if (gated)
      for (std::size_t i = 0; i < hs; ++i) o[i] *= gate;
  }
}

template <class S>
using HeadForward = void (*)(S*, S*, const S*, S*, std::size_t, std::size_t, std::size_t,
                             std::size_t, S, bool);

template <class S>
void attention_head_forward_portable(S* out_b, S* att_bh, const S* qkv_b, S* kT, std::size_t T,
                                     std::size_t C, std::size_t hs, std::size_t h, S gate, bool gated) {
  attention_head_forward_body(out_b, att_bh, qkv_b, kT, T, C, hs, h, gate, gated);
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same body compiled for AVX2 and FMA (4 doubles a vector, std::fma the CPU's instruction).
template <class S>
__attribute__((target("avx2,fma"))) void attention_head_forward_avx2(S* out_b, S* att_bh, const S* qkv_b,
                                                                 S* kT, std::size_t T, std::size_t C,
                                                                 std::size_t hs, std::size_t h, S gate,
                                                                 bool gated) {
  attention_head_forward_body(out_b, att_bh, qkv_b, kT, T, C, hs, h, gate, gated);
}
#endif

template <class S>
HeadForward<S> head_forward() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2() && cpu_has_fma()) return attention_head_forward_avx2<S>;
#endif
  return attention_head_forward_portable<S>;
}

}  // namespace

template <class S>
void attention_forward(S* out, S* att, const S* qkv, std::size_t B, std::size_t T, std::size_t C,
                       std::size_t H, NoDeduce<const S*> head_gate) {
  const std::size_t hs = C / H;
  const HeadForward<S> f = head_forward<S>();
  parallel_for(B * H, 1, [&](std::size_t j0, std::size_t j1) {
    std::vector<S> kT(hs * T);
    for (std::size_t j = j0; j < j1; ++j) {
      const std::size_t b = j / H, h = j % H;
      f(out + b * T * C, att + (b * H + h) * T * T, qkv + b * T * 3 * C, kT.data(), T, C, hs, h,
        head_gate ? head_gate[h] : S(1), head_gate != nullptr);
    }
  });
}

namespace {
const double kGeluScale = std::sqrt(2.0 / 3.14159265358979323846);

// e^x in float with plain arithmetic (libm's expf is a call per number, and glibc's tanhf, through
// expm1f, took a quarter of an f32 training step): x = n·ln 2 + r with |r| ≤ ln 2 / 2 (n rounded
// to nearest by adding and subtracting 1.5·2^23, ln 2 in two parts), e^r by its Taylor series to
// r^6 (truncation below 1.3e-7 of e^r), times 2^n built in the exponent bits. Within 2-3 float
// epsilons of e^x for x in [-87, 88]; x is clamped there (e^-87 ≈ 1.6e-38 stands for anything
// smaller), the clamps written as AVX's max and min compute them, so exp_float8 below gives the
// same bits.
inline float exp_float(float x) {
  x = x > -87.0f ? x : -87.0f;
  x = x < 88.0f ? x : 88.0f;
  const float n = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;
  return p * attn::bit_cast<float>(bits);
}

// tanh for GELU. double: libm's tanh (the shipped models' bits). float: 1 − 2 / (1 + e^{2u}),
// within a few float epsilons of tanh in absolute terms, which is all GELU needs (it adds tanh to
// 1, and its derivative uses 1 − tanh²). Large |u| gives ±1, never NaN.
inline double gelu_tanh(double u) { return libm::tanh(u); }
inline float gelu_tanh(float u) { return 1.0f - 2.0f / (1.0f + exp_float(2.0f * u)); }

// GPT-2's tanh GELU of one number, and its derivative.
template <class S>
S gelu_value(S x) {
  return S(0.5) * x * (S(1) + gelu_tanh(S(kGeluScale) * (x + S(0.044715) * x * x * x)));
}
// GELU's derivative at x from th = tanh(u(x))
template <class S>
S gelu_grad_at(S x, S th) {
  S du = S(kGeluScale) * (S(1) + S(3.0 * 0.044715) * x * x);
  return S(0.5) * (S(1) + th) + S(0.5) * x * (S(1) - th * th) * du;
}
template <class S>
S gelu_grad(S x) {
  S u = S(kGeluScale) * (x + S(0.044715) * x * x * x);
  return gelu_grad_at(x, gelu_tanh(u));
}

template <class S>
void gelu_forward_chunk(S* out, const S* inp, std::size_t i0, std::size_t i1) {
  for (std::size_t i = i0; i < i1; ++i) out[i] = gelu_value(inp[i]);
}
template <class S>
void gelu_backward_chunk(S* dinp, const S* inp, const S* dout, std::size_t i0, std::size_t i1) {
  for (std::size_t i = i0; i < i1; ++i) dinp[i] += gelu_grad(inp[i]) * dout[i];
}
template <class S>
void gelu_forward_keep_chunk(S* out, S* th, const S* inp, std::size_t i0, std::size_t i1) {
  for (std::size_t i = i0; i < i1; ++i) {
    const S x = inp[i];
    th[i] = gelu_tanh(S(kGeluScale) * (x + S(0.044715) * x * x * x));
    out[i] = S(0.5) * x * (S(1) + th[i]);
  }
}
template <class S>
void gelu_backward_kept_chunk(S* dinp, const S* inp, const S* th, const S* dout, std::size_t i0, std::size_t i1) {
  for (std::size_t i = i0; i < i1; ++i) dinp[i] += gelu_grad_at(inp[i], th[i]) * dout[i];
}

#if defined(__x86_64__) && defined(__GNUC__)
// float GELU eight numbers at a time with AVX2: exactly gelu_value's and gelu_grad's operations, in
// their order, one at a time (no FMA), so the same bits as the plain loop; the tail by that loop.
__attribute__((target("avx2"))) inline __m256 exp_float8(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
  x = _mm256_min_ps(x, _mm256_set1_ps(88.0f));
  const __m256 magic = _mm256_set1_ps(12582912.0f);
  const __m256 n = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), magic), magic);
  const __m256 r = _mm256_sub_ps(_mm256_sub_ps(x, _mm256_mul_ps(n, _mm256_set1_ps(0.693145752f))),
                                 _mm256_mul_ps(n, _mm256_set1_ps(1.42860677e-6f)));
  __m256 p = _mm256_set1_ps(1.0f / 720);
  for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(c));
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}
// u = s·(x + c·x·x·x) and tanh u, as gelu_value computes them
__attribute__((target("avx2"))) inline __m256 gelu_tanh8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
  const __m256 cube = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.044715f), x), x), x);
  const __m256 u = _mm256_mul_ps(_mm256_set1_ps(static_cast<float>(kGeluScale)), _mm256_add_ps(x, cube));
  return _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(one, exp_float8(_mm256_mul_ps(two, u)))));
}
__attribute__((target("avx2"))) void gelu_forward_chunk_avx2(float* out, const float* inp, std::size_t i0,
                                                             std::size_t i1) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  std::size_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m256 x = _mm256_loadu_ps(inp + i);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_mul_ps(half, x), _mm256_add_ps(one, gelu_tanh8(x))));
  }
  gelu_forward_chunk(out, inp, i, i1);
}
__attribute__((target("avx2"))) void gelu_backward_chunk_avx2(float* dinp, const float* inp, const float* dout,
                                                              std::size_t i0, std::size_t i1) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  const __m256 s = _mm256_set1_ps(static_cast<float>(kGeluScale)), c3 = _mm256_set1_ps(static_cast<float>(3.0 * 0.044715));
  std::size_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m256 x = _mm256_loadu_ps(inp + i);
    const __m256 th = gelu_tanh8(x);
    const __m256 du = _mm256_mul_ps(s, _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(c3, x), x)));
    const __m256 g = _mm256_add_ps(_mm256_mul_ps(half, _mm256_add_ps(one, th)),
                                   _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(half, x), _mm256_sub_ps(one, _mm256_mul_ps(th, th))), du));
    _mm256_storeu_ps(dinp + i, _mm256_add_ps(_mm256_loadu_ps(dinp + i), _mm256_mul_ps(g, _mm256_loadu_ps(dout + i))));
  }
  gelu_backward_chunk(dinp, inp, dout, i, i1);
}
__attribute__((target("avx2"))) void gelu_forward_keep_chunk_avx2(float* out, float* th, const float* inp,
                                                                  std::size_t i0, std::size_t i1) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  std::size_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m256 x = _mm256_loadu_ps(inp + i), t = gelu_tanh8(x);
    _mm256_storeu_ps(th + i, t);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_mul_ps(half, x), _mm256_add_ps(one, t)));
  }
  gelu_forward_keep_chunk(out, th, inp, i, i1);
}
__attribute__((target("avx2"))) void gelu_backward_kept_chunk_avx2(float* dinp, const float* inp, const float* thv,
                                                                   const float* dout, std::size_t i0, std::size_t i1) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  const __m256 s = _mm256_set1_ps(static_cast<float>(kGeluScale)), c3 = _mm256_set1_ps(static_cast<float>(3.0 * 0.044715));
  std::size_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m256 x = _mm256_loadu_ps(inp + i);
    const __m256 th = _mm256_loadu_ps(thv + i);
    const __m256 du = _mm256_mul_ps(s, _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(c3, x), x)));
    const __m256 g = _mm256_add_ps(_mm256_mul_ps(half, _mm256_add_ps(one, th)),
                                   _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(half, x), _mm256_sub_ps(one, _mm256_mul_ps(th, th))), du));
    _mm256_storeu_ps(dinp + i, _mm256_add_ps(_mm256_loadu_ps(dinp + i), _mm256_mul_ps(g, _mm256_loadu_ps(dout + i))));
  }
  gelu_backward_kept_chunk(dinp, inp, thv, dout, i, i1);
}

// double GELU eight numbers at a time with AVX-512: libm::tanh's operations on each lane, in its
// order (no FMA), both of its branches computed and the lane's own one kept, so the same bits as
// the plain loop; the tail by that loop. tanh was a fifth of an f64 training step, one number
// at a time.
__attribute__((target("avx512f"))) inline __m512d c(double v) { return _mm512_set1_pd(v); }
__attribute__((target("avx512f"))) inline __m512d add(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
__attribute__((target("avx512f"))) inline __m512d mul(__m512d a, __m512d b) { return _mm512_mul_pd(a, b); }
__attribute__((target("avx512f"))) inline __m512d expm1_taylor8(__m512d r) {
  // libm::detail::expm1_taylor's three Horner pieces
  __m512d p = add(c(1.0 / 87178291200), mul(r, add(c(1.0 / 1307674368000), mul(r, add(c(1.0 / 20922789888000),
              mul(r, add(c(1.0 / 355687428096000), mul(r, c(1.0 / 6402373705728000)))))))));
  p = add(c(1.0 / 40320), mul(r, add(c(1.0 / 362880), mul(r, add(c(1.0 / 3628800), mul(r, add(c(1.0 / 39916800),
      mul(r, add(c(1.0 / 479001600), mul(r, add(c(1.0 / 6227020800), mul(r, p))))))))))));
  p = add(c(1.0 / 2), mul(r, add(c(1.0 / 6), mul(r, add(c(1.0 / 24), mul(r, add(c(1.0 / 120),
      mul(r, add(c(1.0 / 720), mul(r, add(c(1.0 / 5040), mul(r, p))))))))))));
  return add(r, mul(mul(r, r), p));
}
// e^x − 1 for x in [0.7, 44] as libm::exp(x) − 1.0 computes it (no range checks: x is in range)
__attribute__((target("avx512f"))) inline __m512d exp_minus_one8(__m512d x) {
  using namespace libm::table;
  const __m512d kd = _mm512_maskz_roundscale_pd(
      0xFF, _mm512_add_pd(_mm512_mul_pd(x, _mm512_set1_pd(kExpN_over_ln2)), _mm512_set1_pd(0.5)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m256i k = _mm512_maskz_cvtpd_epi32(0xFF, kd);  // exact: kd is an integer below 2^13
  const __m512d r = _mm512_sub_pd(_mm512_sub_pd(x, _mm512_mul_pd(kd, _mm512_set1_pd(kLn2_over_N_hi))),
                                  _mm512_mul_pd(kd, _mm512_set1_pd(kLn2_over_N_lo)));
  const __m256i j = _mm256_and_si256(k, _mm256_set1_epi32(127)), m = _mm256_srai_epi32(k, 7);  // k >= 0
  const __m512d p = _mm512_add_pd(
      r, _mm512_mul_pd(_mm512_mul_pd(r, r),
                       _mm512_add_pd(_mm512_set1_pd(1.0 / 2),
                                     _mm512_mul_pd(r, _mm512_add_pd(_mm512_set1_pd(1.0 / 6),
                                                                    _mm512_mul_pd(r, _mm512_add_pd(_mm512_set1_pd(1.0 / 24),
                                                                                                   _mm512_mul_pd(r, _mm512_set1_pd(1.0 / 120)))))))));
  const __m512d hi = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xFF, j, exp2_hi, 8),
                lo = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xFF, j, exp2_lo, 8);
  const __m512d y = _mm512_add_pd(hi, _mm512_add_pd(_mm512_mul_pd(hi, p), lo));
  const __m512i bits = _mm512_maskz_slli_epi64(0xFF, _mm512_add_epi64(_mm512_maskz_cvtepi32_epi64(0xFF, m), _mm512_set1_epi64(1023)), 52);
  return _mm512_sub_pd(_mm512_mul_pd(y, _mm512_castsi512_pd(bits)), _mm512_set1_pd(1.0));  // scale2(y, m), m <= 63
}
// (The zero-masking forms with every lane kept: GCC 12's unmasked forms start from
// _mm512_undefined_*, which -Wmaybe-uninitialized reports.)
// libm::tanh of each lane
__attribute__((target("avx512f"))) inline __m512d tanh8(__m512d x) {
  const __m512d a = _mm512_abs_pd(x), two_a = _mm512_mul_pd(_mm512_set1_pd(2.0), a);
  const __mmask8 small = _mm512_cmp_pd_mask(a, _mm512_set1_pd(0.35), _CMP_LT_OQ);
  const __m512d t = _mm512_mask_blend_pd(small, exp_minus_one8(_mm512_maskz_max_pd(0xFF, two_a, _mm512_set1_pd(0.7))),
                                         expm1_taylor8(two_a));
  const __m512d two = _mm512_set1_pd(2.0);
  const __m512d d = _mm512_add_pd(t, two), bb = _mm512_sub_pd(d, t);  // two_sum(t, 2.0, d, de)
  const __m512d de = _mm512_add_pd(_mm512_sub_pd(t, _mm512_sub_pd(d, bb)), _mm512_sub_pd(two, bb));
  const __m512d q = _mm512_div_pd(t, d);
  __m512d y = _mm512_sub_pd(q, _mm512_mul_pd(q, _mm512_div_pd(de, d)));
  y = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_set1_pd(22.0), _CMP_GT_OQ), y, _mm512_set1_pd(1.0));
  const __m512d sign = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(x), _mm512_set1_epi64(INT64_MIN)));
  y = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(y), _mm512_castpd_si512(sign)));  // x < 0: −y
  // NaN and |x| < 2^-28 give x itself
  const __mmask8 keep = _mm512_cmp_pd_mask(a, _mm512_set1_pd(0x1p-28), _CMP_NGE_UQ);
  return _mm512_mask_blend_pd(keep, y, x);
}
__attribute__((target("avx512f"))) void gelu_forward_keep_chunk_avx512(double* out, double* th, const double* inp,
                                                                      std::size_t i0, std::size_t i1) {
  const __m512d half = _mm512_set1_pd(0.5), one = _mm512_set1_pd(1.0);
  std::size_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m512d x = _mm512_loadu_pd(inp + i);
    const __m512d cube = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(0.044715), x), x), x);
    const __m512d t = tanh8(_mm512_mul_pd(_mm512_set1_pd(kGeluScale), _mm512_add_pd(x, cube)));
    _mm512_storeu_pd(th + i, t);
    _mm512_storeu_pd(out + i, _mm512_mul_pd(_mm512_mul_pd(half, x), _mm512_add_pd(one, t)));
  }
  gelu_forward_keep_chunk(out, th, inp, i, i1);
}
#endif
}  // namespace

template <class S>
void gelu_forward(S* out, const S* inp, std::size_t n) {
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<S, float>)
      if (cpu_has_avx2()) return gelu_forward_chunk_avx2(out, inp, i0, i1);
#endif
    gelu_forward_chunk(out, inp, i0, i1);
  });
}

template <class S>
void gelu_backward(S* dinp, const S* inp, const S* dout, std::size_t n) {
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<S, float>)
      if (cpu_has_avx2()) return gelu_backward_chunk_avx2(dinp, inp, dout, i0, i1);
#endif
    gelu_backward_chunk(dinp, inp, dout, i0, i1);
  });
}

template <class S>
void gelu_forward_keep(S* out, S* th, const S* inp, std::size_t n) {
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<S, float>)
      if (cpu_has_avx2()) return gelu_forward_keep_chunk_avx2(out, th, inp, i0, i1);
    if constexpr (std::is_same_v<S, double>)
      if (cpu_has_avx512f()) return gelu_forward_keep_chunk_avx512(out, th, inp, i0, i1);
#endif
    gelu_forward_keep_chunk(out, th, inp, i0, i1);
  });
}

template <class S>
void gelu_backward_kept(S* dinp, const S* inp, const S* th, const S* dout, std::size_t n) {
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<S, float>)
      if (cpu_has_avx2()) return gelu_backward_kept_chunk_avx2(dinp, inp, th, dout, i0, i1);
#endif
    gelu_backward_kept_chunk(dinp, inp, th, dout, i0, i1);
  });
}

template <class S>
void residual_forward(S* out, const S* a, const S* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

template <class S>
void residual_backward(S* da, S* db, const S* dout, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

template <class S>
void softmax_forward(S* probs, const S* logits, std::size_t N, std::size_t V) {
  parallel_for(N, row_grain(2 * V), [&](std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n) {
      const S* z = logits + n * V;
      S* p = probs + n * V;
      S maxv = z[0];
      for (std::size_t i = 1; i < V; ++i) maxv = std::max(maxv, z[i]);
      S sum = 0;
      for (std::size_t i = 0; i < V; ++i) {
        p[i] = libm::exp(z[i] - maxv);
        sum += p[i];
      }
      for (std::size_t i = 0; i < V; ++i) p[i] /= sum;
    }
  });
}

template <class S>
void crossentropy_forward(S* losses, const S* probs, const int* targets, std::size_t N, std::size_t V) {
  for (std::size_t n = 0; n < N; ++n)
    losses[n] = targets[n] < 0 ? S(0) : -libm::log(probs[n * V + static_cast<std::size_t>(targets[n])]);
}

// ---- the model -------------------------------------------------------------------------------------

template <class S>
void gpt_forward(const GptT<S>& m, const int* tokens, const int* targets, std::size_t B, std::size_t T, GptActsT<S>& a,
                 NoDeduce<const std::vector<std::vector<S>>*> ablate) {
  const GptConfig& c = m.config;
  lm::check_batch("gpt_forward", tokens, targets, B, T, m.config.vocab, m.config.n_positions);
  const std::size_t N = B * T, C = c.d_model, L = c.n_layer, H = c.n_head, V = c.vocab, F = c.d_ff();
  const S* p = m.params.data();
  const GptLayout& g = m.layout;
  a.B = B;
  a.T = T;
  auto size = [](std::vector<S>& v, std::size_t n) {
    if (v.size() != n) v.assign(n, S(0));
  };
  size(a.encoded, N * C);
  size(a.ln1, L * N * C), size(a.ln1_mean, L * N), size(a.ln1_rstd, L * N), size(a.qkv, L * N * 3 * C);
  size(a.atty, L * N * C), size(a.att, L * B * H * T * T), size(a.attproj, L * N * C), size(a.residual2, L * N * C);
  const std::size_t Lm = c.mlp ? L : 0;
  size(a.ln2, Lm * N * C), size(a.ln2_mean, Lm * N), size(a.ln2_rstd, Lm * N), size(a.fch, Lm * N * F);
  size(a.fch_tanh, Lm * N * F), size(a.fch_gelu, Lm * N * F), size(a.fcproj, Lm * N * C), size(a.residual3, Lm * N * C);
  size(a.lnf, N * C), size(a.lnf_mean, N), size(a.lnf_rstd, N), size(a.logits, N * V), size(a.probs, N * V);
  size(a.losses, N), size(a.wte_t, C * V);

  encoder_forward(a.encoded.data(), tokens, p + g.wte, p + g.wpe, B, T, C);
  const S* residual = a.encoded.data();
  for (std::size_t l = 0; l < L; ++l) {
    const LayerOffsets& o = g.layers[l];
    S* ln1 = a.ln1.data() + l * N * C;
    S* qkv = a.qkv.data() + l * N * 3 * C;
    S* atty = a.atty.data() + l * N * C;
    S* att = a.att.data() + l * B * H * T * T;
    S* attproj = a.attproj.data() + l * N * C;
    S* residual2 = a.residual2.data() + l * N * C;
    layernorm_forward(ln1, a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N, residual, p + o.ln1w, p + o.ln1b, N, C);
    matmul_forward(qkv, ln1, p + o.qkvw, p + o.qkvb, N, C, 3 * C);
    const S* gate = ablate && l < ablate->size() && !(*ablate)[l].empty() ? (*ablate)[l].data() : nullptr;
    attention_forward(atty, att, qkv, B, T, C, H, gate);
    matmul_forward(attproj, atty, p + o.projw, p + o.projb, N, C, C);
    residual_forward(residual2, residual, attproj, N * C);
    if (!c.mlp) {
      residual = residual2;
      continue;
    }
    S* ln2 = a.ln2.data() + l * N * C;
    S* fch = a.fch.data() + l * N * F;
    S* fch_gelu = a.fch_gelu.data() + l * N * F;
    S* fcproj = a.fcproj.data() + l * N * C;
    S* residual3 = a.residual3.data() + l * N * C;
    layernorm_forward(ln2, a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N, residual2, p + o.ln2w, p + o.ln2b, N, C);
    matmul_forward(fch, ln2, p + o.fcw, p + o.fcb, N, C, F);
    gelu_forward_keep(fch_gelu, a.fch_tanh.data() + l * N * F, fch, N * F);
    matmul_forward(fcproj, fch_gelu, p + o.fcprojw, p + o.fcprojb, N, F, C);
    residual_forward(residual3, residual2, fcproj, N * C);
    residual = residual3;
  }
  layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), residual, p + g.lnfw, p + g.lnfb, N, C);
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t i = 0; i < C; ++i) a.wte_t[i * V + v] = p[g.wte + v * C + i];
  matmul_forward(a.logits.data(), a.lnf.data(), a.wte_t.data(), nullptr, N, C, V);
  softmax_forward(a.probs.data(), a.logits.data(), N, V);
  a.loss = 0.0;
  a.counted = 0;
  if (targets == nullptr) return;
  a.loss = lm::mean_target_loss(a.losses.data(), a.probs.data(), targets, N, V, &a.counted);
}

// The two scalar types the trainer computes in.
#define ATTNLAB_GPT_FORWARD(S)                                                                                          \
  template void encoder_forward(S*, const int*, const S*, const S*, std::size_t, std::size_t, std::size_t);             \
  template void layernorm_forward(S*, S*, S*, const S*, const S*, const S*, std::size_t, std::size_t);                 \
  template void matmul_forward(S*, const S*, const S*, const S*, std::size_t, std::size_t, std::size_t);                \
  template void attention_forward(S*, S*, const S*, std::size_t, std::size_t, std::size_t, std::size_t, const S*);      \
  template void gelu_forward(S*, const S*, std::size_t);                                                                \
  template void gelu_backward(S*, const S*, const S*, std::size_t);                                                     \
  template void gelu_forward_keep(S*, S*, const S*, std::size_t);                                                       \
  template void gelu_backward_kept(S*, const S*, const S*, const S*, std::size_t);                                      \
  template void residual_forward(S*, const S*, const S*, std::size_t);                                                  \
  template void residual_backward(S*, S*, const S*, std::size_t);                                                       \
  template void softmax_forward(S*, const S*, std::size_t, std::size_t);                                               \
  template void crossentropy_forward(S*, const S*, const int*, std::size_t, std::size_t);                               \
  template void gpt_forward(const GptT<S>&, const int*, const int*, std::size_t, std::size_t, GptActsT<S>&,             \
                            const std::vector<std::vector<S>>*);
ATTNLAB_GPT_FORWARD(double)
ATTNLAB_GPT_FORWARD(float)
#undef ATTNLAB_GPT_FORWARD

Tensor attention_of(const Gpt& m, const GptActs& a, std::size_t l, std::size_t h, std::size_t b) {
  const std::size_t H = m.config.n_head, T = a.T, B = a.B;
  Tensor w({T, T});
  const double* src = a.att.data() + l * B * H * T * T + (b * H + h) * T * T;
  for (std::size_t i = 0; i < T * T; ++i) w.data[i] = src[i];
  return w;
}

}  // namespace attn::gpt
