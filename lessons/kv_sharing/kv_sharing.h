#pragma once
// The engine shared by the lessons `gqa` and `mqa` (section 2 of the chapter): one attention
// layer with G key/value heads for H query heads, recorded step by step. Each lesson adds its
// own opening and closing narrative; mqa is the same engine with G = 1.
// Legend: T tokens, D = d_model, H query heads, G KV heads (groups), Dk = d_k = D / H.
#include "lesson.h"

namespace attn {

struct KvDims {
  std::size_t T, D, H, G, Dk;
};

// Narration hooks: `intro` opens the first step (before X is shown), `closing` adds the last step.
struct KvStory {
  const char* lesson;  // "gqa" | "mqa"
  bool mqa;            // G fixed at 1 (no --kv-heads)
  void (*intro)(Recorder& r, const KvDims& d);
  void (*closing)(Recorder& r, const KvDims& d);
};

Trace run_kv_sharing(const LessonConfig& c, const KvStory& story);

// A table of bundled model presets (models.h): query heads, KV heads, cached vectors per token
// per layer against MHA's 2·h, and the share saved.
void preset_cache_table(Recorder& r, const std::vector<std::string>& presets);

// "heads 1–3" / "头 1–3" (1-based, inclusive), or "head 4" when first == last.
std::string head_range(Lang lang, std::size_t first, std::size_t last);

}  // namespace attn
