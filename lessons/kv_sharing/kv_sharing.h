#pragma once
// The engine shared by the lessons `gqa` and `mqa` (section 2 of the chapter): one attention
// layer with G key/value heads for H query heads, recorded step by step. Each lesson adds its
// own opening and closing narrative; mqa is the same engine with G = 1.
// Words: lessons/kv_sharing/LANG.cat; a lesson's own catalog (gqa, mqa) comes first in the
// recorder's chain, so mqa overrides the engine's GQA wording with keys of the same name.
// Legend: T tokens, D = d_model, H query heads, G KV heads (groups), Dk = d_k = D / H.
#include "attention.h"
#include "gqa.h"
#include "lesson.h"

namespace attn {

struct KvDims {
  std::size_t T, D, H, G, Dk;
  bool d_model_derived;  // --d-model not given and the derived d_model differs from the default 8
};

// Everything the lesson shows, computed before any narration (weights drawn in the mha lesson's
// order X, W_Q, W_K, W_V, W_O, so that g = h reproduces `attnlab lesson mha` number for number).
struct KvRun {
  Tensor X;                              // (T, D)
  Tensor W_Q, W_K, W_V, W_O;             // (D, H*Dk), (D, G*Dk), (D, G*Dk), (H*Dk, D)
  AttentionPass p;                       // the grouped layer (expanded view)
  Tensor W_K_copied, W_V_copied;         // (D, H*Dk): each group's block copied to its heads
  AttentionPass mha_copied;              // plain MHA (g = h) on the copied weights
  GroupedPass by_group;                  // the second code path, no copies
  GroupedPass by_group_h;                // the second code path at g = h, on the copies
};

// Narration hooks: `intro` opens the first step (before X is shown), `closing` adds the last step.
struct KvStory {
  const char* lesson;  // "gqa" | "mqa": the trace's lesson and the first catalog of the chain
  bool mqa;            // G fixed at 1 (no --kv-heads)
  void (*intro)(LessonRecorder& r, const KvDims& d);
  void (*closing)(LessonRecorder& r, const KvDims& d, const KvRun& run);
};

// The options of gqa and mqa (mqa binds no --kv-heads: G is 1).
struct KvOptions : RunContext {
  std::optional<std::string> tokens;
  std::optional<std::int64_t> seq_len, d_model, heads, kv_heads;
  bool causal = false;
  // gqa only: a real Llama-family checkpoint's layer (--weights PATH --layer N --text|--token-ids)
  std::optional<std::string> weights, text, token_ids;
  std::optional<std::int64_t> layer;
};
Trace run_kv_sharing(const KvOptions& c, const KvStory& story);

// A table of bundled model presets (models.h): query heads, KV heads, cached vectors per token
// per layer against MHA's 2·h, and the share saved. Headers: kv_sharing.presets.col.*.
void preset_cache_table(LessonRecorder& r, const std::vector<std::string>& presets);

}  // namespace attn
