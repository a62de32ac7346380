// attnlab params: a model's parameters — embeddings, per-layer attention (per matrix), FFN or
// MoE, norms, head — per layer and in total, active per token for MoE, and the attention / FFN
// share of a layer (the chapter's 33% / 67%).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "model_options.h"
#include "models.h"
#include "table.h"
#include "text.h"

namespace attn::cli {

namespace {

struct ParamsOptions {
  ModelSource src;
  bool json = false;
};

std::string pct(u64 part, u64 whole) {
  return whole == 0 ? "-" : fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

std::string describe(const ModelConfig& m, Lang lang) {
  std::string a = attn_kind_name(attn_kind(m));
  if (m.mla)
    return fmt::format("MLA: {} {} · d_c {} + d_R {}{}", m.n_h, tr(lang, "heads", "个头"), m.d_c, m.d_R,
                       m.d_cq ? fmt::format(", d_cq {}", m.d_cq) : "");
  return trf(lang, "{}: {} query heads, {} KV heads × d_h {}", "{}：{} 个查询头，{} 个 KV 头 × d_h {}", a, m.n_h, m.n_g,
             m.d_h);
}

// An item's name as shown: matrix names (W_Q, b_1, q_norm …) as they are; the descriptive ones in
// the run's language. (The English name stays the JSON key.)
std::string item_label(const std::string& name, Lang lang) {
  if (lang == Lang::En) return name;
  static const std::pair<const char*, const char*> zh[] = {
      {"token embedding", "词嵌入"},
      {"position embedding", "位置嵌入"},
      {"final norm", "最终归一化"},
      {"lm_head (tied to the token embedding)", "lm_head（与词嵌入共享，不重复计）"},
      {"norm 1", "归一化 1"},
      {"norm 2", "归一化 2"},
      {"norm 3", "归一化 3"},
      {"norm 4", "归一化 4"},
      {"routed experts", "路由专家"},
      {"shared experts", "共享专家"},
      {"router W_gate", "路由器 W_gate"},
      {"router e_score_correction_bias", "路由器 e_score_correction_bias"},
  };
  for (const auto& [en, cn] : zh)
    if (name == en) return cn;
  return name;
}

void add_items(TextTable& t, const std::string& group, const std::vector<ParamItem>& items, Lang lang) {
  bool first = true;
  for (const auto& p : items) {
    t.rows.push_back({first ? group : "", item_label(p.name, lang), p.shape, with_commas_u(p.count)});
    first = false;
  }
}

std::string layer_section(const LayerParams& lp, Lang lang) {
  std::string out = lp.moe ? trf(lang, "MoE layer (x {})\n","MoE 层（× {}）\n", lp.layers)
                           : trf(lang, "Layer (x {})\n","每层（× {}）\n", lp.layers);
  TextTable t;
  t.header = {tr(lang, "block", "模块"), tr(lang, "weight", "权重"), tr(lang, "shape", "形状"), tr(lang, "params", "参数量")};
  t.right = {false, false, false, true};
  add_items(t, tr(lang, "attention", "注意力"), lp.attention, lang);
  add_items(t, lp.moe ? "MoE" : "FFN", lp.ffn, lang);
  add_items(t, tr(lang, "norms", "归一化"), lp.norms, lang);
  out += render_table(t);
  u64 core = lp.attention_total + lp.ffn_total;
  out += trf(lang, "  attention {}  +  {} {}  +  norms {}  =  {} per layer\n","  注意力 {}  +  {} {}  +  归一化 {}  =  每层 {}\n",
                     with_commas_u(lp.attention_total), lp.moe ? "MoE" : "FFN", with_commas_u(lp.ffn_total),
                     with_commas_u(lp.norm_total), with_commas_u(lp.total));
  out += trf(lang, "  share of attention + {}: attention {}, {} {}\n","  注意力与 {} 之比：注意力 {}，{} {}\n",
                     lp.moe ? "MoE" : "FFN", pct(lp.attention_total, core), lp.moe ? "MoE" : "FFN",
                     pct(lp.ffn_total, core));
  if (lp.moe) {
    u64 active_core = lp.attention_total + lp.ffn_active;
    out += trf(lang, "  one token passes through {} MoE parameters (top-k routed + shared + router): attention {}, MoE {}\n","  每个 token 实际经过 {} 个 MoE 参数（top-k 路由专家 + 共享专家 + 路由器）：注意力 {}，MoE {}\n",
                       with_commas_u(lp.ffn_active), pct(lp.attention_total, active_core), pct(lp.ffn_active, active_core));
  }
  return out + "\n";
}

std::string render_text(const ModelConfig& m, const ParamReport& r, Lang lang) {
  std::string out = fmt::format("{} — {}\n", m.name, m.title) +
                    trf(lang, "  {}, d_model {}, {} {}\n", "  {}，d_model {}，{} 层\n", describe(m, lang), m.d, m.l,
                        m.l == 1 ? "layer" : "layers");
  if (!m.source.empty()) out += trf(lang, "  source: {}\n","  来源：{}\n", m.source);
  out += "\n";
  TextTable e;
  e.right = {false, false, true};
  for (const auto& p : r.embeddings) e.rows.push_back({item_label(p.name, lang), p.shape, with_commas_u(p.count)});
  out += std::string(tr(lang, "Embeddings\n", "嵌入\n")) + render_table(e) + "\n";
  for (const auto& lp : r.layers) out += layer_section(lp, lang);
  TextTable h;
  h.right = {false, false, true};
  for (const auto& p : r.head) h.rows.push_back({item_label(p.name, lang), p.shape, with_commas_u(p.count)});
  out += std::string(tr(lang, "Output\n", "输出\n")) + render_table(h) + "\n";
  TextTable s;
  s.right = {false, true};
  s.rows.push_back({tr(lang, "embeddings", "嵌入"), with_commas_u(r.embedding_total)});
  for (const auto& lp : r.layers)
    s.rows.push_back({fmt::format("{} x {}", lp.layers, with_commas_u(lp.total)), with_commas_u(lp.total * lp.layers)});
  s.rows.push_back({tr(lang, "final norm + lm_head", "末层归一化 + lm_head"), with_commas_u(r.head_total)});
  s.rows.push_back({tr(lang, "total parameters", "总参数量"), with_commas_u(r.total)});
  if (r.active != r.total)
    s.rows.push_back({tr(lang, "active per token", "每个 token 激活"), with_commas_u(r.active) + " (" + pct(r.active, r.total) + ")"});
  if (r.mtp > 0)
    s.rows.push_back({tr(lang, "MTP module (not in the total)", "MTP 模块（不计入总数）"), with_commas_u(r.mtp)});
  out += std::string(tr(lang, "Total\n", "合计\n")) + render_table(s);
  if (m.official_total > 0) {
    bool same = m.official_total == r.total;
    out += trf(lang, "  official: {} — {}\n","  官方：{} —— {}\n", with_commas_u(m.official_total),
                       same ? tr(lang, "matches", "一致") : tr(lang, "DIFFERS", "不一致"));
  }
  if (!m.official_note.empty()) out += "  " + m.official_note + "\n";
  return out;
}

nlohmann::ordered_json items_json(const std::vector<ParamItem>& items) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& p : items) j[p.name] = p.count;
  return j;
}

std::string render_json(const ModelConfig& m, const ParamReport& r) {
  nlohmann::ordered_json j;
  j["model"] = m.name;
  j["total_params"] = r.total;
  j["active_params"] = r.active;
  auto& b = j["breakdown"];
  b["embeddings"] = items_json(r.embeddings);
  b["layers"] = nlohmann::ordered_json::array();
  for (const auto& lp : r.layers) {
    nlohmann::ordered_json l;
    l["kind"] = lp.moe ? "moe" : "dense";
    l["count"] = lp.layers;
    l["attention"] = items_json(lp.attention);
    l["attention_total"] = lp.attention_total;
    l[lp.moe ? "moe" : "ffn"] = items_json(lp.ffn);
    l["ffn_total"] = lp.ffn_total;
    l["ffn_active"] = lp.ffn_active;
    l["norms_total"] = lp.norm_total;
    l["layer_total"] = lp.total;
    u64 core = lp.attention_total + lp.ffn_total;
    l["attention_share"] = core ? static_cast<double>(lp.attention_total) / static_cast<double>(core) : 0.0;
    b["layers"].push_back(l);
  }
  b["head"] = items_json(r.head);
  if (r.mtp > 0) b["mtp_params_not_in_total"] = r.mtp;
  if (m.official_total > 0) j["official_total_params"] = m.official_total;
  return j.dump(2) + "\n";
}

void run_params(const ParamsOptions& o) {
  Lang lang = source_lang(o.src);
  ModelConfig m = select_model(o.src.model, o.src.config, o.src.dims);
  ParamReport r = count_params(m);
  emit(o.json ? render_json(m, r) : render_text(m, r, lang));
}

}  // namespace

void setup_params(CLI::App& root) {
  auto opt = std::make_shared<ParamsOptions>();
  CLI::App* sub = root.add_subcommand("params", "Count a model's parameters: per matrix, per layer, total, active (MoE)");
  bind_model_source(sub, opt->src);
  sub->add_option("--kv-heads", opt->src.dims.kv_heads, "Explicit dims: KV heads n_g (default n_h)");
  sub->add_flag("--json", opt->json, "Print JSON: {model, total_params, active_params, breakdown}");
  sub->callback([opt] { run_params(*opt); });
}

}  // namespace attn::cli
