// Greedy generation with a KV cache. See generate.h.
#include "generate.h"
#include "libm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "random.h"

#include "layernorm.h"
#include "rope.h"
#include "rope_half.h"

namespace attn {

namespace {

// The rest of a Llama-style block once attention has run on the new rows: x_mid = x + attn_out,
// then x_mid + SwiGLU(rms(x_mid)), every activation checked as in the full forward. (n, D).
Tensor attention_then_swiglu(const Tensor& x, const Tensor& attn_out, const Tensor& mlp_norm, const Tensor& W_gate,
                             const Tensor& W_up, const Tensor& W_down, double eps, const ActivationSite& at) {
  require_finite_activation(attn_out, at, "attn_out");
  Tensor mid = add(x, attn_out);
  require_finite_activation(mid, at, "resid_mid");
  RmsNormPass n2 = rmsnorm(mid, mlp_norm, eps);
  require_finite_norm(n2, at, "norm2");
  SwigluPass f = swiglu_forward(n2.out, W_gate, W_up, W_down);
  require_finite_activation(f.hidden, at, "mlp_hidden");
  require_finite_activation(f.y, at, "mlp_out");
  Tensor out = add(mid, f.y);
  require_finite_activation(out, at, "block_out");
  return out;
}

}  // namespace

Tensor append_tokens(const Tensor& cache, const Tensor& rows) {
  if (cache.numel() == 0) return rows;
  std::size_t G = rows.dim(0), t = cache.dim(1), n = rows.dim(1), Dh = rows.dim(2);
  if (cache.dim(0) != G || cache.dim(2) != Dh) throw std::invalid_argument("append_tokens: shapes do not fit");
  Tensor out({G, t + n, Dh});
  for (std::size_t g = 0; g < G; ++g) {
    for (std::size_t r = 0; r < t; ++r)
      for (std::size_t c = 0; c < Dh; ++c) out(g, r, c) = cache(g, r, c);
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t c = 0; c < Dh; ++c) out(g, t + r, c) = rows(g, r, c);
  }
  return out;
}

Tensor cached_attention(const Tensor& Q_heads, const Tensor& K, const Tensor& V, std::size_t t0, const ActivationSite* at) {
  std::size_t H = Q_heads.dim(0), n = Q_heads.dim(1), Dh = Q_heads.dim(2), t = K.dim(1);
  if (t != t0 + n) throw std::invalid_argument("cached_attention: the cache must end with the new rows");
  Tensor K_exp = repeat_kv(K, H), V_exp = repeat_kv(V, H);              // (H, t, Dh)
  Tensor scores = scale(bmm_nt(Q_heads, K_exp), 1.0 / std::sqrt(static_cast<double>(Dh)));  // (H, n, t)
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t j = t0 + r + 1; j < t; ++j) scores(h, r, j) = -std::numeric_limits<double>::infinity();
  if (at != nullptr) require_finite_activation(scores, *at, "scores", FiniteRule::Causal);
  return bmm(softmax_rows(scores), V_exp);  // (H, n, Dh)
}

Tensor gpt2_extend(const Gpt2Model& model, const std::vector<std::int64_t>& ids, KvCache& cache,
                   const std::vector<Gpt2LayerWeights>* layers) {
  const ModelConfig& m = model.config();
  std::size_t t0 = cache.tokens(), H = m.n_h;
  cache.K.resize(m.l);
  cache.V.resize(m.l);
  Tensor x = model.embed(ids, t0);  // (n, D), checked
  Gpt2LayerWeights read;
  for (std::size_t i = 0; i < m.l; ++i) {
    const Gpt2LayerWeights& w = layers != nullptr ? (*layers)[i] : (read = model.layer(i));
    const ActivationSite at{model.checkpoint().folder(), i};
    LayerNormPass n1 = layernorm(x, w.ln1_g, w.ln1_b, model.eps());
    require_finite_norm(n1, at, "norm1");
    const Tensor& a = n1.out;                                              // (n, D)
    Tensor q = add_bias(matmul(a, w.W_Q), w.b_Q), k = add_bias(matmul(a, w.W_K), w.b_K), v = add_bias(matmul(a, w.W_V), w.b_V);
    require_finite_activation(q, at, "q");
    require_finite_activation(k, at, "k");
    require_finite_activation(v, at, "v");
    cache.K[i] = append_tokens(cache.K[i], split_heads(k, H));             // (H, t, Dh)
    cache.V[i] = append_tokens(cache.V[i], split_heads(v, H));
    Tensor heads = cached_attention(split_heads(q, H), cache.K[i], cache.V[i], t0, &at);  // (H, n, Dh)
    Tensor out = add_bias(matmul(merge_heads(heads), w.W_O), w.b_O);       // (n, D)
    require_finite_activation(out, at, "attn_out");
    x = add(x, out);
    require_finite_activation(x, at, "resid_mid");
    if (model.attention_only()) continue;                                  // no ln_2 / MLP: x_out = x_mid
    LayerNormPass n2 = layernorm(x, w.ln2_g, w.ln2_b, model.eps());
    require_finite_norm(n2, at, "norm2");
    FfnPass f = ffn_forward(n2.out, w.W_1, w.b_1, w.W_2, w.b_2, model.activation());
    require_finite_activation(f.z, at, "mlp_hidden");
    require_finite_activation(f.h, at, "mlp_hidden");
    require_finite_activation(f.y, at, "mlp_out");
    x = add(x, f.y);
    require_finite_activation(x, at, "block_out");
  }
  return model.logits(x);  // (n, V), checked
}

Tensor llama_extend(const LlamaModel& model, const std::vector<std::int64_t>& ids, KvCache& cache,
                    const std::vector<LlamaLayerWeights>* layers) {
  const ModelConfig& m = model.config();
  double eps = model.settings().rms_eps;
  std::size_t t0 = cache.tokens(), H = m.n_h, G = m.n_g;
  cache.K.resize(m.l);
  cache.V.resize(m.l);
  Tensor x = model.embed(ids);  // (n, D), checked: no position embeddings, RoPE rotates q and k below
  LlamaLayerWeights read;
  for (std::size_t i = 0; i < m.l; ++i) {
    const LlamaLayerWeights& w = layers != nullptr ? (*layers)[i] : (read = model.layer(i));
    const ActivationSite at{model.checkpoint().folder(), i};
    RmsNormPass n1 = rmsnorm(x, w.attn_norm, eps);
    require_finite_norm(n1, at, "norm1");
    const Tensor& a = n1.out;                                                                // (n, D)
    Tensor q = add_bias(matmul(a, w.W_Q), w.b_Q), k = add_bias(matmul(a, w.W_K), w.b_K), v = add_bias(matmul(a, w.W_V), w.b_V);
    require_finite_activation(q, at, "q");
    require_finite_activation(k, at, "k");
    require_finite_activation(v, at, "v");
    cache.K[i] = append_tokens(cache.K[i], apply_rope_half(split_heads(k, G), model.inv_freq(), t0));  // (G, t, Dh)
    cache.V[i] = append_tokens(cache.V[i], split_heads(v, G));
    Tensor q_rot = apply_rope_half(split_heads(q, H), model.inv_freq(), t0);                 // (H, n, Dh)
    Tensor heads = cached_attention(q_rot, cache.K[i], cache.V[i], t0, &at);                 // (H, n, Dh)
    Tensor out = add_bias(matmul(merge_heads(heads), w.W_O), w.b_O);                         // (n, D)
    x = attention_then_swiglu(x, out, w.mlp_norm, w.W_gate, w.W_up, w.W_down, eps, at);
  }
  return model.logits(x);  // (n, V), checked
}

namespace {

// x (n, m·R): every R-wide block of row r rotated in consecutive pairs (rope.h) at position t0 + r.
Tensor rope_pairs_from(const Tensor& x, std::size_t R, std::size_t t0) {
  const Tensor theta = rope_theta(R);  // (R/2)
  Tensor out = x;
  for (std::size_t r = 0; r < x.dim(0); ++r)
    for (std::size_t b = 0; b < x.dim(1) / R; ++b)
      for (std::size_t i = 0; i < R / 2; ++i) {
        const double angle = static_cast<double>(t0 + r) * theta.data[i], c = libm::cos(angle), s = libm::sin(angle);
        const double x0 = x(r, b * R + 2 * i), x1 = x(r, b * R + 2 * i + 1);
        out(r, b * R + 2 * i) = x0 * c - x1 * s;
        out(r, b * R + 2 * i + 1) = x0 * s + x1 * c;
      }
  return out;
}

// (n, w) as the cache's (1, n, w).
Tensor one_group(const Tensor& rows) { return Tensor({1, rows.dim(0), rows.dim(1)}, rows.data); }

}  // namespace

Tensor mla_extend(const MlaModel& model, const std::vector<std::int64_t>& ids, KvCache& cache,
                  const std::vector<MlaLayerWeights>* layers) {
  const ModelConfig& m = model.config();
  const std::size_t t0 = cache.tokens(), n = ids.size(), H = m.n_h, Dh = m.d_nope, R = m.d_R;
  const double inv_scale = 1.0 / std::sqrt(static_cast<double>(Dh + R));
  cache.K.resize(m.l);
  cache.V.resize(m.l);
  Tensor x = model.embed(ids);  // (n, D), checked
  MlaLayerWeights read;
  for (std::size_t i = 0; i < m.l; ++i) {
    const MlaLayerWeights& lw = layers != nullptr ? (*layers)[i] : (read = model.layer(i));
    const MlaWeights& w = lw.w;
    const ActivationSite at{model.checkpoint().folder(), i};
    RmsNormPass n1 = rmsnorm(x, lw.attn_norm, model.rms_eps());
    require_finite_norm(n1, at, "norm1");
    const Tensor& a = n1.out;                                         // (n, D)
    Tensor c_new = matmul(a, w.W_DKV);                                // (n, C)
    Tensor kr_new = rope_pairs_from(matmul(a, w.W_KR), R, t0);        // (n, R)
    Tensor Q_C = matmul(a, w.W_Q);                                    // (n, H·Dh)
    Tensor Q_R = rope_pairs_from(matmul(a, w.W_QR), R, t0);           // (n, H·R)
    require_finite_activation(c_new, at, "k");
    require_finite_activation(kr_new, at, "k");
    require_finite_activation(Q_C, at, "q");
    require_finite_activation(Q_R, at, "q");
    cache.K[i] = append_tokens(cache.K[i], one_group(c_new));        // (1, t, C)
    cache.V[i] = append_tokens(cache.V[i], one_group(kr_new));       // (1, t, R)
    const Tensor c_KV = slice0(cache.K[i], 0), K_R = slice0(cache.V[i], 0);  // (t, C), (t, R)
    const std::size_t t = c_KV.dim(0);
    std::vector<Tensor> heads;
    for (std::size_t h = 0; h < H; ++h) {
      Tensor q_abs = matmul_bt(col_block(Q_C, h, Dh), col_block(w.W_UK, h, Dh));  // (n, C): Q_C,h W_UK,hᵀ
      Tensor scores = scale(add(matmul_bt(q_abs, c_KV), matmul_bt(col_block(Q_R, h, R), K_R)), inv_scale);  // (n, t)
      for (std::size_t r = 0; r < n; ++r)
        for (std::size_t j = t0 + r + 1; j < t; ++j) scores(r, j) = -std::numeric_limits<double>::infinity();
      require_finite_activation(scores, at, "scores", FiniteRule::Causal);
      Tensor context = matmul(softmax_rows(scores), c_KV);            // (n, C): attention over the cached latents
      heads.push_back(matmul(context, col_block(w.W_UV, h, Dh)));     // (n, Dh)
    }
    Tensor out = matmul(concat_cols(heads), w.W_O);                   // (n, D)
    x = attention_then_swiglu(x, out, lw.mlp_norm, lw.W_gate, lw.W_up, lw.W_down, model.rms_eps(), at);
  }
  return model.logits(x);  // (n, V), checked
}

namespace {

// The numbers of a layer's weight matrices (the vectors are a rounding error beside them).
std::size_t matrix_numbers(const Gpt2LayerWeights& w) {
  return w.W_Q.numel() + w.W_K.numel() + w.W_V.numel() + w.W_O.numel() + w.W_1.numel() + w.W_2.numel();
}
std::size_t matrix_numbers(const MlaLayerWeights& l) {
  const MlaWeights& w = l.w;
  return w.W_DKV.numel() + w.W_UK.numel() + w.W_UV.numel() + w.W_Q.numel() + w.W_QR.numel() + w.W_KR.numel() +
         w.W_O.numel() + l.W_gate.numel() + l.W_up.numel() + l.W_down.numel();
}
std::size_t matrix_numbers(const LlamaLayerWeights& w) {
  return w.W_Q.numel() + w.W_K.numel() + w.W_V.numel() + w.W_O.numel() + w.W_gate.numel() + w.W_up.numel() +
         w.W_down.numel();
}

// Every layer's weights read once, as doubles, for all the steps of a run, when they fit in
// `budget` bytes; else none is kept and each step reads each layer again.
template <class Model, class Weights>
std::vector<Weights> keep_layers(const Model& model, double budget) {
  std::vector<Weights> layers;
  const std::size_t L = model.config().l;
  Weights first = model.layer(0);
  if (static_cast<double>(matrix_numbers(first)) * sizeof(double) * static_cast<double>(L) > budget) return layers;
  layers.reserve(L);
  layers.push_back(std::move(first));
  for (std::size_t i = 1; i < L; ++i) layers.push_back(model.layer(i));
  return layers;
}

struct Family {
  ModelRef model;
  std::vector<Gpt2LayerWeights> gpt2_layers;
  std::vector<LlamaLayerWeights> llama_layers;
  std::vector<MlaLayerWeights> mla_layers;
  Family(const ModelRef& m, double budget) : model(m) {
    if (m.gpt2 != nullptr) gpt2_layers = keep_layers<Gpt2Model, Gpt2LayerWeights>(*m.gpt2, budget);
    else if (m.llama != nullptr) llama_layers = keep_layers<LlamaModel, LlamaLayerWeights>(*m.llama, budget);
    else mla_layers = keep_layers<MlaModel, MlaLayerWeights>(*m.mla, budget);
  }
  Tensor extend(const std::vector<std::int64_t>& ids, KvCache& cache) const {
    if (model.gpt2 != nullptr) return gpt2_extend(*model.gpt2, ids, cache, gpt2_layers.empty() ? nullptr : &gpt2_layers);
    if (model.llama != nullptr) return llama_extend(*model.llama, ids, cache, llama_layers.empty() ? nullptr : &llama_layers);
    return mla_extend(*model.mla, ids, cache, mla_layers.empty() ? nullptr : &mla_layers);
  }
};

// The token for row r of logits (greedy or sampled, see Sampling), its logit and its softmax
// probability under the model.
GenerateStep choose(const Tensor& logits, std::size_t r, const Sampling& sampling, Rng& rng) {
  const std::size_t V = logits.dim(1);
  auto allowed = [&](std::size_t j) { return static_cast<std::int64_t>(j) != sampling.masked; };
  std::size_t top = 0;  // the largest logit of all (the softmax's shift)
  for (std::size_t j = 1; j < V; ++j)
    if (logits(r, j) > logits(r, top)) top = j;
  std::size_t best = allowed(0) ? 0 : 1;  // the largest logit among the tokens that may be chosen
  for (std::size_t j = best + 1; j < V; ++j)
    if (allowed(j) && logits(r, j) > logits(r, best)) best = j;
  const double max = logits(r, top);
  double sum = 0;
  for (std::size_t j = 0; j < V; ++j) sum += libm::exp(logits(r, j) - max);
  std::size_t chosen = best;
  if (sampling.temperature > 0) {
    std::vector<std::size_t> order;  // the tokens that may be chosen
    for (std::size_t j = 0; j < V; ++j)
      if (allowed(j)) order.push_back(j);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logits(r, a) > logits(r, b); });
    const std::size_t k = sampling.top_k == 0 ? order.size() : std::min(sampling.top_k, order.size());
    std::vector<double> p(k);
    double z = 0;
    for (std::size_t i = 0; i < k; ++i) z += p[i] = libm::exp((logits(r, order[i]) - max) / sampling.temperature);
    const double u = rng.uniform() * z;
    double run = 0;
    chosen = order[k - 1];
    for (std::size_t i = 0; i < k; ++i) {
      run += p[i];
      if (run > u) {
        chosen = order[i];
        break;
      }
    }
  }
  GenerateStep s;
  s.id = static_cast<std::int64_t>(chosen);
  s.logit = logits(r, chosen);
  s.prob = libm::exp(s.logit - max) / sum;
  return s;
}

}  // namespace

GenerateRun generate_greedy(const ModelRef& model, const std::vector<std::int64_t>& prompt, std::size_t n,
                            double keep_layer_bytes, const Sampling& sampling) {
  GenerateRun run;
  Rng rng(sampling.seed);
  run.ids = prompt;
  const std::size_t V = model.gpt2 != nullptr ? model.gpt2->config().vocab
                        : model.llama != nullptr ? model.llama->config().vocab : model.mla->config().vocab;
  run.logits = Tensor({n, V});
  const Family family(model, keep_layer_bytes);
  std::vector<std::int64_t> feed = prompt;  // step 0: the whole prompt (prefill); then one token
  for (std::size_t s = 0; s < n; ++s) {
    Tensor logits = family.extend(feed, run.cache);  // (rows fed, V)
    std::size_t last = logits.dim(0) - 1;
    for (std::size_t j = 0; j < V; ++j) run.logits(s, j) = logits(last, j);
    GenerateStep step = choose(logits, last, sampling, rng);
    step.cache_tokens = run.cache.tokens();
    run.steps.push_back(step);
    run.ids.push_back(step.id);
    feed = {step.id};
  }
  return run;
}

double cached_vs_full(const ModelRef& model, const GenerateRun& run, std::size_t prompt_len, Tensor* full_out) {
  std::vector<std::int64_t> fed(run.ids.begin(), run.ids.end() - 1);  // every token that was fed
  Tensor all = model.gpt2 != nullptr    ? gpt2_forward(*model.gpt2, fed, true).logits
               : model.llama != nullptr ? llama_forward(*model.llama, fed, true).logits
                                        : mla_forward(*model.mla, fed, true).logits;  // (T, V)
  std::size_t N = run.steps.size(), V = all.dim(1);
  Tensor full({N, V});
  double diff = 0;
  for (std::size_t s = 0; s < N; ++s)
    for (std::size_t j = 0; j < V; ++j) {
      full(s, j) = all(prompt_len - 1 + s, j);
      diff = std::max(diff, std::fabs(full(s, j) - run.logits(s, j)));
    }
  if (full_out != nullptr) *full_out = std::move(full);
  return diff;
}

}  // namespace attn
