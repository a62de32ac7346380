// attnlab params: a model's parameters — embeddings, per-layer attention (per matrix), FFN or
// MoE, norms, head — per layer and in total, active per token for MoE, and the attention / FFN
// share of a layer (the chapter's 33% / 67%).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "errors.h"
#include "html.h"
#include "input_file.h"
#include "locate.h"
#include "model_options.h"
#include "param_census.h"
#include "safetensors.h"
#include "models.h"
#include "table.h"
#include "text.h"
#include "text_quality.h"

namespace attn::cli {

namespace {

struct ParamsOptions {
  ModelSource src;
  std::optional<std::string> weights;  // --weights DIR|ID: count a checkpoint's tensors
  bool no_bias = false;  // --no-bias: explicit dims without bias vectors
  ReportOutputs out;     // --json FILE|-, --html FILE|-
};

std::string pct(u64 part, u64 whole) {
  return whole == 0 ? "-" : fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

std::string describe(const ModelConfig& m, const Text& t) {
  if (m.mla)
    return t("calc.params.describe_mla", {{"heads", m.n_h}, {"d_c", m.d_c}, {"d_R", m.d_R}, {"d_cq", m.d_cq}});
  return t("calc.params.describe",
           {{"kind", attn_kind_name(attn_kind(m))}, {"n_h", m.n_h}, {"n_g", m.n_g}, {"d_h", m.d_h}});
}

// An item's name as shown: matrix names (W_Q, b_1, q_norm …) as they are; the descriptive ones
// from the catalog (calc.item.*) in the run's language. The name stays the JSON key.
std::string item_label(const ParamItem& p, const Text& t) { return p.label.key.empty() ? p.name : t(p.label); }

void add_items(TextTable& tb, const std::string& group, const std::vector<ParamItem>& items, const Text& t) {
  bool first = true;
  for (const auto& p : items) {
    tb.rows.push_back({first ? group : "", item_label(p, t), p.shape, with_commas_u(p.count)});
    first = false;
  }
}

// The matrices of a list without their biases (b_*): the chapter's weights-only count.
u64 weights_only(const std::vector<ParamItem>& items) {
  u64 n = 0;
  for (const auto& p : items)
    if (p.name.rfind("b_", 0) != 0) n += p.count;
  return n;
}

std::string layer_section(const LayerParams& lp, const Text& t) {
  std::string out = t("calc.params.layer", {{"moe", lp.moe}, {"n", lp.layers}}) + "\n";
  TextTable tb;
  tb.header = {t("calc.params.col.block"), t("calc.params.col.weight"), t("calc.params.col.shape"),
               t("calc.params.col.params")};
  tb.right = {false, false, false, true};
  add_items(tb, t("calc.params.group.attention"), lp.attention, t);
  add_items(tb, t("calc.params.group.ffn", {{"moe", lp.moe}}), lp.ffn, t);
  add_items(tb, t("calc.params.group.norms"), lp.norms, t);
  out += render_table(tb);
  u64 core = lp.attention_total + lp.ffn_total;
  out += "  " + t("calc.params.layer_sum", {{"attention", lp.attention_total}, {"moe", lp.moe}, {"ffn", lp.ffn_total},
                                            {"norms", lp.norm_total}, {"total", lp.total}}) + "\n";
  out += "  " + t("calc.params.layer_share", {{"moe", lp.moe}, {"attention", pct(lp.attention_total, core)},
                                              {"ffn", pct(lp.ffn_total, core)}}) + "\n";
  u64 wa = weights_only(lp.attention), wf = weights_only(lp.ffn);
  if (wa + wf != core)  // biases present: the chapter's weights-only figure beside it
    out += "  " + t("calc.params.layer_share_weights", {{"moe", lp.moe}, {"attention", pct(wa, wa + wf)}, {"ffn", pct(wf, wa + wf)}}) + "\n";
  if (lp.moe) {
    u64 active_core = lp.attention_total + lp.ffn_active;
    out += "  " + t("calc.params.moe_active", {{"active", lp.ffn_active}, {"attention", pct(lp.attention_total, active_core)},
                                               {"moe", pct(lp.ffn_active, active_core)}}) + "\n";
  }
  return out + "\n";
}

std::string render_text(const ModelConfig& m, const ParamReport& r, const Text& t) {
  std::string title = model_title(m, t);
  std::string out = (title.empty() ? m.name : fmt::format("{} — {}", m.name, title)) + "\n";
  out += "  " + t("calc.params.model_line", {{"describe", describe(m, t)}, {"d", m.d}, {"l", m.l}}) + "\n";
  if (!m.source.empty()) out += "  " + t("calc.params.source", {{"source", m.source}}) + "\n";
  if (m.model_type == "custom")
    out += "  " + t("calc.params.dims_assumed", {{"gated", m.gated_ffn}, {"bias", m.qkv_bias || m.gated_ffn}}) + "\n";
  out += "\n";
  TextTable e;
  e.right = {false, false, true};
  for (const auto& p : r.embeddings) e.rows.push_back({item_label(p, t), p.shape, with_commas_u(p.count)});
  if (m.vocab == 0)  // no vocabulary: no embedding and no output head to list
    out += t("calc.params.no_vocab") + "\n\n";
  else
    out += t("calc.params.embeddings") + "\n" + render_table(e) + "\n";
  for (const auto& lp : r.layers) out += layer_section(lp, t);
  TextTable h;
  h.right = {false, false, true};
  for (const auto& p : r.head)
    if (p.count > 0 || m.vocab > 0) h.rows.push_back({item_label(p, t), p.shape, with_commas_u(p.count)});
  out += t("calc.params.output") + "\n" + render_table(h) + "\n";
  TextTable s;
  s.right = {false, true};
  s.rows.push_back({t("calc.params.row.embeddings"), with_commas_u(r.embedding_total)});
  for (const auto& lp : r.layers)
    s.rows.push_back({fmt::format("{} x {}", lp.layers, with_commas_u(lp.total)), with_commas_u(lp.total * lp.layers)});
  s.rows.push_back({t("calc.params.row.head"), with_commas_u(r.head_total)});
  s.rows.push_back({t("calc.params.row.total"), with_commas_u(r.total)});
  if (r.active != r.total)
    s.rows.push_back({t("calc.params.row.active"), with_commas_u(r.active) + " (" + pct(r.active, r.total) + ")"});
  if (r.mtp > 0) s.rows.push_back({t("calc.params.row.mtp"), with_commas_u(r.mtp)});
  out += t("calc.params.total") + "\n" + render_table(s);
  u64 attn_all = 0;
  for (const auto& lp : r.layers) attn_all += lp.attention_total * lp.layers;
  bool moe = r.layers.size() > 1 || (!r.layers.empty() && r.layers[0].moe);
  out += "  " + t("calc.params.model_share", {{"moe", moe}, {"attention", pct(attn_all, r.total)},
                                              {"ffn", pct(ffn_params_all_layers(r), r.total)},
                                              {"embeddings", pct(r.embedding_total + r.head_total, r.total)}}) + "\n";
  if (m.official_total > 0)
    out += "  " + t("calc.params.official", {{"official", m.official_total}, {"same", m.official_total == r.total}}) + "\n";
  if (std::string k = preset_key(m, t, "note"); !k.empty()) out += "  " + t(k) + "\n";
  return out;
}

nlohmann::ordered_json items_json(const std::vector<ParamItem>& items) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& p : items) j[p.name] = p.count;
  return j;
}

constexpr const char* kParamsSchema = "attnlab.params/1";

// One document for both ways of counting: {schema, model, total_params, active_params, breakdown}
// from the formula, and with --weights a "checkpoint" object beside it (the tensors counted from
// the files). total_params is then the checkpoint's count.
nlohmann::ordered_json params_json(const ModelConfig& m, const ParamReport& r) {
  nlohmann::ordered_json j;
  j["schema"] = kParamsSchema;
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
  return j;
}

// ---- --weights: the checkpoint's own tensors, beside the formula ----------------------------

std::string census_text(const std::string& folder, const ModelConfig& m, const CheckpointCensus& c, const Text& t) {
  std::string out = t("census.model", {{"folder", folder}, {"type", m.model_type}, {"layers", m.l}, {"files", c.files_count}}) + "\n";
  out += "  " + t("census.how") + "\n\n";
  TextTable tb;
  tb.header = {t("census.col.group"), t("census.col.tensors"), t("census.col.files"), t("census.col.formula"), t("census.col.agree")};
  tb.right = {false, true, true, true, false};
  for (std::size_t g = 0; g < 5; ++g) {
    const GroupCount& f = c.files[g];
    bool same = f.params == c.formula[g];
    tb.rows.push_back({t(std::string("census.group.") + param_group_name(static_cast<ParamGroup>(g))), with_commas_u(f.tensors),
                       with_commas_u(f.params), with_commas_u(c.formula[g]), t("census.agree", {{"same", same}})});
  }
  const GroupCount& other = c.files[static_cast<std::size_t>(ParamGroup::Other)];
  if (other.tensors > 0)
    tb.rows.push_back({t("census.group.other"), with_commas_u(other.tensors), with_commas_u(other.params), "-", t("census.agree", {{"same", false}})});
  u64 tensors = 0;
  for (std::size_t g = 0; g < kParamGroups; ++g)
    if (g != static_cast<std::size_t>(ParamGroup::Buffers)) tensors += c.files[g].tensors;
  tb.rows.push_back({t("census.row.total"), with_commas_u(tensors), with_commas_u(c.files_total), with_commas_u(c.formula_total),
                     t("census.agree", {{"same", c.files_total == c.formula_total}})});
  out += render_table(tb);
  for (const auto& [dtype, n] : c.dtype_params)
    out += "  " + t("census.dtype", {{"dtype", dtype}, {"params", n}, {"bytes", c.dtype_bytes.at(dtype)}}) + "\n";
  if (!c.buffers.empty())
    out += "  " + t("census.buffers", {{"n", c.buffers.size()}, {"first", c.buffers.front()}}) + "\n";
  for (const std::string& n : c.other) out += "  " + t("census.other", {{"tensor", n}}) + "\n";
  bool agree = c.files_total == c.formula_total && other.tensors == 0;
  for (std::size_t g = 0; g < 5; ++g) agree = agree && c.files[g].params == c.formula[g];
  out += "\n  " + t("census.verdict", {{"agree", agree}, {"total", c.files_total}}) + "\n";
  if (m.tied_embeddings && c.files[4].params > c.formula[4])
    out += "  " + t("census.tied_copy") + "\n";
  return out;
}

std::string census_json(const std::string& folder, const ModelConfig& m, const CheckpointCensus& c,
                        const std::optional<TextQuality>& q) {
  nlohmann::ordered_json doc = params_json(m, count_params(m));
  doc["model"] = folder;
  doc["total_params"] = c.files_total;
  doc["active_params"] = c.files_total;  // a checkpoint's own count: every tensor it holds
  nlohmann::ordered_json& j = doc["checkpoint"];
  j["weights"] = folder;
  j["model_type"] = m.model_type;
  bool agree = c.files_total == c.formula_total && c.other.empty();
  for (std::size_t g = 0; g < 5; ++g) {
    const GroupCount& f = c.files[g];
    j["groups"][param_group_name(static_cast<ParamGroup>(g))] = {{"tensors", f.tensors}, {"files", f.params}, {"formula", c.formula[g]},
                                                                 {"agree", f.params == c.formula[g]}};
    agree = agree && f.params == c.formula[g];
  }
  j["other"] = c.other;
  j["buffers"] = c.buffers;
  j["total"] = {{"files", c.files_total}, {"formula", c.formula_total}};
  j["dtypes"] = nlohmann::ordered_json::object();
  for (const auto& [dtype, n] : c.dtype_params) j["dtypes"][dtype] = {{"params", n}, {"bytes", c.dtype_bytes.at(dtype)}};
  j["agree"] = agree;
  if (q)  // a text model: held-out bits per character beside the n-gram baselines (text_quality.h)
    doc["text_quality"] = {{"corpus", q->corpus}, {"heldout_characters", q->heldout_characters}, {"heldout_unk", q->heldout_unk},
                           {"vocab", q->vocab}, {"model_bpc", q->model_bpc}, {"unigram_bpc", q->unigram_bpc},
                           {"bigram_bpc", q->bigram_bpc}, {"trigram_bpc", q->trigram_bpc},
                           {"beats_trigram", q->model_bpc < q->trigram_bpc}};
  return doc.dump(2) + "\n";
}

void run_params_weights(const ParamsOptions& o) {
  if (!o.src.model.empty() || !o.src.config.empty() || o.src.dims.d_model > 0 || o.src.dims.heads > 0)
    throw UsageError("census.err.alternatives");
  std::string folder = resolve_weights(*o.weights);
  declare_input_folder("--weights", folder);
  declare_report_outputs(o.out);
  std::string cfg = folder + "/config.json";
  ModelConfig m = parse_hf_config(read_regular_file(cfg, std::size_t{4} << 20, "--weights"), cfg);
  Checkpoint ck(folder);
  CheckpointCensus c = census_checkpoint(ck, m);
  const Text& t = text();
  std::string report = census_text(weights_label(folder), m, c, t);
  const std::optional<TextQuality> q = text_quality(folder);
  if (q) report += "\n" + text_quality_text(*q, "  ");
  if (o.out.html) write_html_report(*o.out.html, t("census.html_title"), report);
  if (o.out.json) write_json_doc(*o.out.json, kParamsSchema, census_json(weights_label(folder), m, c, q));
  finish_report(o.out, report);
}

void run_params(const ParamsOptions& o) {
  if (o.no_bias && o.src.dims.d_model == 0 && o.src.dims.heads == 0)
    throw UsageError("calc.err.no_bias_dims", {{"flag", "--no-bias"}});
  if (o.weights) return run_params_weights(o);
  declare_input("--config", o.src.config);
  declare_report_outputs(o.out);
  ModelDims dims = o.src.dims;
  dims.no_bias = o.no_bias;
  ModelConfig m = select_model(o.src.model, o.src.config, dims);
  ParamReport r = count_params(m);
  const Text& t = text();
  std::string report = render_text(m, r, t);
  if (o.out.html) {
    HtmlBarChart bars{t("html.chart.params"), {{t("calc.params.row.embeddings"), static_cast<double>(r.embedding_total),
                                                with_commas_u(r.embedding_total)}}};
    for (const auto& lp : r.layers)
      bars.bars.push_back({t("calc.params.layer", {{"moe", lp.moe}, {"n", lp.layers}}),
                           static_cast<double>(lp.total * lp.layers), with_commas_u(lp.total * lp.layers)});
    bars.bars.push_back({t("calc.params.row.head"), static_cast<double>(r.head_total), with_commas_u(r.head_total)});
    write_html_report(*o.out.html, t("html.report.params", {{"model", m.name}}), report, {bars});
  }
  if (o.out.json) write_json_doc(*o.out.json, kParamsSchema, params_json(m, r).dump(2) + "\n");
  finish_report(o.out, report);
}

}  // namespace

void setup_params(CLI::App& root) {
  auto opt = std::make_shared<ParamsOptions>();
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("params", t("calc.params.description"));
  bind_model_source(sub, opt->src);
  sub->add_option("--kv-heads", opt->src.dims.kv_heads, t("calc.params.opt.kv_heads"));
  sub->add_flag("--no-bias", opt->no_bias, t("calc.params.opt.no_bias"));
  sub->add_option("--weights", opt->weights, t("census.opt.weights"));
  add_report_outputs(sub, opt->out, t("calc.params.opt.json"));
  sub->callback([opt, sub] {
    refuse_dims_with_source(*sub, {"--layers", "--heads", "--kv-heads", "--head-dim", "--d-ff", "--vocab", "--ffn", "--no-bias"});
    if (opt->no_bias && opt->src.dims.ffn != "gelu")  // SwiGLU models (LLaMA's) have no biases to leave out
      throw UsageError("calc.err.no_bias_swiglu", {{"flag", "--no-bias"}, {"ffn", opt->src.dims.ffn}});
    run_params(*opt);
  });
}

}  // namespace attn::cli
