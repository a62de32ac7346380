// attnlab models: the bundled presets, one line each — attention kind (with KV heads or latent
// size), total parameters (computed, checked against the official count), KV bytes per token.
#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "models.h"
#include "table.h"
#include "text.h"

namespace attn::cli {

namespace {

struct ModelsOptions {
  std::string lang;
};

std::string attention_text(const ModelConfig& m, Lang lang) {
  switch (attn_kind(m)) {
    case AttnKind::MLA: return fmt::format("MLA (d_c {} + d_R {})", m.d_c, m.d_R);
    case AttnKind::MHA: return trf(lang, "MHA ({} KV heads)","MHA（{} 个 KV 头）", m.n_g);
    case AttnKind::GQA: return trf(lang, "GQA ({} KV heads / {})","GQA（{} 个 KV 头 / {}）", m.n_g, m.n_h);
    case AttnKind::MQA: return trf(lang, "MQA (1 KV head / {})","MQA（1 个 KV 头 / {}）", m.n_h);
  }
  return "";
}

void run_models(const ModelsOptions& o) {
  Lang lang = o.lang.empty() ? lang_from_env() : parse_lang(o.lang);
  TextTable t;
  t.header = {tr(lang, "name", "名称"), tr(lang, "attention", "注意力"), tr(lang, "total params", "总参数量"),
              tr(lang, "active", "激活"), tr(lang, "KV bytes/token (bf16)", "每 token KV 字节（bf16）"), tr(lang, "official", "官方")};
  t.right = {false, false, true, true, true, false};
  Dtype bf16{"bf16", 16};
  for (const auto& name : preset_names()) {
    ModelConfig m = load_preset(name);
    ParamReport r = count_params(m);
    KvUsage u = kv_usage(m, 1, 1, bf16, 1);
    std::string official = m.official_total == 0 ? "-" : m.official_total == r.total ? tr(lang, "= exact", "= 精确一致") : tr(lang, "DIFFERS", "不一致");
    t.rows.push_back({name, attention_text(m, lang), with_commas_u(r.total), r.active == r.total ? "" : with_commas_u(r.active),
                      with_commas_u(u.bytes_per_token), official});
  }
  std::string out = render_table(t);
  out += tr(lang, "\nEach preset is a Hugging Face config.json plus its source; see `attnlab params --model NAME`.\n",
            "\n每个预设就是一份 Hugging Face config.json 加上出处；详见 `attnlab params --model 名称`。\n");
  emit(out);
}

}  // namespace

void setup_models(CLI::App& root) {
  auto opt = std::make_shared<ModelsOptions>();
  CLI::App* sub = root.add_subcommand("models", "The bundled model presets: attention kind, parameters, KV bytes per token");
  sub->add_option("--lang", opt->lang, "en or zh (default from LANG)");
  sub->callback([opt] { run_models(*opt); });
}

}  // namespace attn::cli
