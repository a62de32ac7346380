#pragma once
// The model-choosing options shared by `params` and `kv-cache`: --model NAME, --config FILE,
// or explicit dims (--d-model, --layers, --heads, --kv-heads, --head-dim, --d-ff, --vocab, --ffn).
#include <string>

#include <CLI/CLI.hpp>

#include "catalog.h"
#include "errors.h"
#include "commands.h"
#include "models.h"
#include "text.h"

namespace attn::cli {

struct ModelSource {
  std::string model, config;
  ModelDims dims;
};

inline void bind_model_source(CLI::App* sub, ModelSource& s) {
  const Text& t = text();
  sub->add_option("--model", s.model, t("calc.opt.model"));
  sub->add_option("--config", s.config, t("calc.opt.config"));
  sub->add_option("--d-model", s.dims.d_model, t("calc.opt.d_model"));
  sub->add_option("--layers", s.dims.layers, t("calc.opt.layers"));
  sub->add_option("--heads", s.dims.heads, t("calc.opt.heads"));
  sub->add_option("--head-dim", s.dims.head_dim, t("calc.opt.head_dim"));
  sub->add_option("--d-ff", s.dims.d_ff, t("calc.opt.d_ff"));
  sub->add_option("--vocab", s.dims.vocab, t("calc.opt.vocab"));
  sub->add_option("--ffn", s.dims.ffn, t("calc.opt.ffn"));
  add_lang_option(sub);
}

// A model named by --model, --config or --weights has its own dimensions: a dimension flag given
// beside it would be ignored, so it is refused, naming both (every flag is used or refused).
// `dims` are the flags of this command that describe a model's shape.
inline void refuse_dims_with_source(const CLI::App& sub, std::initializer_list<const char*> dims) {
  for (const char* source : {"--model", "--config", "--weights"}) {
    if (sub.get_option_no_throw(source) == nullptr || sub.count(source) == 0) continue;
    for (const char* flag : dims)
      if (sub.get_option_no_throw(flag) != nullptr && sub.count(flag) > 0)
        throw UsageError("calc.err.dims_with_source", {{"flag", flag}, {"source", source}});
  }
}

// A model's title in the run's language: a preset's from the catalog, explicit dims' from their
// message, a config.json's is its file name alone ("").
// The catalog key of a preset's words (what: "title" or "note"): calc.preset.NAME.WHAT, or
// presets.NAME.WHAT for the presets of catalogs/presets; "" when there is none.
inline std::string preset_key(const ModelConfig& m, const Text& t, const std::string& what) {
  if (!m.preset) return "";
  for (const std::string& k : {"calc.preset." + m.name + "." + what, "presets." + m.name + "." + what})
    if (t.has(k)) return k;
  return "";
}

inline std::string model_title(const ModelConfig& m, const Text& t) {
  if (std::string k = preset_key(m, t, "title"); !k.empty()) return t(k);
  if (!m.title_msg.key.empty()) return t(m.title_msg);
  return m.title;
}

}  // namespace attn::cli
