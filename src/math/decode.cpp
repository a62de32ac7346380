// Greedy decoding with a KV cache, the full causal forward it must match, and the per-variant
// decode costs. See decode.h.
#include "decode.h"
#include "libm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention.h"
#include "fused.h"

namespace attn {

DecodeModel init_decode_model(Rng& rng, const DecodeDims& d) {
  DecodeModel m;
  m.E = randn(rng, {d.V, d.D});
  m.P = randn(rng, {d.T, d.D});
  for (std::size_t l = 0; l < d.L; ++l) {
    DecodeLayer w;
    w.W_Q = init_weight(rng, d.D, d.H * d.Dh);
    w.W_K = init_weight(rng, d.D, d.G * d.Dh);
    w.W_V = init_weight(rng, d.D, d.G * d.Dh);
    w.W_O = init_weight(rng, d.H * d.Dh, d.D);
    m.layers.push_back(std::move(w));
  }
  m.W_U = init_weight(rng, d.D, d.V);
  return m;
}

namespace {

Tensor embed(const DecodeModel& m, std::size_t token, std::size_t t) {  // (1, D)
  std::size_t D = m.E.dim(1);
  Tensor x({1, D});
  for (std::size_t j = 0; j < D; ++j) x.data[j] = m.E(token, j) + m.P(t, j);
  return x;
}

std::size_t argmax_row(const Tensor& logits, std::size_t row) {
  std::size_t V = logits.dim(1), best = 0;
  for (std::size_t j = 1; j < V; ++j)
    if (logits(row, j) > logits(row, best)) best = j;
  return best;
}

}  // namespace

DecodeRun decode_greedy(const DecodeModel& m, const DecodeDims& d, const std::vector<std::size_t>& prompt) {
  if (prompt.empty() || prompt.size() > d.T || d.H % d.G != 0)
    throw std::invalid_argument("decode_greedy: prompt of 1..T tokens and H % G == 0 required");
  const std::size_t per_group = d.H / d.G, KW = d.G * d.Dh;
  const double inv_sqrt = 1.0 / std::sqrt(static_cast<double>(d.Dh));
  DecodeRun run;
  run.tokens = prompt;
  run.hidden = Tensor({d.T, d.D});
  run.logits = Tensor({d.T, d.V});
  run.K_cache.assign(d.L, Tensor({d.T, KW}));
  run.V_cache.assign(d.L, Tensor({d.T, KW}));
  for (std::size_t t = 0; t < d.T; ++t) {
    std::uint64_t macs = 0;
    Tensor x = embed(m, run.tokens[t], t);  // (1, D)
    for (std::size_t l = 0; l < d.L; ++l) {
      const DecodeLayer& w = m.layers[l];
      Tensor q = matmul(x, w.W_Q);  // (1, H*Dh)
      Tensor k = matmul(x, w.W_K);  // (1, G*Dh)
      Tensor v = matmul(x, w.W_V);  // (1, G*Dh)
      Tensor& Kc = run.K_cache[l];
      Tensor& Vc = run.V_cache[l];
      std::copy(k.data.begin(), k.data.end(), Kc.data.begin() + static_cast<std::ptrdiff_t>(t * KW));  // row t
      std::copy(v.data.begin(), v.data.end(), Vc.data.begin() + static_cast<std::ptrdiff_t>(t * KW));
      Tensor heads({1, d.H * d.Dh});
      std::vector<double> s(t + 1);
      for (std::size_t h = 0; h < d.H; ++h) {
        std::size_t g = h / per_group;
        double mx = -INFINITY;
        for (std::size_t n = 0; n <= t; ++n) {  // the new query against every cached key
          double acc = 0.0;
          for (std::size_t c = 0; c < d.Dh; ++c) acc = fused(q.data[h * d.Dh + c], Kc(n, g * d.Dh + c), acc);
          macs += d.Dh;
          s[n] = acc * inv_sqrt;
          mx = std::max(mx, s[n]);
        }
        double sum = 0.0;
        for (std::size_t n = 0; n <= t; ++n) sum += (s[n] = libm::exp(s[n] - mx));
        for (std::size_t n = 0; n <= t; ++n) {  // weighted sum of every cached value
          double p = s[n] / sum;
          for (std::size_t c = 0; c < d.Dh; ++c)
            heads.data[h * d.Dh + c] = fused(p, Vc(n, g * d.Dh + c), heads.data[h * d.Dh + c]);
          macs += d.Dh;
        }
      }
      x = add(x, matmul(heads, w.W_O));  // residual
    }
    std::copy(x.data.begin(), x.data.end(), run.hidden.data.begin() + static_cast<std::ptrdiff_t>(t * d.D));
    Tensor lg = matmul(x, m.W_U);  // (1, V)
    std::copy(lg.data.begin(), lg.data.end(), run.logits.data.begin() + static_cast<std::ptrdiff_t>(t * d.V));
    run.macs.push_back(macs);
    if (t + 1 < d.T && t + 1 >= run.tokens.size()) run.tokens.push_back(argmax_row(run.logits, t));
  }
  return run;
}

DecodeFull decode_full_forward(const DecodeModel& m, const DecodeDims& d, const std::vector<std::size_t>& tokens) {
  const std::size_t T = tokens.size();
  Tensor X({T, d.D});
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t j = 0; j < d.D; ++j) X(t, j) = m.E(tokens[t], j) + m.P(t, j);
  DecodeFull f;
  for (const DecodeLayer& w : m.layers) {
    AttentionPass p = grouped_attention(X, w.W_Q, w.W_K, w.W_V, w.W_O, d.H, d.G, true);
    f.K.push_back(p.K);
    f.V.push_back(p.V);
    X = add(X, p.output);
  }
  f.logits = matmul(X, m.W_U);
  f.hidden = std::move(X);
  return f;
}

std::vector<VariantCost> decode_variant_costs(const VariantDims& v, std::uint64_t n) {
  const std::uint64_t H = v.H, G = v.G, Dh = v.Dh, C = v.C, R = v.R;
  auto gqa_like = [&](const char* id, std::uint64_t groups) {
    return VariantCost{id, 2 * groups * Dh, 2 * groups * Dh * n, 2 * H * Dh * n};
  };
  std::uint64_t naive = H * (Dh + R) + H * Dh, absorbed = C + R;
  return {gqa_like("mha", H), gqa_like("gqa", G), gqa_like("mqa", 1),
          {"mla_naive", naive, naive * n, H * n * (Dh + R) + H * n * Dh},
          {"mla_absorbed", absorbed, absorbed * n, H * Dh * C + H * n * (C + R) + H * n * C + H * C * Dh}};
}

double arithmetic_intensity(const VariantCost& c, double bytes_per_number) {
  return 2.0 * static_cast<double>(c.macs) / (static_cast<double>(c.cache_read) * bytes_per_number);
}

double roofline(double intensity, double bandwidth_gb_s, double peak_gflop_s) {
  return std::min(peak_gflop_s, bandwidth_gb_s * intensity);
}

}  // namespace attn
