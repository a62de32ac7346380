// Lesson `mqa`: section 2.3 of the chapter — multi-query attention, GQA's extreme: every query
// head shares a single key/value head. The same engine as `gqa` (lessons/kv_sharing.cpp) with
// g = 1, and its own story: the smallest cache, and what it costs.
#include "kv_sharing/kv_sharing.h"

namespace attn {

namespace {

void intro(Recorder& r, const KvDims& d) {
  r.step("input", r.tr("One K and one V for every head", "所有头共用一个 K 和一个 V"),
         r.fmt("MQA (Multi-Query Attention) is the extreme of GQA: all {0} query heads share one key head and one "
               "value head. Each head still asks its own question (its own W_Q_i), but every head searches the same "
               "keys and reads the same values. d_model {1}, d_k {2}.",
               "MQA（多查询注意力）是 GQA 的极端：全部 {0} 个查询头共用一个键头和一个值头。每个头仍然提自己的问题"
               "（自己的 W_Q_i），但都在同一批键里检索、读同一批值。d_model {1}，d_k {2}。",
               d.H, d.D, d.Dk));
}

void closing(Recorder& r, const KvDims& d) {
  r.step("trade_off", r.tr("The trade-off", "代价与取舍"),
         r.fmt("The cache is as small as it gets: 2 vectors per token per layer, whatever the head count ({} for "
               "MHA here). The price: with one V, every head's output is a weighted average of the same value rows — "
               "heads can only differ in where they look, not in what they read. The chapter: it saves the most "
               "memory but quality is slightly worse; GQA is the compromise.",
               "缓存小到了极限：无论多少个头，每个词每层只存 2 个向量（这里 MHA 要 {} 个）。代价是：只有一份 V，每个头"
               "的输出都是同一批值行的加权平均——各头只能在“看哪里”上不同，读到的内容却是同一份。本章的说法：更省显存，"
               "但效果略差；GQA 是折中方案。",
               2 * d.H));
  const Tensor& heads = r.get("heads");
  if (d.H >= 2)
    r.value("head_output_difference", max_abs_diff(slice0(heads, 0), slice0(heads, 1)),
            r.tr("max |head 1 − head 2| output: still different, through the weights alone", "最大 |头 1 − 头 2| 输出：仍然不同，只因权重不同"));
  preset_cache_table(r, {"falcon-7b"});
  r.note(r.tr("Falcon-7B (above) and PaLM use MQA; LLaMA 2 70B and later models moved to GQA with 8 KV heads.",
              "Falcon-7B（上表）和 PaLM 用 MQA；LLaMA 2 70B 及之后的模型改用 8 个 KV 头的 GQA。"));
}

Trace run(const LessonConfig& c) { return run_kv_sharing(c, KvStory{"mqa", true, intro, closing}); }

}  // namespace

extern const LessonInfo mqa_lesson = {
    "mqa", {"--tokens", "--seq-len", "--d-model", "--heads", "--causal"}, run};

}  // namespace attn
