// attnlab kv-cache: the model's own KV cache (per layer, per token, per sequence, per batch, per
// GPU), what-ifs for MHA / GQA / MQA / MLA on the same dims with a bar chart, --compare for
// several models, --memory for how many tokens fit after the weights and how many sequences per
// variant (MHA, GQA, MQA, MLA on the same weights).
#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "html.h"
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
  ReportOutputs out;                // --json FILE|-, --html FILE|-
  std::vector<std::string> given;   // the flags given on the command line
};

// One model's settings: with --compare each would be ignored (the comparison shows every model's
// own cache on its own dims), so each is refused by name instead.
constexpr const char* kNotWithCompare[] = {"--layers", "--heads", "--head-dim", "--d-ff", "--vocab", "--ffn", "--kv-heads",
                                           "--latent-dim", "--rope-dim", "--memory", "--weights-dtype"};

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

std::string tp_text(const ModelConfig& m, u64 tp, const Text& t) {
  if (m.mla) return t("calc.kv.tp.mla");
  if (tp <= m.n_g) return t("calc.kv.tp.split", {{"n_g", m.n_g}, {"tp", tp}, {"per", m.n_g / tp}});
  return t("calc.kv.tp.replicated", {{"times", tp / m.n_g}});
}

std::string own_cache(const ModelConfig& m, const KvOptions& o, const Dtype& dt, const Text& t) {
  KvUsage one = kv_usage(m, o.seq_len, 1, dt, o.tp), all = kv_usage(m, o.seq_len, o.batch, dt, o.tp);
  u64 per_layer = kv_elements_per_layer(m);
  TextTable tb;
  tb.header = {t("calc.kv.col.what"), t("calc.kv.col.formula"), t("calc.kv.col.own_elements"), t("calc.kv.col.own_size", {{"dtype", dt.name}})};
  tb.right = {false, false, true, false};
  tb.rows.push_back({t("calc.kv.row.one_layer"), per_layer_formula(m), with_commas_u(per_layer), size_text(bytes_of(per_layer, dt, "kv"))});
  tb.rows.push_back({t("calc.kv.row.all_layers", {{"l", m.l}}), "", with_commas_u(all.elements_per_token), size_text(all.bytes_per_token)});
  tb.rows.push_back({t("calc.kv.row.sequence", {{"seq_len", o.seq_len}}), "", with_commas_u(one.elements_total), size_text(one.total_bytes)});
  if (o.batch > 1)
    tb.rows.push_back({t("calc.kv.row.batch", {{"batch", o.batch}}), "", with_commas_u(all.elements_total), size_text(all.total_bytes)});
  if (o.tp > 1)
    tb.rows.push_back({t("calc.kv.row.per_gpu", {{"tp", o.tp}}), tp_text(m, o.tp, t), "", size_text(all.per_gpu_bytes)});
  std::string out = t("calc.kv.own") + "\n" + render_table(tb);
  if (all.sliding_layers > 0 && m.chunked)
    out += "  " + t("presets.kv.chunked", {{"l", m.l}, {"chunked", all.sliding_layers}, {"window", m.window},
                                          {"global", m.l - all.sliding_layers}}) + "\n";
  else if (all.sliding_layers > 0)
    out += "  " + t("calc.kv.sliding", {{"l", m.l}, {"sliding", all.sliding_layers}, {"window", m.window}}) + "\n";
  return out + "\n";
}

// The bar charts of the report, for its --html page.
std::vector<HtmlBarChart> g_page_charts;

std::string whatif_section(const WhatIfDims& w, const std::vector<KvVariant>& v, const KvOptions& o, const Text& t) {
  std::string out = t("calc.kv.whatif", {{"n_h", w.n_h}, {"d_h", w.d_h}, {"l", w.l}}) + "\n";
  TextTable tb;
  tb.header = {t("calc.kv.col.kind"),     t("calc.kv.col.formula"), t("calc.kv.col.layer_elements"), t("calc.kv.col.vectors"),
               t("calc.kv.col.elements"), t("calc.kv.col.bytes"),   t("calc.kv.col.seq_batch")};
  tb.right = {false, false, true, true, true, true, true};
  if (o.tp > 1) {
    tb.header.push_back(t("calc.kv.col.per_gpu", {{"tp", o.tp}}));
    tb.right.push_back(true);
  }
  tb.header.push_back(t("calc.kv.col.vs_mha"));
  tb.header.push_back("");
  tb.right.push_back(true);
  tb.right.push_back(false);
  std::vector<Bar> bars;
  for (const auto& r : v) {
    std::string formula = r.name == "mha"        ? "2·n_h·d_h·l"
                          : r.name == "mha_full" ? fmt::format("n_h·(d_h+d_R+d_v)·l ({}+{}+{})", w.d_h, w.k_full - w.d_h, w.v_full)
                          : r.name == "gqa"      ? fmt::format("2·n_g·d_h·l (n_g={})", r.kv_heads)
                          : r.name == "mqa"      ? "2·d_h·l"
                                                 : fmt::format("(d_c+d_R)·l ({}+{})", w.d_c, w.d_R);
    std::string name = r.name == "mha" ? "MHA" : r.name == "mha_full" ? "MHA'" : r.name == "gqa" ? "GQA" : r.name == "mqa" ? "MQA" : "MLA";
    std::vector<std::string> row = {name, formula, with_commas_u(r.elements_per_layer), with_commas_u(r.vectors_per_layer),
                                    with_commas_u(r.elements_per_token), with_commas_u(r.bytes_per_token),
                                    binary_size(static_cast<double>(r.total_bytes))};
    if (o.tp > 1) row.push_back(binary_size(static_cast<double>(r.per_gpu_bytes)));
    row.push_back(pct(r.ratio_to_mha));
    row.push_back(r.actual ? t("calc.kv.this_model") : "");
    tb.rows.push_back(row);
    bars.push_back({name, static_cast<double>(r.bytes_per_token),
                    t("calc.kv.per_token", {{"size", binary_size(static_cast<double>(r.bytes_per_token))}})});
  }
  out += render_table(tb);
  if (!w.mla_from_model)
    out += "  " + t("calc.kv.mla_row", {{"d_c", w.d_c}, {"d_R", w.d_R}, {"rule", w.d_c == 4 * w.d_h && w.d_R == w.d_h / 2}}) + "\n";
  if (w.k_full > 0) {
    u64 conv = v[0].elements_per_layer, full = v[1].elements_per_layer, mla = v.back().elements_per_layer;
    // "1/x of" where MLA's cache is the smaller one, "x× as much as" where a large --latent-dim
    // makes it the larger (it printed 1/0.0)
    auto ratio = [&](u64 mha) { return fixed(mla <= mha ? double(mha) / double(mla) : double(mla) / double(mha), 1); };
    out += "  " + t("calc.kv.mha_convention", {{"n_h", w.n_h}, {"d_h", w.d_h}, {"conv", conv}, {"k", w.k_full},
                                               {"d_R", w.k_full - w.d_h}, {"v", w.v_full}, {"full", full},
                                               {"conv_less", mla <= conv}, {"r_conv", ratio(conv)},
                                               {"full_less", mla <= full}, {"r_full", ratio(full)}}) + "\n";
  }
  out += "  " + t("calc.kv.vectors_note", {{"l", w.l}}) + "\n";
  if (o.tp > 1) out += "  " + t("calc.kv.whatif_tp", {{"tp", o.tp}}) + "\n";
  g_page_charts.push_back({t("html.chart.kv_whatif"), bars});
  return out + "\n" + bar_chart(bars, 40) + "\n";
}

bool is_deepseek(const ModelConfig& m) {
  return m.model_type.rfind("deepseek", 0) == 0 || m.name.rfind("deepseek", 0) == 0;
}

// The conversation's figures, computed from the deepseek-v2 and deepseek-llm-67b presets.
std::string mla_note(const Text& t) {
  ModelConfig v2 = load_preset("deepseek-v2"), b67 = load_preset("deepseek-llm-67b");
  Dtype bf16{"bf16", 16}, six{"6-bit", 6};
  u64 e2 = kv_elements_per_layer(v2) * v2.l, e67 = kv_elements_per_layer(b67) * b67.l;
  u64 b2 = bytes_of(e2, bf16, "kv"), b2q = bytes_of(e2, six, "kv"), b67b = bytes_of(e67, bf16, "kv");
  double same = double(b2) / double(b67b), mixed = double(b2q) / double(b67b);
  double mha = double(e2) / double(2 * v2.n_h * v2.d_nope * v2.l);
  std::string out = t("calc.kv.note.title") + "\n";
  for (const std::string& line :
       {t("calc.kv.note.cache", {{"d_c", v2.d_c}, {"d_R", v2.d_R}, {"l", v2.l}, {"v2", e2}, {"n_g", b67.n_g},
                                 {"d_h", b67.d_h}, {"l67", b67.l}, {"b67", e67}}),
        t("calc.kv.note.bf16", {{"v2_bytes", b2}, {"b67_bytes", b67b}, {"same", pct(same)}, {"less", pct(1 - same)}}),
        t("calc.kv.note.paper"),
        t("calc.kv.note.paper2", {{"v2_bytes", b2q}, {"b67_bytes", b67b}, {"kept", pct(mixed)}, {"less", pct(1 - mixed)}}),
        t("calc.kv.note.tenth", {{"same", fixed(1 / same, 1)}, {"mixed", fixed(1 / mixed, 1)}}),
        t("calc.kv.note.tenth2", {{"mha", fixed(1 / mha, 1)}, {"n_h", v2.n_h}, {"d_nope", v2.d_nope}, {"l", v2.l}})})
    out += "  " + line + "\n";
  return out;
}

// --memory: the memory left after the weights, and how many sequences of --seq-len fit in it for
// the model and for each what-if variant (the same weights: only the cache differs).
struct MemoryFit {
  u64 memory = 0, weights = 0, free = 0;  // per GPU
  bool fits = false;                      // the weights leave something for the cache
  u64 tokens = 0, sequences = 0;          // the model's own cache
  struct Row {
    std::string name;
    u64 per_sequence = 0, sequences = 0;  // bytes of one sequence's cache on one GPU; how many fit
  };
  std::vector<Row> variants;
};

MemoryFit memory_fit(const ModelConfig& m, const KvOptions& o, const Dtype& dt, const WhatIfDims& w) {
  MemoryFit f;
  f.memory = parse_size(o.memory, "--memory");
  Dtype wt = parse_dtype(o.weights_dtype, "--weights-dtype");
  u64 weights = bytes_of(count_params(m).total, wt, "weights");
  f.weights = weights / o.tp + (weights % o.tp ? 1 : 0);
  KvUsage one = kv_usage(m, o.seq_len, 1, dt, o.tp);
  f.fits = f.weights < f.memory;
  f.free = f.fits ? f.memory - f.weights : 0;
  f.tokens = one.per_gpu_bytes_per_token ? f.free / one.per_gpu_bytes_per_token : 0;
  f.sequences = one.per_gpu_bytes ? f.free / one.per_gpu_bytes : 0;
  for (const KvVariant& v : kv_variants(m, w, o.seq_len, 1, dt, o.tp))
    f.variants.push_back({v.name, v.per_gpu_bytes, v.per_gpu_bytes ? f.free / v.per_gpu_bytes : 0});
  return f;
}

std::string variant_label(const std::string& name) {
  return name == "mha" ? "MHA" : name == "mha_full" ? "MHA'" : name == "gqa" ? "GQA" : name == "mqa" ? "MQA" : "MLA";
}

std::string memory_section(const ModelConfig& m, const KvOptions& o, const Dtype& dt, const WhatIfDims& w, const Text& t) {
  MemoryFit f = memory_fit(m, o, dt, w);
  Dtype wt = parse_dtype(o.weights_dtype, "--weights-dtype");
  KvUsage one = kv_usage(m, o.seq_len, 1, dt, o.tp);
  std::string out = t("calc.kv.memory", {{"memory", size_text(f.memory)}, {"dtype", wt.name}, {"weights", size_text(f.weights)},
                                         {"split", o.tp > 1}}) + "\n";
  if (!f.fits) return out + "  " + t("calc.kv.memory.no_fit") + "\n\n";
  out += "  " + t("calc.kv.memory.free", {{"free", size_text(f.free)}}) + "\n";
  out += "  " + t("calc.kv.memory.tokens", {{"tokens", f.tokens}, {"per", one.per_gpu_bytes_per_token}}) + "\n";
  out += "  " + t("calc.kv.memory.sequences", {{"seq_len", o.seq_len}, {"n", f.sequences}}) + "\n\n";
  // Per variant: the same free memory, each variant's cache.
  out += t("kvmem.title", {{"seq_len", o.seq_len}, {"free", binary_size(static_cast<double>(f.free))}}) + "\n";
  TextTable tb;
  tb.header = {t("kvmem.col.kind"), t("kvmem.col.per_sequence"), t("kvmem.col.sequences"), t("kvmem.col.vs_mha")};
  tb.right = {false, true, true, true};
  const MemoryFit::Row* mha = nullptr;
  for (const auto& r : f.variants)
    if (r.name == "mha") mha = &r;
  for (const auto& r : f.variants) {
    std::string vs = mha && mha->sequences > 0 ? fixed(double(r.sequences) / double(mha->sequences), 1) + "×" : "–";
    tb.rows.push_back({variant_label(r.name), binary_size(static_cast<double>(r.per_sequence)), with_commas_u(r.sequences), vs});
  }
  out += render_table(tb);
  const MemoryFit::Row *gqa = nullptr, *mla = nullptr;
  for (const auto& r : f.variants) {
    if (r.name == "gqa") gqa = &r;
    if (r.name == "mla") mla = &r;
  }
  if (mha && mla && mha->sequences > 0)
    out += "  " + t("kvmem.note", {{"mla", mla->sequences}, {"mha", mha->sequences}, {"times", fixed(double(mla->sequences) / double(mha->sequences), 1)},
                                   {"has_gqa", gqa != nullptr && gqa->sequences > 0}, {"gqa", gqa ? gqa->sequences : 0},
                                   {"times_gqa", gqa && gqa->sequences > 0 ? fixed(double(mla->sequences) / double(gqa->sequences), 1) : "0"}}) + "\n";
  else if (mha && mla)
    out += "  " + t("kvmem.note_none_mha", {{"mla", mla->sequences}}) + "\n";
  out += "  " + t("kvmem.note_same_weights") + "\n\n";
  return out;
}

nlohmann::ordered_json memory_json(const MemoryFit& f) {
  nlohmann::ordered_json j = {{"memory_bytes", f.memory}, {"weights_bytes", f.weights}, {"free_bytes", f.free},
                              {"tokens", f.tokens}, {"sequences", f.sequences}};
  j["variants"] = nlohmann::ordered_json::array();
  for (const auto& r : f.variants)
    j["variants"].push_back({{"name", r.name}, {"bytes_per_sequence", r.per_sequence}, {"sequences", r.sequences}});
  return j;
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
  // Layers whose cache is bounded (sliding window, or Llama 4's chunks): how many, and the bound
  // in tokens; total_bytes above already applies it.
  if (u.sliding_layers > 0)
    j["actual"]["bounded_layers"] = {{"kind", m.chunked ? "chunked" : "sliding"}, {"layers", u.sliding_layers},
                                     {"max_tokens", m.window}};
  j["variants"] = nlohmann::ordered_json::array();
  for (const auto& r : v)
    j["variants"].push_back({{"name", r.name}, {"elements_per_token_per_layer", r.elements_per_layer},
                             {"elements_per_token", r.elements_per_token}, {"bytes_per_token", r.bytes_per_token},
                             {"total_bytes", r.total_bytes}, {"per_gpu_bytes", r.per_gpu_bytes}, {"ratio_to_mha", r.ratio_to_mha}});
  return j;
}

// A --compare name: a preset, or a config.json (a path). Its errors name --compare, the flag the
// user typed, rather than --model or --config.
ModelConfig model_by_name(const std::string& name) {
  bool file = name.find('/') != std::string::npos || (name.size() > 5 && name.substr(name.size() - 5) == ".json");
  try {
    return file ? load_config_file(name) : load_preset(name);
  } catch (UsageError& e) {
    if (e.msg.key == "calc.err.preset_unknown") throw UsageError("calc.err.compare_unknown", e.msg.args);
    for (Arg& a : e.msg.args)
      if (a.name == "flag" && std::get_if<std::string>(&a.value) && std::get<std::string>(a.value) == "--config")
        a.value = std::string("--compare");
    throw;
  }
}

constexpr const char* kKvSchema = "attnlab.kv-cache/1";

std::vector<ModelConfig> compare_models(const KvOptions& o) {
  std::vector<ModelConfig> models;
  std::stringstream ss(o.compare);
  for (std::string name; std::getline(ss, name, ',');)
    if (!name.empty()) models.push_back(model_by_name(name));
  if (models.empty()) throw UsageError("calc.err.compare_empty");
  return models;
}

// --compare: {schema, compare: [one model's document each]}
std::string compare_json(const KvOptions& o, const Dtype& dt, const std::vector<ModelConfig>& models) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const auto& m : models)
    arr.push_back(model_json(m, o, dt, kv_variants(m, whatif_dims(m, o.kv_heads, o.latent, o.rope), o.seq_len, o.batch, dt, o.tp)));
  nlohmann::ordered_json j;
  j["schema"] = kKvSchema;
  j["compare"] = arr;
  return j.dump(2) + "\n";
}

std::string run_compare(const KvOptions& o, const Dtype& dt, const Text& t, const std::vector<ModelConfig>& models) {
  TextTable tb;
  tb.header = {t("calc.kv.col.model"), t("calc.kv.col.attention"), t("calc.kv.col.layers"), t("calc.kv.col.bytes"),
               t("calc.kv.col.tokens_x", {{"seq_len", o.seq_len}, {"batch", o.batch}})};
  tb.right = {false, false, true, true, true};
  if (o.tp > 1) {
    tb.header.push_back(t("calc.kv.col.per_gpu", {{"tp", o.tp}}));
    tb.right.push_back(true);
  }
  std::vector<Bar> bars;
  std::string bounded;  // a note per model whose total is bounded by a window or a chunk
  for (const auto& m : models) {
    KvUsage u = kv_usage(m, o.seq_len, o.batch, dt, o.tp);
    if (u.sliding_layers > 0)
      bounded += "  " + t("calc.kv.compare_bounded", {{"model", m.name}, {"chunked", m.chunked}, {"bounded", u.sliding_layers},
                                                     {"l", m.l}, {"window", m.window}, {"seq_len", o.seq_len},
                                                     {"applies", o.seq_len > m.window}}) + "\n";
    std::vector<std::string> row = {m.name, kind_text(m), std::to_string(m.l), with_commas_u(u.bytes_per_token),
                                    binary_size(static_cast<double>(u.total_bytes))};
    if (o.tp > 1) row.push_back(binary_size(static_cast<double>(u.per_gpu_bytes)));
    tb.rows.push_back(row);
    bars.push_back({m.name, static_cast<double>(u.total_bytes), size_text(u.total_bytes)});
  }
  g_page_charts.push_back({t("html.chart.kv_compare"), bars});
  return t("calc.kv.compare", {{"dtype", dt.name}, {"bytes", bytes_per_element_text(dt)}, {"seq_len", o.seq_len},
                               {"batch", o.batch}}) +
         "\n\n" + render_table(tb) + bounded + "\n" + bar_chart(bars, 40);
}

void run_kv(KvOptions o) {
  const Text& t = text();
  declare_input("--config", o.src.config);
  declare_report_outputs(o.out);
  Dtype dt = parse_dtype(o.dtype, "--dtype");
  if (o.seq_len == 0) throw UsageError("calc.err.at_least_one", {{"flag", "--seq-len"}});
  if (o.batch == 0) throw UsageError("calc.err.at_least_one", {{"flag", "--batch"}});
  auto given = [&o](const char* flag) { return std::find(o.given.begin(), o.given.end(), flag) != o.given.end(); };
  // 0 stands for "the model's own" inside; given on the command line it is a mistake
  if (given("--kv-heads") && o.kv_heads == 0) throw UsageError("calc.err.at_least_one", {{"flag", "--kv-heads"}});
  if (given("--latent-dim") && o.latent == 0) throw UsageError("calc.err.at_least_one", {{"flag", "--latent-dim"}});
  if (o.rope % 2 != 0) throw UsageError("calc.err.rope_odd", {{"flag", "--rope-dim"}, {"value", o.rope}});
  if (!o.compare.empty()) {
    if (!o.src.model.empty() || !o.src.config.empty() || o.src.dims.d_model > 0) throw UsageError("calc.err.compare_alone");
    for (const char* flag : kNotWithCompare)
      if (given(flag)) throw UsageError("calc.err.compare_with", {{"flag", flag}});
    std::vector<ModelConfig> models = compare_models(o);
    std::string report = run_compare(o, dt, t, models);
    if (o.out.html) write_html_report(*o.out.html, t("html.report.kv_compare"), report, g_page_charts);
    if (o.out.json) write_json_doc(*o.out.json, kKvSchema, compare_json(o, dt, models));
    finish_report(o.out, report);
    return;
  }
  bool dims = o.src.dims.d_model > 0;
  if (dims) o.src.dims.kv_heads = o.kv_heads;
  ModelConfig m = select_model(o.src.model, o.src.config, o.src.dims);
  WhatIfDims w = whatif_dims(m, dims ? 0 : o.kv_heads, o.latent, o.rope);
  if (given("--rope-dim") && o.rope == 0) {
    w.d_R = 0;  // given as 0: MLA without a decoupled RoPE key (0 inside whatif_dims is "the model's own")
    w.mla_from_model = false;
  }
  kv_usage(m, o.seq_len, o.batch, dt, o.tp);  // validates --tp before anything is printed
  auto variants = kv_variants(m, w, o.seq_len, o.batch, dt, o.tp);
  nlohmann::ordered_json j = {{"schema", kKvSchema}};
  j.update(model_json(m, o, dt, variants));
  if (!o.memory.empty()) j["memory"] = memory_json(memory_fit(m, o, dt, w));
  std::string title = model_title(m, t);
  std::string out = t("calc.kv.header", {{"name", m.name}, {"title", title.empty() ? m.name : title},
                                         {"kind", kind_text(m)}, {"l", m.l}}) + "\n";
  out += "  " + t("calc.kv.settings", {{"dtype", dt.name}, {"bytes", bytes_per_element_text(dt)}, {"seq_len", o.seq_len},
                                       {"batch", o.batch}, {"tp", o.tp}}) + "\n\n";
  out += own_cache(m, o, dt, t);
  if (!o.memory.empty()) out += memory_section(m, o, dt, w, t);
  out += whatif_section(w, variants, o, t);
  if (is_deepseek(m)) out += mla_note(t);  // the conversation's DeepSeek figures, for DeepSeek models
  if (o.out.html) write_html_report(*o.out.html, t("html.report.kv_cache", {{"model", m.name}}), out, g_page_charts);
  if (o.out.json) write_json_doc(*o.out.json, kKvSchema, j.dump(2) + "\n");
  finish_report(o.out, out);
}

}  // namespace

void setup_kv_cache(CLI::App& root) {
  auto opt = std::make_shared<KvOptions>();
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("kv-cache", t("calc.kv.description"));
  bind_model_source(sub, opt->src);
  sub->add_option("--kv-heads", opt->kv_heads, t("calc.kv.opt.kv_heads"));
  sub->add_option("--latent-dim", opt->latent, t("calc.kv.opt.latent_dim"));
  sub->add_option("--rope-dim", opt->rope, t("calc.kv.opt.rope_dim"));
  sub->add_option("--seq-len", opt->seq_len, t("calc.kv.opt.seq_len"));
  sub->add_option("--batch", opt->batch, t("calc.kv.opt.batch"));
  sub->add_option("--dtype", opt->dtype, t("calc.kv.opt.dtype"));
  sub->add_option("--tp", opt->tp, t("calc.kv.opt.tp"));
  sub->add_option("--compare", opt->compare, t("calc.kv.opt.compare"));
  sub->add_option("--memory", opt->memory, t("calc.kv.opt.memory"));
  sub->add_option("--weights-dtype", opt->weights_dtype, t("calc.kv.opt.weights_dtype"));
  add_report_outputs(sub, opt->out, t("calc.kv.opt.json"));
  sub->callback([opt, sub] {
    // --kv-heads, --latent-dim and --rope-dim are what-if rows beside any model: not refused here
    refuse_dims_with_source(*sub, {"--layers", "--heads", "--head-dim", "--d-ff", "--vocab", "--ffn"});
    // the weights' size enters only the --memory section; without it these would be ignored
    if (sub->count("--memory") == 0 && sub->count("--compare") == 0)  // --compare refuses them itself
      for (const char* flag : {"--weights-dtype", "--d-ff", "--vocab", "--ffn"})
        if (sub->count(flag) > 0) throw UsageError("calc.err.needs_memory", {{"flag", flag}, {"memory_flag", "--memory"}});
    KvOptions o = *opt;
    for (const CLI::Option* given : sub->get_options([](const CLI::Option* x) { return x->count() > 0; }))
      o.given.push_back(given->get_name());
    run_kv(o);
  });
}

}  // namespace attn::cli
