// The variant decoder's layout, initial weights and forward pass (see decoder.h); the layers it
// adds are in decoder_layers.cpp, the backward passes in decoder_backward.cpp.
#include "decoder.h"

#include <cmath>
#include <stdexcept>

#include "lm_batch.h"
#include "random.h"

namespace attn::decoder {

std::size_t DecoderConfig::kv_heads() const {
  switch (attention) {
    case Attention::Mha: return n_head;
    case Attention::Gqa: return n_kv_head;
    case Attention::Mqa: return 1;
    case Attention::Mla: return n_head;
  }
  return n_head;
}

std::size_t DecoderConfig::qk_dim() const { return attention == Attention::Mla ? hs() + rope_dim : hs(); }

std::size_t DecoderConfig::cache_per_token() const {
  if (attention == Attention::Mla) return kv_lora_rank + rope_dim;
  return 2 * kv_heads() * hs();
}

std::string check_config(const DecoderConfig& c) {
  if (c.vocab == 0 || c.n_positions == 0 || c.d_model == 0 || c.n_layer == 0 || c.n_head == 0 || c.hs() == 0 || c.F() == 0)
    return "every size must be at least 1";
  if (c.attention == Attention::Gqa && (c.n_kv_head == 0 || c.n_head % c.n_kv_head != 0))
    return "the query heads must be a multiple of the key-value heads";
  if (c.attention == Attention::Mla && c.kv_lora_rank == 0) return "mla needs a latent width";
  const bool rope = c.positions == Positions::Rope;
  if (c.attention == Attention::Mla) {
    if (rope && (c.rope_dim == 0 || c.rope_dim % 2 != 0)) return "mla with RoPE needs an even decoupled RoPE width";
    if (!rope && c.rope_dim != 0) return "mla with learned positions has no decoupled RoPE key";
  } else if (rope && c.hs() % 2 != 0) {
    return "RoPE needs an even head width";
  }
  return "";
}

DecoderLayout decoder_layout(const DecoderConfig& c) {
  DecoderLayout g;
  const std::size_t V = c.vocab, P = c.n_positions, C = c.d_model, F = c.F(), H = c.n_head, hs = c.hs(),
                    G = c.kv_heads(), Dc = c.kv_lora_rank, R = c.rope_dim;
  auto add = [&g](std::string name, Shape shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    g.tensors.push_back({std::move(name), std::move(shape), g.total, n});
    g.total += n;
    return g.tensors.back().offset;
  };
  const bool layernorm = c.norm == Norm::LayerNorm;
  g.wte = add("wte", {V, C});
  if (c.positions == Positions::Learned) g.wpe = add("wpe", {P, C});
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const std::string h = "layers." + std::to_string(l) + ".";
    LayerOffsets o{};
    o.norm1w = add(h + "norm_1.weight", {C});
    if (layernorm) o.norm1b = add(h + "norm_1.bias", {C});
    o.wq = add(h + "attn.W_Q", {C, H * hs});
    if (c.attention == Attention::Mla) {
      o.wdkv = add(h + "attn.W_DKV", {C, Dc});
      o.wuk = add(h + "attn.W_UK", {Dc, H * hs});
      o.wuv = add(h + "attn.W_UV", {Dc, H * hs});
      if (R > 0) {
        o.wqr = add(h + "attn.W_QR", {C, H * R});
        o.wkr = add(h + "attn.W_KR", {C, R});
      }
    } else {
      o.wk = add(h + "attn.W_K", {C, G * hs});
      o.wv = add(h + "attn.W_V", {C, G * hs});
    }
    o.wo = add(h + "attn.W_O", {H * hs, C});
    o.norm2w = add(h + "norm_2.weight", {C});
    if (layernorm) o.norm2b = add(h + "norm_2.bias", {C});
    if (c.ffn == Ffn::Gelu) {
      o.w1 = add(h + "ffn.W_1", {C, F});
      o.w2 = add(h + "ffn.W_2", {F, C});
    } else {
      o.wgate = add(h + "ffn.W_gate", {C, F});
      o.wup = add(h + "ffn.W_up", {C, F});
      o.wdown = add(h + "ffn.W_down", {F, C});
    }
    g.layers.push_back(o);
  }
  g.normfw = add("norm_f.weight", {C});
  if (layernorm) g.normfb = add("norm_f.bias", {C});
  return g;
}

double decoder_param_count(const DecoderConfig& c) {
  const double V = static_cast<double>(c.vocab), P = static_cast<double>(c.n_positions), C = static_cast<double>(c.d_model),
               F = static_cast<double>(c.F()), H = static_cast<double>(c.n_head), hs = static_cast<double>(c.hs()),
               G = static_cast<double>(c.kv_heads()), Dc = static_cast<double>(c.kv_lora_rank),
               R = static_cast<double>(c.rope_dim), L = static_cast<double>(c.n_layer);
  const double norm = c.norm == Norm::LayerNorm ? 2 * C : C;
  double attn = C * H * hs + H * hs * C;  // W_Q, W_O
  attn += c.attention == Attention::Mla ? C * Dc + 2 * Dc * H * hs + C * H * R + C * R : 2 * C * G * hs;
  const double ffn = c.ffn == Ffn::Gelu ? 2 * C * F : 3 * C * F;
  const double pos = c.positions == Positions::Learned ? P * C : 0.0;
  return V * C + pos + L * (2 * norm + attn + ffn) + norm;
}

std::vector<double> decoder_init(const DecoderConfig& c, std::uint64_t seed) {
  const DecoderLayout g = decoder_layout(c);
  std::vector<double> p(g.total, 0.0);
  Rng rng(seed);
  const double std_w = 0.02, std_res = 0.02 / std::sqrt(2.0 * static_cast<double>(c.n_layer));
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const gpt::ParamTensor& t : g.tensors) {
    double* at = p.data() + t.offset;
    if (ends_with(t.name, "W_O") || ends_with(t.name, "W_2") || ends_with(t.name, "W_down")) {
      rng.fill_normal(at, t.size, std_res);
    } else if (t.shape.size() == 2) {
      rng.fill_normal(at, t.size, std_w);
    } else if (ends_with(t.name, ".weight")) {
      for (std::size_t i = 0; i < t.size; ++i) at[i] = 1.0;
    }  // biases stay 0
  }
  return p;
}

Decoder make_decoder(const DecoderConfig& c, std::uint64_t seed) {
  const std::string why = check_config(c);
  if (!why.empty()) throw std::invalid_argument("decoder: " + why);
  return Decoder{c, decoder_layout(c), decoder_init(c, seed)};
}

std::string attention_name(const DecoderConfig& c) {
  switch (c.attention) {
    case Attention::Mha: return "mha";
    case Attention::Gqa: return "gqa-" + std::to_string(c.n_kv_head);
    case Attention::Mqa: return "mqa";
    case Attention::Mla: return "mla-" + std::to_string(c.kv_lora_rank);
  }
  return "";
}

// ---- the forward pass ------------------------------------------------------------------------------

namespace {
void size(std::vector<double>& v, std::size_t n) {
  if (v.size() != n) v.assign(n, 0.0);
}

// out (N, C) = norm(inp); mean is unused by RMSNorm.
void norm_forward(const DecoderConfig& c, double* out, double* mean, double* rstd, const double* inp, const double* w,
                  const double* b, std::size_t N) {
  if (c.norm == Norm::LayerNorm)
    gpt::layernorm_forward(out, mean, rstd, inp, w, b, N, c.d_model);
  else
    rmsnorm_forward(out, rstd, inp, w, N, c.d_model);
}
}  // namespace

void decoder_forward(const Decoder& m, const int* tokens, const int* targets, std::size_t B, std::size_t T,
                     DecoderActs& a, const std::vector<std::vector<double>>* ablate) {
  const DecoderConfig& c = m.config;
  lm::check_batch("decoder_forward", tokens, targets, B, T, c.vocab, c.n_positions);
  const std::size_t N = B * T, C = c.d_model, L = c.n_layer, H = c.n_head, V = c.vocab, F = c.F(), hs = c.hs(),
                    Gk = c.kv_heads(), dq = c.qk_dim(), Dc = c.kv_lora_rank, R = c.rope_dim;
  const bool mla = c.attention == Attention::Mla, rope = c.positions == Positions::Rope;
  const double* p = m.params.data();
  const DecoderLayout& g = m.layout;
  a.B = B;
  a.T = T;
  size(a.encoded, N * C);
  size(a.norm1, L * N * C), size(a.norm1_mean, L * N), size(a.norm1_rstd, L * N);
  size(a.q, L * N * H * dq), size(a.k, L * N * Gk * dq), size(a.v, L * N * Gk * hs), size(a.ckv, mla ? L * N * Dc : 0);
  size(a.att, L * B * H * T * T), size(a.atty, L * N * H * hs), size(a.attproj, L * N * C), size(a.residual2, L * N * C);
  size(a.norm2, L * N * C), size(a.norm2_mean, L * N), size(a.norm2_rstd, L * N);
  size(a.fc_a, L * N * F), size(a.fc_b, c.ffn == Ffn::Swiglu ? L * N * F : 0), size(a.fc_act, L * N * F);
  size(a.fcproj, L * N * C), size(a.residual3, L * N * C);
  size(a.normf, N * C), size(a.normf_mean, N), size(a.normf_rstd, N), size(a.logits, N * V), size(a.probs, N * V);
  size(a.losses, N), size(a.wte_t, C * V);
  if (rope) a.rope = rope_table(T, mla ? R : hs, c.rope_theta);

  // x = wte[token] (+ wpe[position])
  for (std::size_t n = 0; n < N; ++n) {
    const double* e = p + g.wte + static_cast<std::size_t>(tokens[n]) * C;
    for (std::size_t i = 0; i < C; ++i) a.encoded[n * C + i] = e[i];
    if (!rope)
      for (std::size_t i = 0; i < C; ++i) a.encoded[n * C + i] += p[g.wpe + (n % T) * C + i];
  }
  std::vector<double> scratch_qr, scratch_kr, scratch_kc;
  const double* residual = a.encoded.data();
  for (std::size_t l = 0; l < L; ++l) {
    const LayerOffsets& o = g.layers[l];
    double* norm1 = a.norm1.data() + l * N * C;
    double* q = a.q.data() + l * N * H * dq;
    double* k = a.k.data() + l * N * Gk * dq;
    double* v = a.v.data() + l * N * Gk * hs;
    double* att = a.att.data() + l * B * H * T * T;
    double* atty = a.atty.data() + l * N * H * hs;
    double* attproj = a.attproj.data() + l * N * C;
    double* residual2 = a.residual2.data() + l * N * C;
    norm_forward(c, norm1, a.norm1_mean.data() + l * N, a.norm1_rstd.data() + l * N, residual, p + o.norm1w,
                 p + o.norm1b, N);
    if (!mla) {
      gpt::matmul_forward(q, norm1, p + o.wq, nullptr, N, C, H * hs);   // (N, H·hs)
      gpt::matmul_forward(k, norm1, p + o.wk, nullptr, N, C, Gk * hs);  // (N, G·hs)
      gpt::matmul_forward(v, norm1, p + o.wv, nullptr, N, C, Gk * hs);  // (N, G·hs)
      if (rope) {
        rope_apply(q, a.rope.data(), N, T, H * hs, 0, H, hs, hs, false);
        rope_apply(k, a.rope.data(), N, T, Gk * hs, 0, Gk, hs, hs, false);
      }
    } else {
      // q (N, H, hs + R) = [Q_C,i | Q_R,i];  k (N, H, hs + R) = [K_C,i | K_R]
      double* ckv = a.ckv.data() + l * N * Dc;
      gpt::matmul_forward(ckv, norm1, p + o.wdkv, nullptr, N, C, Dc);  // c_KV (N, Dc)
      gpt::matmul_forward(v, ckv, p + o.wuv, nullptr, N, Dc, H * hs);  // V_C (N, H·hs)
      scratch_kc.assign(N * H * hs, 0.0);
      gpt::matmul_forward(scratch_kc.data(), ckv, p + o.wuk, nullptr, N, Dc, H * hs);  // K_C (N, H·hs)
      std::vector<double> qc(N * H * hs);
      gpt::matmul_forward(qc.data(), norm1, p + o.wq, nullptr, N, C, H * hs);  // Q_C (N, H·hs)
      if (R > 0) {
        scratch_qr.assign(N * H * R, 0.0);
        scratch_kr.assign(N * R, 0.0);
        gpt::matmul_forward(scratch_qr.data(), norm1, p + o.wqr, nullptr, N, C, H * R);  // (N, H·R)
        gpt::matmul_forward(scratch_kr.data(), norm1, p + o.wkr, nullptr, N, C, R);      // (N, R)
        rope_apply(scratch_qr.data(), a.rope.data(), N, T, H * R, 0, H, R, R, false);
        rope_apply(scratch_kr.data(), a.rope.data(), N, T, R, 0, 1, R, R, false);
      }
      for (std::size_t n = 0; n < N; ++n)
        for (std::size_t h = 0; h < H; ++h) {
          double* qrow = q + (n * H + h) * dq;
          double* krow = k + (n * H + h) * dq;
          for (std::size_t i = 0; i < hs; ++i) {
            qrow[i] = qc[(n * H + h) * hs + i];
            krow[i] = scratch_kc[(n * H + h) * hs + i];
          }
          for (std::size_t i = 0; i < R; ++i) {
            qrow[hs + i] = scratch_qr[(n * H + h) * R + i];
            krow[hs + i] = scratch_kr[n * R + i];
          }
        }
    }
    const double* gate = ablate && l < ablate->size() && !(*ablate)[l].empty() ? (*ablate)[l].data() : nullptr;
    attention_core_forward(atty, att, q, k, v, B, T, H, Gk, dq, hs, gate);
    gpt::matmul_forward(attproj, atty, p + o.wo, nullptr, N, H * hs, C);
    gpt::residual_forward(residual2, residual, attproj, N * C);

    double* norm2 = a.norm2.data() + l * N * C;
    double* fc_a = a.fc_a.data() + l * N * F;
    double* fc_act = a.fc_act.data() + l * N * F;
    double* fcproj = a.fcproj.data() + l * N * C;
    double* residual3 = a.residual3.data() + l * N * C;
    norm_forward(c, norm2, a.norm2_mean.data() + l * N, a.norm2_rstd.data() + l * N, residual2, p + o.norm2w,
                 p + o.norm2b, N);
    if (c.ffn == Ffn::Gelu) {
      gpt::matmul_forward(fc_a, norm2, p + o.w1, nullptr, N, C, F);  // (N, F)
      gpt::gelu_forward(fc_act, fc_a, N * F);
      gpt::matmul_forward(fcproj, fc_act, p + o.w2, nullptr, N, F, C);
    } else {
      double* fc_b = a.fc_b.data() + l * N * F;
      gpt::matmul_forward(fc_a, norm2, p + o.wgate, nullptr, N, C, F);  // gate (N, F)
      gpt::matmul_forward(fc_b, norm2, p + o.wup, nullptr, N, C, F);    // up (N, F)
      swiglu_forward(fc_act, fc_a, fc_b, N * F);
      gpt::matmul_forward(fcproj, fc_act, p + o.wdown, nullptr, N, F, C);
    }
    gpt::residual_forward(residual3, residual2, fcproj, N * C);
    residual = residual3;
  }
  norm_forward(c, a.normf.data(), a.normf_mean.data(), a.normf_rstd.data(), residual, p + g.normfw, p + g.normfb, N);
  for (std::size_t t = 0; t < V; ++t)
    for (std::size_t i = 0; i < C; ++i) a.wte_t[i * V + t] = p[g.wte + t * C + i];
  gpt::matmul_forward(a.logits.data(), a.normf.data(), a.wte_t.data(), nullptr, N, C, V);
  gpt::softmax_forward(a.probs.data(), a.logits.data(), N, V);
  a.loss = 0.0;
  a.counted = 0;
  if (targets == nullptr) return;
  a.loss = lm::mean_target_loss(a.losses.data(), a.probs.data(), targets, N, V, &a.counted);
}

}  // namespace attn::decoder
