// Lesson `gqa`: section 2 of the chapter — grouped-query attention. Several query heads share
// one key/value head, so a decoder caches 2·g vectors per token per layer instead of 2·h.
// The engine (group map, expanded view, equivalences, cache, parameters) is lessons/kv_sharing.cpp.
#include "kv_sharing/kv_sharing.h"

namespace attn {

namespace {

void intro(Recorder& r, const KvDims& d) {
  r.step("input", r.tr("Why share keys and values", "为什么要共享键和值"),
         r.fmt("In MHA every head has its own K and V, and a decoder keeps all of them for every past token: with "
               "12 heads that is 12 K + 12 V = 24 cached vectors per token per layer. GQA (Grouped-Query Attention) "
               "lets a group of query heads share one K and one V. This run: {0} query head{4} in {1} group{5}, "
               "d_model {2}, d_k {3} (--kv-heads defaults to h/2, or 1 when h is odd).",
               "MHA 里每个头都有自己的 K 和 V，解码时每个已生成的词都要把它们全部存下：12 个头就是每个词每层 12 份 K + "
               "12 份 V = 24 份缓存。GQA（分组查询注意力）让一组查询头共享同一个 K 和 V。本次运行：{} 个查询头分成 {} "
               "组，d_model {}，d_k {}（--kv-heads 默认取 h/2，h 为奇数时取 1）。",
               d.H, d.G, d.D, d.Dk, d.H == 1 ? "" : "s", d.G == 1 ? "" : "s"));
}

void closing(Recorder& r, const KvDims&) {
  r.step("in_practice", r.tr("GQA in real models", "真实模型中的 GQA"),
         r.tr("LLaMA 3, GLM-4 and most recent models use GQA, typically 8 KV heads. From the bundled presets "
              "(`attnlab models`):",
              "LLaMA 3、GLM-4 等大多数新模型都用 GQA，通常是 8 个 KV 头。下面取自内置的模型预设（`attnlab models`）："));
  preset_cache_table(r, {"llama-3-8b", "mistral-7b-v0.1", "qwen3-8b", "deepseek-llm-67b"});
  r.note(r.tr("GQA is the compromise between MHA (every head its own K, V: best quality, largest cache) and MQA "
              "(one K, V for all: smallest cache, slightly worse quality) — see `attnlab lesson mqa`.",
              "GQA 是 MHA（每个头自己的 K、V：效果最好，缓存最大）和 MQA（所有头共用一份 K、V：缓存最小，效果略差）"
              "之间的折中——见 `attnlab lesson mqa`。"));
}

Trace run(const LessonConfig& c) { return run_kv_sharing(c, KvStory{"gqa", false, intro, closing}); }

}  // namespace

extern const LessonInfo gqa_lesson = {
    "gqa", {"--tokens", "--seq-len", "--d-model", "--heads", "--kv-heads", "--causal"}, run};

}  // namespace attn
