// KV-cache arithmetic: the model's own cache, tensor-parallel shards, sliding windows, and the
// MHA / GQA / MQA / MLA what-ifs of the DeepSeek-V2 paper's Table 1.
//
// Legend: l = layers, n_h = query heads, n_g = KV heads, d_h = head dim, d_c = MLA latent,
// d_R = MLA RoPE key, T = seq_len, B = batch, tp = tensor-parallel ranks.
//   elements per token per layer: standard 2·n_g·d_h (a K and a V vector per KV head),
//                                 MLA d_c + d_R (one latent and one shared RoPE key)
//   elements of a batch: B · Σ_layers min(T, window_i) · per-layer elements
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "errors.h"
#include "models.h"

namespace attn {

namespace {
const char* kKv = "kv";  // calc.err.overflow_mul words it

// Σ over layers of the tokens each layer holds: T, or min(T, window) for a sliding layer.
u64 layer_tokens(const ModelConfig& m, u64 seq_len) {
  if (m.sliding.empty() || m.window == 0) return mul(m.l, seq_len, kKv);  // no loop over --layers 10000000000
  u64 s = 0;
  for (u64 i = 0; i < m.l; ++i) {
    bool slides = i < m.sliding.size() && m.sliding[i] && m.window > 0;
    s = add(s, slides ? std::min(seq_len, m.window) : seq_len, kKv);
  }
  return s;
}
}  // namespace

Dtype parse_dtype(const std::string& s, const std::string& flag) {
  static const std::vector<Dtype> all = {{"fp32", 32}, {"fp16", 16}, {"bf16", 16},
                                         {"fp8", 8},   {"int8", 8},  {"int4", 4}};
  for (const auto& t : all)
    if (t.name == s) return t;
  throw UsageError("calc.err.dtype_unknown", {{"flag", flag}, {"value", s}});
}

std::string bytes_per_element_text(const Dtype& t) {
  return t.bits % 8 == 0 ? fmt::format("{}", t.bits / 8) : fmt::format("{}", t.bits / 8.0);
}

u64 bytes_of(u64 elements, const Dtype& t, std::string_view what) {
  u64 bits = mul(elements, t.bits, what);
  return bits / 8 + (bits % 8 != 0 ? 1 : 0);
}

u64 kv_elements_per_layer(const ModelConfig& m) {
  if (m.mla) return add(m.d_c, m.d_R, kKv);
  return mul(mul(2, m.n_g, kKv), m.d_h, kKv);
}

void validate_tp(const ModelConfig& m, u64 tp) {
  if (tp == 0) throw UsageError("calc.err.at_least_one", {{"flag", "--tp"}});
  if (m.n_h % tp != 0)
    throw UsageError("calc.err.tp_heads", {{"tp", tp}, {"n_h", m.n_h}});
  if (m.mla) return;
  if (tp <= m.n_g ? m.n_g % tp != 0 : tp % m.n_g != 0)
    throw UsageError("calc.err.tp_kv_heads", {{"tp", tp}, {"n_g", m.n_g}});
}

u64 kv_elements_per_layer_per_gpu(const ModelConfig& m, u64 tp) {
  if (m.mla) return kv_elements_per_layer(m);  // the latent is replicated on every rank
  u64 heads = tp <= m.n_g ? m.n_g / tp : 1;    // beyond n_g ranks, each holds one replicated head
  return mul(mul(2, heads, kKv), m.d_h, kKv);
}

KvUsage kv_usage(const ModelConfig& m, u64 seq_len, u64 batch, const Dtype& t, u64 tp) {
  validate_tp(m, tp);
  KvUsage u;
  u64 per_layer = kv_elements_per_layer(m);
  u.elements_per_token = mul(per_layer, m.l, kKv);
  u.bytes_per_token = bytes_of(u.elements_per_token, t, kKv);
  u64 tokens = mul(layer_tokens(m, seq_len), batch, kKv);  // layer-tokens of the whole batch
  u.elements_total = mul(per_layer, tokens, kKv);
  u.total_bytes = bytes_of(u.elements_total, t, kKv);
  u64 gpu_layer = kv_elements_per_layer_per_gpu(m, tp);
  u.per_gpu_bytes = bytes_of(mul(gpu_layer, tokens, kKv), t, kKv);
  u.per_gpu_bytes_per_token = bytes_of(mul(gpu_layer, m.l, kKv), t, kKv);
  for (u64 i = 0; i < m.l && i < m.sliding.size(); ++i) u.sliding_layers += m.sliding[i] ? 1 : 0;
  return u;
}

WhatIfDims whatif_dims(const ModelConfig& m, u64 gqa_kv_heads, u64 latent, u64 rope) {
  WhatIfDims w;
  w.n_h = m.n_h;
  w.d_h = m.mla ? m.d_nope : m.d_h;  // the paper's d_h for DeepSeek: the per-head (nope) size
  w.l = m.l;
  if (gqa_kv_heads > 0) {
    if (m.n_h % gqa_kv_heads != 0)
      throw UsageError("calc.err.kv_heads_divide", {{"kv_heads", gqa_kv_heads}, {"n_h", m.n_h}});
    w.n_g = gqa_kv_heads;
  } else if (attn_kind(m) == AttnKind::GQA) {
    w.n_g = m.n_g;
  } else {
    for (u64 g = std::min<u64>(8, m.n_h - 1); g > 1; --g)
      if (m.n_h % g == 0) { w.n_g = g; break; }
  }
  w.mla_from_model = m.mla;
  if (m.mla) {
    w.k_full = add(m.d_nope, m.d_R, kKv);
    w.v_full = m.d_v;
  }
  w.d_c = latent > 0 ? latent : m.mla ? m.d_c : mul(4, w.d_h, kKv);
  w.d_R = rope > 0 ? rope : m.mla ? m.d_R : w.d_h / 2;
  if (latent > 0 || rope > 0) w.mla_from_model = false;
  return w;
}

std::vector<KvVariant> kv_variants(const ModelConfig& m, const WhatIfDims& w, u64 seq_len,
                                   u64 batch, const Dtype& t, u64 tp) {
  if (tp == 0) throw UsageError("calc.err.at_least_one", {{"flag", "--tp"}});
  std::vector<KvVariant> v;
  // per_gpu: one GPU's share of a layer's elements (heads split, or replicated past tp > heads)
  auto row = [&](const char* name, u64 kv_heads, u64 vectors, u64 per_layer, u64 per_gpu) {
    KvVariant r;
    r.name = name;
    r.kv_heads = kv_heads;
    r.vectors_per_layer = vectors;
    r.elements_per_layer = per_layer;
    r.elements_per_token = mul(per_layer, w.l, kKv);
    r.bytes_per_token = bytes_of(r.elements_per_token, t, kKv);
    r.total_bytes = bytes_of(mul(mul(per_layer, layer_tokens(m, seq_len), kKv), batch, kKv), t, kKv);
    r.per_gpu_elements_per_layer = per_gpu;
    r.per_gpu_bytes = bytes_of(mul(mul(per_gpu, layer_tokens(m, seq_len), kKv), batch, kKv), t, kKv);
    v.push_back(r);
  };
  auto heads_per_gpu = [&](u64 heads) { return tp >= heads ? u64{1} : heads / tp + (heads % tp ? 1 : 0); };
  auto std_row = [&](const char* name, u64 heads, u64 k_width, u64 v_width) {
    u64 per_head = add(k_width, v_width, kKv);
    row(name, heads, mul(2, heads, kKv), mul(heads, per_head, kKv), mul(heads_per_gpu(heads), per_head, kKv));
  };
  std_row("mha", w.n_h, w.d_h, w.d_h);
  if (w.k_full > 0) std_row("mha_full", w.n_h, w.k_full, w.v_full);
  if (w.n_g > 1 && w.n_g < w.n_h) std_row("gqa", w.n_g, w.d_h, w.d_h);
  std_row("mqa", 1, w.d_h, w.d_h);
  u64 latent = add(w.d_c, w.d_R, kKv);
  row("mla", 0, w.d_R > 0 ? 2 : 1, latent, latent);  // one latent, and a RoPE key unless d_R = 0
  AttnKind k = attn_kind(m);
  for (auto& r : v) {
    r.ratio_to_mha = static_cast<double>(r.elements_per_layer) / static_cast<double>(v.front().elements_per_layer);
    r.actual = (k == AttnKind::MHA && r.name == "mha") || (k == AttnKind::MQA && r.name == "mqa") ||
               (k == AttnKind::GQA && r.name == "gqa" && r.kv_heads == m.n_g) ||
               (k == AttnKind::MLA && r.name == "mla" && w.mla_from_model);
  }
  return v;
}

u64 parse_size(const std::string& s, const std::string& flag) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  std::string num = s.substr(0, i), unit = s.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  static const std::vector<std::pair<std::string, double>> units = {
      {"", 1},           {"B", 1},          {"KiB", 1024.0},   {"MiB", 1048576.0},
      {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"KB", 1e3}, {"MB", 1e6},
      {"GB", 1e9},       {"TB", 1e12}};
  double scale = 0;
  for (const auto& [name, f] : units)
    if (name == unit) scale = f;
  if (num.find_first_of("0123456789") == std::string::npos || scale == 0 || std::count(num.begin(), num.end(), '.') > 1)
    throw UsageError("calc.err.size_bad", {{"flag", flag}, {"value", s}});
  double bytes = std::floor(std::strtod(num.c_str(), nullptr) * scale);  // 400 digits: inf, refused below
  if (!(bytes < 1.8e19)) throw UsageError("calc.err.size_overflow", {{"flag", flag}, {"value", s}});
  return static_cast<u64>(bytes);
}

}  // namespace attn
