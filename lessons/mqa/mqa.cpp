// Lesson `mqa`: section 2.3 of the chapter — multi-query attention, GQA's extreme: every query
// head shares a single key/value head. The same engine as `gqa` (lessons/kv_sharing) with g = 1,
// and its own story: the smallest cache, and what it costs. Words: lessons/mqa/LANG.cat, which
// also overrides the engine's GQA wording (lessons/kv_sharing/LANG.cat) key by key.
#include "kv_sharing/kv_sharing.h"

namespace attn {

namespace {

void intro(LessonRecorder& r, const KvDims& d) {
  r.step("input", {{"heads", d.H}, {"d_model", d.D}, {"d_k", d.Dk}});
}

void closing(LessonRecorder& r, const KvDims& d, const KvRun& k) {
  r.step("trade_off", {{"mha", kv_cache_vectors(static_cast<std::int64_t>(d.H))}});
  if (d.H >= 2) r.value("head_output_difference", slices_max_abs_diff(k.p.heads, 0, 1));
  preset_cache_table(r, {"falcon-7b"});
  r.note("trade_off.note");
}

void bind(OptionBinder& b, KvOptions& o) {
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.toggle("--causal", o.causal);
}

Trace run(const KvOptions& c) { return run_kv_sharing(c, KvStory{"mqa", true, intro, closing}); }

}  // namespace

extern const LessonInfo mqa_lesson = lesson_info<KvOptions>("mqa", bind, run);

}  // namespace attn
