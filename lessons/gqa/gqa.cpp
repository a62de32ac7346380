// Lesson `gqa`: section 2 of the chapter — grouped-query attention. Several query heads share
// one key/value head, so a decoder caches 2·g vectors per token per layer instead of 2·h.
// The engine (group map, expanded view, equivalences, cache, parameters) is lessons/kv_sharing;
// words: lessons/gqa/LANG.cat, then lessons/kv_sharing/LANG.cat.
#include <algorithm>

#include "kv_sharing/kv_sharing.h"
#include "models.h"

namespace attn {

namespace {

void intro(LessonRecorder& r, const KvDims& d) {
  r.step("input", {{"heads", d.H}, {"groups", d.G}, {"d_model", d.D}, {"d_k", d.Dk}});
}

void closing(LessonRecorder& r, const KvDims&, const KvRun&) {
  // The GQA presets; the text says how many KV heads they have, from the presets themselves.
  const std::vector<std::string> presets{"llama-3-8b", "llama-3-70b", "mistral-7b-v0.1", "qwen3-8b", "glm-4-9b",
                                         "gemma-2-9b", "qwen3-30b-a3b", "deepseek-llm-67b"};
  std::vector<std::size_t> g;
  for (const std::string& name : presets) g.push_back(load_preset(name).n_g);
  r.step("in_practice", {{"min", *std::min_element(g.begin(), g.end())}, {"max", *std::max_element(g.begin(), g.end())},
                         {"eight", static_cast<std::size_t>(std::count(g.begin(), g.end(), std::size_t{8}))},
                         {"n", presets.size()}});
  preset_cache_table(r, presets);
  r.note("in_practice.note");
  // The conversation's "Qwen 3 (2025.05): GQA in the sizes of 14B and up", against two Qwen3 presets.
  const ModelConfig q8 = load_preset("qwen3-8b"), q30 = load_preset("qwen3-30b-a3b");
  r.note("in_practice.note_qwen3", {{"small", q8.title}, {"small_h", q8.n_h}, {"small_g", q8.n_g},
                                    {"large", q30.title}, {"large_h", q30.n_h}, {"large_g", q30.n_g}});
}

void bind(OptionBinder& b, KvOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.integer("--kv-heads", o.kv_heads);
  b.toggle("--causal", o.causal);
}

Trace run(const KvOptions& c) { return run_kv_sharing(c, KvStory{"gqa", false, intro, closing}); }

}  // namespace

extern const LessonInfo gqa_lesson = lesson_info<KvOptions>("gqa", bind, run);

}  // namespace attn
