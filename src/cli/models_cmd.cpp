// attnlab models: the bundled presets, one line each — attention kind (with KV heads or latent
// size), total parameters (computed, checked against the official count), KV bytes per token.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog.h"
#include "commands.h"
#include "html.h"
#include "models.h"
#include "table.h"
#include "text.h"

namespace attn::cli {

namespace {

std::string attention_text(const ModelConfig& m, const Text& t) {
  switch (attn_kind(m)) {
    case AttnKind::MLA: return t("calc.models.attn.mla", {{"d_c", m.d_c}, {"d_R", m.d_R}});
    case AttnKind::MHA: return t("calc.models.attn.mha", {{"n_g", m.n_g}});
    case AttnKind::GQA: return t("calc.models.attn.gqa", {{"n_g", m.n_g}, {"n_h", m.n_h}});
    case AttnKind::MQA: return t("calc.models.attn.mqa", {{"n_h", m.n_h}});
  }
  return "";
}

void run_models(const ReportOutputs& o) {
  const Text& t = text();
  declare_report_outputs(o);
  nlohmann::ordered_json j;
  j["schema"] = "attnlab.models/1";
  j["models"] = nlohmann::ordered_json::array();
  TextTable tb;
  tb.header = {t("calc.models.col.name"),   t("calc.models.col.attention"), t("calc.models.col.total"),
               t("calc.models.col.active"), t("calc.models.col.kv_bytes"),  t("calc.models.col.official")};
  tb.right = {false, false, true, true, true, false};
  Dtype bf16{"bf16", 16};
  HtmlBarChart bars{t("html.chart.models"), {}};
  for (const auto& name : preset_names()) {
    ModelConfig m = load_preset(name);
    ParamReport r = count_params(m);
    KvUsage u = kv_usage(m, 1, 1, bf16, 1);
    std::string official = m.official_total == 0             ? "-"
                           : m.official_total == r.total ? t("calc.models.exact")
                                                             : t("calc.models.differs");
    bars.bars.push_back({name, static_cast<double>(r.total), with_commas_u(r.total)});
    nlohmann::ordered_json e = {{"name", name}, {"attention", attn_kind_name(attn_kind(m))}, {"heads", m.n_h}, {"kv_heads", m.n_g}};
    if (m.mla) e.update({{"d_c", m.d_c}, {"d_R", m.d_R}});
    e.update({{"total_params", r.total}, {"active_params", r.active}, {"kv_bytes_per_token_bf16", u.bytes_per_token}});
    e["official_total_params"] = m.official_total == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.official_total);
    j["models"].push_back(e);
    tb.rows.push_back({name, attention_text(m, t), with_commas_u(r.total),
                       r.active == r.total ? "" : with_commas_u(r.active), with_commas_u(u.bytes_per_token), official});
  }
  std::string out = render_table(tb);
  out += "\n" + t("calc.models.footer") + "\n" + t("calc.models.official_note") + "\n";
  if (o.html) write_html_report(*o.html, t("html.report.models"), out, {bars});
  if (o.json) write_json_doc(*o.json, "attnlab.models/1", j.dump(2) + "\n");
  finish_report(o, out);
}

}  // namespace

void setup_models(CLI::App& root) {
  CLI::App* sub = root.add_subcommand("models", text()("calc.models.description"));
  add_lang_option(sub);
  auto out = std::make_shared<ReportOutputs>();
  add_report_outputs(sub, *out, text()("calc.models.opt.json"));
  sub->callback([out] { run_models(*out); });
}

}  // namespace attn::cli
