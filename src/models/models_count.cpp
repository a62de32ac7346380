// Parameter counting: embeddings, per-layer attention (per matrix), FFN or MoE, norms, head.
//
// Legend: d = d_model, l = layers, n_h = query heads, n_g = KV heads, d_h = head dim,
// d_ff = FFN inner size, V = vocabulary; MLA: d_cq = q_lora_rank, d_c = kv_lora_rank,
// d_nope = qk_nope_head_dim, d_R = qk_rope_head_dim, d_v = v_head_dim; MoE: E routed experts
// of inner size d_e, S shared experts, k routed per token.
// Weights follow the row-vector convention: W_Q is [d, n_h·d_h].
#include <fmt/format.h>

#include "errors.h"
#include "models.h"

namespace attn {

u64 mul(u64 a, u64 b, std::string_view what) {
  u64 r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw UsageError("calc.err.overflow_mul", {{"where", "-"}, {"what", what}, {"a", a}, {"b", b}});
  return r;
}

u64 add(u64 a, u64 b, std::string_view what) {
  u64 r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw UsageError("calc.err.overflow_add", {{"where", "-"}, {"what", what}, {"a", a}, {"b", b}});
  return r;
}

AttnKind attn_kind(const ModelConfig& m) {
  if (m.mla) return AttnKind::MLA;
  if (m.n_g == m.n_h) return AttnKind::MHA;
  if (m.n_g == 1) return AttnKind::MQA;
  return AttnKind::GQA;
}

const char* attn_kind_name(AttnKind k) {
  switch (k) {
    case AttnKind::MHA: return "MHA";
    case AttnKind::GQA: return "GQA";
    case AttnKind::MQA: return "MQA";
    case AttnKind::MLA: return "MLA";
  }
  return "?";
}

bool is_moe_layer(const ModelConfig& m, u64 layer) {
  return m.n_routed > 0 && layer >= m.first_dense && layer % m.moe_every == m.moe_phase;
}

namespace {

const char* kParams = "params";  // calc.err.overflow_mul words it

std::string shape(u64 a, u64 b) { return fmt::format("[{}, {}]", a, b); }
std::string shape(u64 a) { return fmt::format("[{}]", a); }

void push(std::vector<ParamItem>& v, std::string name, std::string shp, u64 count, Msg label = {}) {
  v.push_back({std::move(name), std::move(shp), count, std::move(label)});
}

u64 sum(const std::vector<ParamItem>& v) {
  u64 s = 0;
  for (const auto& p : v) s = add(s, p.count, kParams);
  return s;
}

// Standard attention: W_Q [d, n_h·d_h], W_K and W_V [d, n_g·d_h], W_O [n_h·d_h, d].
std::vector<ParamItem> standard_attention(const ModelConfig& m) {
  std::vector<ParamItem> v;
  u64 q = mul(m.n_h, m.d_h, kParams), kv = mul(m.n_g, m.d_h, kParams);
  push(v, "W_Q", shape(m.d, q), mul(m.d, q, kParams));
  push(v, "W_K", shape(m.d, kv), mul(m.d, kv, kParams));
  push(v, "W_V", shape(m.d, kv), mul(m.d, kv, kParams));
  push(v, "W_O", shape(q, m.d), mul(q, m.d, kParams));
  if (m.qkv_bias) {
    push(v, "b_Q", shape(q), q);
    push(v, "b_K", shape(kv), kv);
    push(v, "b_V", shape(kv), kv);
  }
  if (m.o_bias) push(v, "b_O", shape(m.d), m.d);
  if (m.qk_norm) {
    push(v, "q_norm", shape(m.d_h), m.d_h);
    push(v, "k_norm", shape(m.d_h), m.d_h);
  }
  return v;
}

// MLA (DeepSeek-V2 §2.1): queries through a latent d_cq (or straight from d), keys and values
// through the cached latent d_c, plus a decoupled RoPE key of d_R shared by all heads.
std::vector<ParamItem> mla_attention(const ModelConfig& m) {
  std::vector<ParamItem> v;
  u64 qk = add(m.d_nope, m.d_R, kParams);
  u64 q_out = mul(m.n_h, qk, kParams);
  if (m.d_cq > 0) {
    push(v, "W_DQ (q_a_proj)", shape(m.d, m.d_cq), mul(m.d, m.d_cq, kParams));
    push(v, "q_a_layernorm", shape(m.d_cq), m.d_cq);
    push(v, "W_UQ + W_QR (q_b_proj)", shape(m.d_cq, q_out), mul(m.d_cq, q_out, kParams));
  } else {
    push(v, "W_Q (q_proj)", shape(m.d, q_out), mul(m.d, q_out, kParams));
  }
  u64 ckv = add(m.d_c, m.d_R, kParams);
  push(v, "W_DKV + W_KR (kv_a_proj_with_mqa)", shape(m.d, ckv), mul(m.d, ckv, kParams));
  if (m.mla_kv_norm) push(v, "kv_a_layernorm", shape(m.d_c), m.d_c);
  u64 kv_out = mul(m.n_h, add(m.d_nope, m.d_v, kParams), kParams);
  push(v, "W_UK + W_UV (kv_b_proj)", shape(m.d_c, kv_out), mul(m.d_c, kv_out, kParams));
  u64 o_in = mul(m.n_h, m.d_v, kParams);
  push(v, "W_O (o_proj)", shape(o_in, m.d), mul(o_in, m.d, kParams));
  return v;
}

// One FFN of inner size f: gated W_gate, W_up [d, f], W_down [f, d]; else W_1 [d, f], W_2 [f, d].
u64 ffn_size(const ModelConfig& m, u64 f) {
  u64 w = mul(mul(m.d, f, kParams), m.gated_ffn ? 3 : 2, kParams);
  if (m.mlp_bias) w = add(w, add(mul(f, m.gated_ffn ? 2 : 1, kParams), m.d, kParams), kParams);
  return w;
}

std::vector<ParamItem> dense_ffn(const ModelConfig& m) {
  std::vector<ParamItem> v;
  if (!m.ffn) return v;  // an attention-only model (attnlab train without --mlp)
  u64 df = mul(m.d, m.d_ff, kParams);
  if (m.gated_ffn) {
    push(v, "W_gate", shape(m.d, m.d_ff), df);
    push(v, "W_up", shape(m.d, m.d_ff), df);
    push(v, "W_down", shape(m.d_ff, m.d), df);
  } else {
    push(v, "W_1", shape(m.d, m.d_ff), df);
    push(v, "W_2", shape(m.d_ff, m.d), df);
  }
  if (m.mlp_bias) {
    push(v, m.gated_ffn ? "b_up, b_gate" : "b_1", shape(m.d_ff), mul(m.d_ff, m.gated_ffn ? 2 : 1, kParams));
    push(v, m.gated_ffn ? "b_down" : "b_2", shape(m.d), m.d);
  }
  return v;
}

std::vector<ParamItem> moe_ffn(const ModelConfig& m) {
  std::vector<ParamItem> v;
  u64 one = ffn_size(m, m.moe_d_ff);
  push(v, "routed experts",
       fmt::format("{} x 3 x {}", m.n_routed, shape(m.d, m.moe_d_ff)), mul(m.n_routed, one, kParams),
       {"calc.item.routed_experts"});
  if (m.n_shared > 0)
    push(v, "shared experts",
         fmt::format("{} x 3 x {}", m.n_shared, shape(m.d, m.moe_d_ff)), mul(m.n_shared, one, kParams),
         {"calc.item.shared_experts"});
  push(v, "router W_gate", shape(m.d, m.n_routed), mul(m.d, m.n_routed, kParams), {"calc.item.router_gate"});
  if (m.router_bias) push(v, "router e_score_correction_bias", shape(m.n_routed), m.n_routed,
                          {"calc.item.router_bias"});
  return v;
}

LayerParams layer_params(const ModelConfig& m, bool moe, u64 layers) {
  LayerParams lp;
  lp.moe = moe;
  lp.layers = layers;
  lp.attention = m.mla ? mla_attention(m) : standard_attention(m);
  lp.ffn = moe ? moe_ffn(m) : dense_ffn(m);
  u64 norm = m.norm_bias ? mul(m.d, 2, kParams) : m.d;
  for (u64 i = 0; i < m.norms_per_layer; ++i)
    push(lp.norms, fmt::format("norm {}", i + 1), m.norm_bias ? fmt::format("2 x [{}]", m.d) : shape(m.d), norm,
         {"calc.item.norm", {{"n", i + 1}}});
  lp.attention_total = sum(lp.attention);
  lp.ffn_total = sum(lp.ffn);
  lp.norm_total = sum(lp.norms);
  lp.total = add(add(lp.attention_total, lp.ffn_total, kParams), lp.norm_total, kParams);
  lp.ffn_active = lp.ffn_total;
  if (moe) {
    u64 one = ffn_size(m, m.moe_d_ff);
    u64 router = add(mul(m.d, m.n_routed, kParams), m.router_bias ? m.n_routed : 0, kParams);
    lp.ffn_active = add(mul(add(m.top_k, m.n_shared, kParams), one, kParams), router, kParams);
  }
  return lp;
}

}  // namespace

ParamReport count_params(const ModelConfig& m) {
  ParamReport r;
  push(r.embeddings, "token embedding", shape(m.vocab, m.d), mul(m.vocab, m.d, kParams),
       {"calc.item.token_embedding"});
  if (m.positions > 0) push(r.embeddings, "position embedding", shape(m.positions, m.d), mul(m.positions, m.d, kParams),
                            {"calc.item.position_embedding"});
  u64 moe_layers = 0;
  if (m.n_routed > 0 && m.first_dense < m.l) {
    // by formula: the layers i in [first_dense, l) with i % moe_every == moe_phase; below(n)
    // counts them in [0, n): one per whole period, one more if the partial period reaches the phase
    auto multiples_below = [&](u64 n) { return n / m.moe_every + (n % m.moe_every > m.moe_phase ? 1 : 0); };
    moe_layers = multiples_below(m.l) - multiples_below(m.first_dense);
  }
  if (m.l > moe_layers) r.layers.push_back(layer_params(m, false, m.l - moe_layers));
  if (moe_layers > 0) r.layers.push_back(layer_params(m, true, moe_layers));
  if (m.final_norm)
    push(r.head, "final norm", m.norm_bias ? fmt::format("2 x [{}]", m.d) : shape(m.d), m.norm_bias ? mul(m.d, 2, kParams) : m.d,
         {"calc.item.final_norm"});
  push(r.head, m.tied_embeddings ? "lm_head (tied to the token embedding)" : "lm_head", shape(m.d, m.vocab),
       m.tied_embeddings ? 0 : mul(m.d, m.vocab, kParams),
       m.tied_embeddings ? Msg{"calc.item.lm_head_tied"} : Msg{});
  r.embedding_total = sum(r.embeddings);
  r.head_total = sum(r.head);
  r.total = add(r.embedding_total, r.head_total, kParams);
  r.active = r.total;
  for (const auto& lp : r.layers) {
    r.total = add(r.total, mul(lp.total, lp.layers, kParams), kParams);
    u64 active_layer = add(add(lp.attention_total, lp.norm_total, kParams), lp.ffn_active, kParams);
    r.active = add(r.active, mul(active_layer, lp.layers, kParams), kParams);
  }
  if (m.mtp_layers > 0) {
    // DeepSeek-V3 §2.2: per module enorm, hnorm [d], eh_proj [2d, d], one (MoE) decoder layer and
    // the shared head's norm [d]; the embedding and output head are shared with the main model.
    LayerParams mtp_layer = layer_params(m, m.n_routed > 0, 1);
    u64 one = add(add(mul(3, m.d, kParams), mul(mul(2, m.d, kParams), m.d, kParams), kParams), mtp_layer.total, kParams);
    r.mtp = mul(one, m.mtp_layers, kParams);
  }
  return r;
}

}  // namespace attn

namespace attn {

u64 ffn_params_all_layers(const ParamReport& r) {
  u64 total = 0;
  for (const LayerParams& lp : r.layers) total += lp.ffn_total * lp.layers;
  return total;
}

}  // namespace attn
