#pragma once
// The model-choosing options shared by `params` and `kv-cache`: --model NAME, --config FILE,
// or explicit dims (--d-model, --layers, --heads, --kv-heads, --head-dim, --d-ff, --vocab, --ffn).
#include <string>

#include <CLI/CLI.hpp>

#include "catalog.h"
#include "models.h"
#include "text.h"

namespace attn::cli {

struct ModelSource {
  std::string model, config;
  ModelDims dims;
  std::string lang;
};

inline void bind_model_source(CLI::App* sub, ModelSource& s) {
  sub->add_option("--model", s.model, "A bundled preset (see `attnlab models`)");
  sub->add_option("--config", s.config, "A Hugging Face config.json");
  sub->add_option("--d-model", s.dims.d_model, "Explicit dims: model width d");
  sub->add_option("--layers", s.dims.layers, "Explicit dims: layers l (default 1)");
  sub->add_option("--heads", s.dims.heads, "Explicit dims: query heads n_h");
  sub->add_option("--head-dim", s.dims.head_dim, "Explicit dims: head size d_h (default d/n_h)");
  sub->add_option("--d-ff", s.dims.d_ff, "Explicit dims: FFN inner size (default 4d)");
  sub->add_option("--vocab", s.dims.vocab, "Explicit dims: vocabulary (default 0: no embeddings)");
  sub->add_option("--ffn", s.dims.ffn, "Explicit dims: gelu (GPT-2 style, biases) or swiglu (Llama style)");
  sub->add_option("--lang", s.lang, "en or zh (default from LANG)");
}

inline Lang source_lang(const ModelSource& s) { return s.lang.empty() ? lang_from_env() : parse_lang(s.lang); }

}  // namespace attn::cli
