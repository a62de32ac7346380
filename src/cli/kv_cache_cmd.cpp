// attnlab kv-cache: the model's own KV cache (per layer, per token, per sequence, per batch, per
// GPU), what-ifs for MHA / GQA / MQA / MLA on the same dims with a bar chart, --compare for
// several models, --memory for how many tokens fit after the weights.
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "model_options.h"
#include "errors.h"
#include "models.h"
#include "bars.h"
#include "table.h"
#include "text.h"

namespace attn::cli {

namespace {

struct KvOptions {
  ModelSource src;
  u64 seq_len = 4096, batch = 1, tp = 1, kv_heads = 0, latent = 0, rope = 0;
  std::string dtype = "bf16", weights_dtype = "bf16", compare, memory;
  bool json = false;
};

std::string size_text(u64 bytes) {
  return bytes < 1024 ? fmt::format("{} B", bytes)
                      : fmt::format("{} ({} B)", binary_size(static_cast<double>(bytes)), with_commas_u(bytes));
}
std::string pct(double r) { return fixed(100.0 * r, r < 0.1 ? 2 : 1) + "%"; }

std::string kind_text(const ModelConfig& m) {
  switch (attn_kind(m)) {
    case AttnKind::MLA: return fmt::format("MLA d_c {} + d_R {}", m.d_c, m.d_R);
    case AttnKind::MHA: return fmt::format("MHA {} x {}", m.n_g, m.d_h);
    case AttnKind::GQA: return fmt::format("GQA {} x {}", m.n_g, m.d_h);
    case AttnKind::MQA: return fmt::format("MQA 1 x {}", m.d_h);
  }
  return "";
}

std::string per_layer_formula(const ModelConfig& m) {
  return m.mla ? fmt::format("d_c + d_R = {} + {}", m.d_c, m.d_R) : fmt::format("2 x n_g x d_h = 2 x {} x {}", m.n_g, m.d_h);
}

std::string tp_text(const ModelConfig& m, u64 tp, Lang lang) {
  if (m.mla) return tr(lang, "the latent is replicated on every GPU", "潜向量在每张 GPU 上各存一份");
  if (tp <= m.n_g) return trf(lang, "{} / {} = {} KV heads per GPU","{} / {} = 每张 GPU {} 个 KV 头", m.n_g, tp, m.n_g / tp);
  return trf(lang, "1 KV head per GPU, each replicated {} times","每张 GPU 1 个 KV 头，每个头复制 {} 份", tp / m.n_g);
}

std::string own_cache(const ModelConfig& m, const KvOptions& o, const Dtype& t, Lang lang) {
  KvUsage one = kv_usage(m, o.seq_len, 1, t, o.tp), all = kv_usage(m, o.seq_len, o.batch, t, o.tp);
  u64 per_layer = kv_elements_per_layer(m);
  TextTable tb;
  tb.right = {false, false, true, false};
  tb.rows.push_back({tr(lang, "per token, one layer", "每 token、每层"), per_layer_formula(m), with_commas_u(per_layer), size_text(bytes_of(per_layer, t, "KV"))});
  tb.rows.push_back({m.l == 1 ? std::string(tr(lang, "per token, the 1 layer", "每 token、共 1 层"))
                              : trf(lang, "per token, {} layers", "每 token、{} 层", m.l), "", with_commas_u(all.elements_per_token), size_text(all.bytes_per_token)});
  tb.rows.push_back({trf(lang, "per sequence of {} tokens","每条序列（{} 个 token）", with_commas_u(o.seq_len)), "", with_commas_u(one.elements_total), size_text(one.total_bytes)});
  if (o.batch > 1)
    tb.rows.push_back({trf(lang, "batch of {}","批大小 {}", o.batch), "", with_commas_u(all.elements_total), size_text(all.total_bytes)});
  if (o.tp > 1)
    tb.rows.push_back({trf(lang, "per GPU (tp {})","每张 GPU（tp {}）", o.tp), tp_text(m, o.tp, lang), "", size_text(all.per_gpu_bytes)});
  std::string out = std::string(tr(lang, "The model's own cache\n", "模型自身的 KV cache\n")) + render_table(tb);
  if (all.sliding_layers > 0)
    out += trf(lang, "  Of {} layers, {} use a sliding window of {} tokens and hold at most that many.\n","  {} 层中有 {} 层使用 {} token 的滑动窗口，最多只存这么多 token。\n",
                       m.l, all.sliding_layers, with_commas_u(m.window));
  return out + "\n";
}

std::string whatif_section(const ModelConfig& m, const WhatIfDims& w, const std::vector<KvVariant>& v, Lang lang) {
  std::string out = trf(lang, "What if, on the same dims (n_h {}, d_h {}, l {}; DeepSeek-V2 paper, Table 1)\n","换一种注意力，维度不变（n_h {}，d_h {}，l {}；DeepSeek-V2 论文表 1）\n",
                                w.n_h, w.d_h, w.l);
  TextTable tb;
  tb.header = {tr(lang, "kind", "类型"), tr(lang, "elements per token", "每 token 元素数"), "", tr(lang, "vectors/layer", "每层向量数"),
               tr(lang, "bytes/token", "每 token 字节"), tr(lang, "seq x batch", "序列 × 批"), tr(lang, "vs MHA", "相对 MHA"), ""};
  tb.header[1] = tr(lang, "formula", "公式");
  tb.header[2] = tr(lang, "elements/token", "每 token 元素数");
  tb.right = {false, false, true, true, true, true, true, false};
  std::vector<Bar> bars;
  for (const auto& r : v) {
    std::string formula = r.name == "mha"   ? "2·n_h·d_h·l"
                          : r.name == "gqa" ? fmt::format("2·n_g·d_h·l (n_g={})", r.kv_heads)
                          : r.name == "mqa" ? "2·d_h·l"
                                            : fmt::format("(d_c+d_R)·l ({}+{})", w.d_c, w.d_R);
    std::string name = r.name == "mha" ? "MHA" : r.name == "gqa" ? "GQA" : r.name == "mqa" ? "MQA" : "MLA";
    tb.rows.push_back({name, formula, with_commas_u(r.elements_per_token), with_commas_u(r.vectors_per_layer),
                       with_commas_u(r.bytes_per_token), binary_size(static_cast<double>(r.total_bytes)), pct(r.ratio_to_mha), r.actual ? tr(lang, "<- this model", "<- 本模型") : ""});
    bars.push_back({name, static_cast<double>(r.bytes_per_token), binary_size(static_cast<double>(r.bytes_per_token)) + "/token"});
  }
  out += render_table(tb);
  if (!w.mla_from_model)
    out += trf(lang, "  MLA row: d_c = {}, d_R = {}{}\n","  MLA 一行：d_c = {}，d_R = {}{}\n", w.d_c, w.d_R,
                       (w.d_c == 4 * w.d_h && w.d_R == w.d_h / 2) ? tr(lang, " (DeepSeek-V2's rule d_c = 4·d_h, d_R = d_h/2)", "（DeepSeek-V2 的取法 d_c = 4·d_h，d_R = d_h/2）") : "");
  out += tr(lang, "  vectors/layer: K and V vectors cached per token per layer (MLA: one latent + one RoPE key).\n",
            "  每层向量数：每个 token 在每层缓存的 K、V 向量个数（MLA：一个潜向量 + 一个 RoPE 键）。\n");
  (void)m;
  return out + "\n" + bar_chart(bars, 40) + "\n";
}

// The conversation's figures, computed from the deepseek-v2 and deepseek-llm-67b presets.
std::string mla_note(Lang lang) {
  ModelConfig v2 = load_preset("deepseek-v2"), b67 = load_preset("deepseek-llm-67b");
  Dtype bf16{"bf16", 16}, six{"6-bit", 6};
  u64 e2 = kv_elements_per_layer(v2) * v2.l, e67 = kv_elements_per_layer(b67) * b67.l;
  u64 b2 = bytes_of(e2, bf16, "KV"), b2q = bytes_of(e2, six, "KV"), b67b = bytes_of(e67, bf16, "KV");
  double same = double(b2) / double(b67b), mixed = double(b2q) / double(b67b);
  double mha = double(e2) / double(2 * v2.n_h * v2.d_nope * v2.l);
  return fmt::format(
      fmt::runtime(tr(lang,
         "Note: where \"93.3%\", \"~7%\" and \"about 1/10\" come from (computed from the presets)\n"
         "  DeepSeek-V2 caches ({} + {}) x {} = {} elements per token; DeepSeek 67B (GQA) caches 2 x {} x {} x {} = {}.\n"
         "  Both in BF16: {} vs {} bytes = {}, i.e. {} less.\n"
         "  The paper's \"93.3% less\" puts V2's cache at ~6 bits per element (its deployed KV quantization) and\n"
         "  67B's in BF16: {} vs {} bytes = {} kept, i.e. {} less. That {} is the \"~7%\".\n"
         "  \"About 1/10\" depends on the comparison: 1/{} of 67B's cache at equal precision, 1/{} with V2 at 6 bits,\n"
         "  1/{} of an MHA cache on V2's own dims (2 x {} x {} x {}).\n",
         "注：“减少 93.3%”“约 7%”“约 1/10”从何而来（由预设计算）\n"
         "  DeepSeek-V2 每 token 缓存 ({} + {}) × {} = {} 个元素；DeepSeek 67B（GQA）缓存 2 × {} × {} × {} = {} 个。\n"
         "  两者都用 BF16：{} 对 {} 字节 = {}，即减少 {}。\n"
         "  论文的“减少 93.3%”是把 V2 的缓存按每元素约 6 bit（其部署时的 KV 量化）、67B 按 BF16 来比：\n"
         "  {} 对 {} 字节，剩 {}，即减少 {}。这个 {} 就是“约 7%”。\n"
         "  “约 1/10”取决于跟谁比：同精度下是 67B 的 1/{}，V2 用 6 bit 时是 1/{}，\n"
         "  相对 V2 自身维度上的 MHA 则是 1/{}（2 × {} × {} × {}）。\n")),
      v2.d_c, v2.d_R, v2.l, with_commas_u(e2), b67.n_g, b67.d_h, b67.l, with_commas_u(e67), with_commas_u(b2),
      with_commas_u(b67b), pct(same), pct(1 - same), with_commas_u(b2q), with_commas_u(b67b), pct(mixed), pct(1 - mixed),
      pct(mixed), fixed(1 / same, 1), fixed(1 / mixed, 1), fixed(1 / mha, 1), v2.n_h, v2.d_nope, v2.l);
}

std::string memory_section(const ModelConfig& m, const KvOptions& o, const Dtype& t, Lang lang) {
  u64 mem = parse_size(o.memory, "--memory");
  Dtype wt = parse_dtype(o.weights_dtype, "--weights-dtype");
  u64 weights = bytes_of(count_params(m).total, wt, "weights");
  u64 per_gpu_w = weights / o.tp + (weights % o.tp ? 1 : 0);
  KvUsage one = kv_usage(m, o.seq_len, 1, t, o.tp);
  std::string out = trf(lang, "Memory: {} per GPU; weights in {}: {}{}\n","显存：每张 GPU {}；权重（{}）：{}{}\n",
                                size_text(mem), wt.name, size_text(per_gpu_w),
                                o.tp > 1 ? tr(lang, " (split evenly over the GPUs)", "（平均切到各 GPU）") : "");
  if (per_gpu_w >= mem)
    return out + tr(lang, "  The weights alone do not fit; nothing is left for the KV cache.\n\n", "  仅权重就放不下，没有留给 KV cache 的空间。\n\n");
  u64 free = mem - per_gpu_w;
  out += trf(lang, "  left for the KV cache: {}\n  tokens that fit: {} ({} B per token per GPU, without window savings)\n"
                              "  sequences of {} tokens that fit: {}\n\n","  留给 KV cache：{}\n  可容纳 token 数：{}（每 token 每 GPU {} 字节，不计滑动窗口的节省）\n"
                        "  可容纳 {} token 的序列数：{}\n\n",
                     size_text(free), with_commas_u(free / one.per_gpu_bytes_per_token), with_commas_u(one.per_gpu_bytes_per_token),
                     with_commas_u(o.seq_len), with_commas_u(one.per_gpu_bytes ? free / one.per_gpu_bytes : 0));
  return out;
}

nlohmann::ordered_json model_json(const ModelConfig& m, const KvOptions& o, const Dtype& t,
                                  const std::vector<KvVariant>& v) {
  KvUsage u = kv_usage(m, o.seq_len, o.batch, t, o.tp);
  nlohmann::ordered_json j;
  j["model"] = m.name;
  j["dtype"] = t.name;
  j["bytes_per_element"] = t.bits / 8.0;
  if (t.bits % 8 == 0) j["bytes_per_element"] = t.bits / 8;
  j["seq_len"] = o.seq_len;
  j["batch"] = o.batch;
  j["tp"] = o.tp;
  j["actual"] = {{"elements_per_token", u.elements_per_token}, {"bytes_per_token", u.bytes_per_token},
                 {"total_bytes", u.total_bytes}, {"per_gpu_bytes", u.per_gpu_bytes}};
  j["variants"] = nlohmann::ordered_json::array();
  for (const auto& r : v)
    j["variants"].push_back({{"name", r.name}, {"elements_per_token", r.elements_per_token}, {"bytes_per_token", r.bytes_per_token},
                             {"total_bytes", r.total_bytes}, {"ratio_to_mha", r.ratio_to_mha}});
  return j;
}

ModelConfig model_by_name(const std::string& name) {
  bool file = name.find('/') != std::string::npos || (name.size() > 5 && name.substr(name.size() - 5) == ".json");
  return file ? load_config_file(name) : load_preset(name);
}

std::string run_compare(const KvOptions& o, const Dtype& t, Lang lang) {
  std::vector<ModelConfig> models;
  std::stringstream ss(o.compare);
  for (std::string name; std::getline(ss, name, ',');)
    if (!name.empty()) models.push_back(model_by_name(name));
  if (models.empty()) throw UsageError("--compare: give model names separated by commas, e.g. llama-3-8b,deepseek-v3");
  if (o.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& m : models)
      arr.push_back(model_json(m, o, t, kv_variants(m, whatif_dims(m, o.kv_heads, o.latent, o.rope), o.seq_len, o.batch, t)));
    return arr.dump(2) + "\n";
  }
  TextTable tb;
  tb.header = {tr(lang, "model", "模型"), tr(lang, "attention", "注意力"), tr(lang, "layers", "层数"), tr(lang, "bytes/token", "每 token 字节"),
               trf(lang, "{} tokens x {}","{} token × {}", with_commas_u(o.seq_len), o.batch)};
  tb.right = {false, false, true, true, true};
  if (o.tp > 1) { tb.header.push_back(trf(lang, "per GPU (tp {})","每 GPU（tp {}）", o.tp)); tb.right.push_back(true); }
  std::vector<Bar> bars;
  for (const auto& m : models) {
    KvUsage u = kv_usage(m, o.seq_len, o.batch, t, o.tp);
    std::vector<std::string> row = {m.name, kind_text(m), std::to_string(m.l), with_commas_u(u.bytes_per_token),
                                    binary_size(static_cast<double>(u.total_bytes))};
    if (o.tp > 1) row.push_back(binary_size(static_cast<double>(u.per_gpu_bytes)));
    tb.rows.push_back(row);
    bars.push_back({m.name, static_cast<double>(u.total_bytes), size_text(u.total_bytes)});
  }
  return trf(lang, "KV cache side by side: {} ({} bytes per element), seq-len {}, batch {}\n\n","KV cache 对比：{}（每元素 {} 字节），序列长 {}，批大小 {}\n\n",
                     t.name, bytes_per_element_text(t), with_commas_u(o.seq_len), o.batch) +
         render_table(tb) + "\n" + bar_chart(bars, 40);
}

void run_kv(KvOptions o) {
  Lang lang = source_lang(o.src);
  Dtype t = parse_dtype(o.dtype, "--dtype");
  if (o.seq_len == 0) throw UsageError("--seq-len: must be at least 1");
  if (o.batch == 0) throw UsageError("--batch: must be at least 1");
  if (!o.compare.empty()) {
    if (!o.src.model.empty() || !o.src.config.empty() || o.src.dims.d_model > 0)
      throw UsageError("--compare: give the models there, not also --model, --config or --d-model");
    emit(run_compare(o, t, lang));
    return;
  }
  bool dims = o.src.dims.d_model > 0;
  if (dims) o.src.dims.kv_heads = o.kv_heads;
  ModelConfig m = select_model(o.src.model, o.src.config, o.src.dims);
  WhatIfDims w = whatif_dims(m, dims ? 0 : o.kv_heads, o.latent, o.rope);
  auto variants = kv_variants(m, w, o.seq_len, o.batch, t);
  kv_usage(m, o.seq_len, o.batch, t, o.tp);  // validates --tp before anything is printed
  if (o.json) {
    emit(model_json(m, o, t, variants).dump(2) + "\n");
    return;
  }
  std::string out = fmt::format("KV cache — {} ({}): {}, {} {}\n", m.name, m.title, kind_text(m), m.l,
                                m.l == 1 ? tr(lang, "layer", "层") : tr(lang, "layers", "层"));
  out += trf(lang, "  dtype {} ({} bytes per element) · seq-len {} · batch {} · tp {}\n\n","  数据类型 {}（每元素 {} 字节）· 序列长 {} · 批大小 {} · tp {}\n\n",
                     t.name, bytes_per_element_text(t), with_commas_u(o.seq_len), o.batch, o.tp);
  out += own_cache(m, o, t, lang);
  if (!o.memory.empty()) out += memory_section(m, o, t, lang);
  out += whatif_section(m, w, variants, lang);
  out += mla_note(lang);
  emit(out);
}

}  // namespace

void setup_kv_cache(CLI::App& root) {
  auto opt = std::make_shared<KvOptions>();
  CLI::App* sub = root.add_subcommand("kv-cache", "KV-cache size of a model, and MHA/GQA/MQA/MLA what-ifs on its dims");
  bind_model_source(sub, opt->src);
  sub->add_option("--kv-heads", opt->kv_heads, "KV heads: the GQA what-if (default the model's own, or 8); with --d-model, the model's n_g");
  sub->add_option("--latent-dim", opt->latent, "MLA what-if: latent size d_c (default the model's, or 4·d_h)");
  sub->add_option("--rope-dim", opt->rope, "MLA what-if: RoPE key size d_R (default the model's, or d_h/2)");
  sub->add_option("--seq-len", opt->seq_len, "Tokens per sequence (default 4096)");
  sub->add_option("--batch", opt->batch, "Sequences (default 1)");
  sub->add_option("--dtype", opt->dtype, "fp32|fp16|bf16|fp8|int8|int4 (default bf16)");
  sub->add_option("--tp", opt->tp, "Tensor-parallel GPUs (default 1)");
  sub->add_option("--compare", opt->compare, "Several models side by side, e.g. llama-3-8b,deepseek-v3");
  sub->add_option("--memory", opt->memory, "GPU memory, e.g. 80GiB: how many tokens fit after the weights");
  sub->add_option("--weights-dtype", opt->weights_dtype, "Weights' dtype for --memory (default bf16)");
  sub->add_flag("--json", opt->json, "Print JSON");
  sub->callback([opt] { run_kv(*opt); });
}

}  // namespace attn::cli
