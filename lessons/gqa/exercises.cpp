// Lesson `gqa`'s exercises (see lessons/exercise.h); words: lessons/gqa/LANG.cat, ex.N.*.
// Keys from group_of_head, cache_reduction (src/math/gqa.h) and kv_usage on the bundled presets.
#include "exercise.h"
#include "gqa.h"
#include "models.h"

namespace attn {

namespace {

// 1. Predict: which KV group a query head reads (the chapter's "with 12 heads and 4 groups").
Posed group_index(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  struct Shape2 { std::int64_t H, G; };
  const Shape2 s = draw.pick(std::vector<Shape2>{{12, 4}, {8, 2}, {16, 4}, {32, 8}, {12, 3}, {24, 6}, {16, 8}});
  std::int64_t head = draw.integer(1, s.H);
  Tensor groups = group_of_head(static_cast<std::size_t>(s.H), static_cast<std::size_t>(s.G));  // (H), 0-based
  std::int64_t group = static_cast<std::int64_t>(groups.data[static_cast<std::size_t>(head - 1)]) + 1;
  Posed p{ExerciseKind::predict, "gqa.ex.1."};
  p.args = {{"heads", s.H}, {"groups", s.G}, {"head", head}, {"per_group", s.H / s.G}, {"group", group}};
  p.key = static_cast<double>(group);
  return p;
}

// 2. Predict: Llama 3 8B's KV cache for a context in bf16, from its preset.
Posed llama3_cache(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  std::int64_t T = draw.pick(std::vector<std::int64_t>{4096, 8192, 32768, 65536});
  ModelConfig m = load_preset("llama-3-8b");
  KvUsage u = kv_usage(m, static_cast<u64>(T), 1, Dtype{"bf16", 16}, 1);
  Posed p{ExerciseKind::predict, "gqa.ex.2."};
  p.args = {{"model", m.title}, {"tokens", T}, {"layers", m.l}, {"kv_heads", m.n_g}, {"head_dim", m.d_h},
            {"per_token", u.bytes_per_token}, {"bytes", u.total_bytes}};
  p.key = static_cast<double>(u.total_bytes);
  p.sig_figs = 3;
  return p;
}

// 3. By hand: the share of MHA's cache that GQA saves, in percent.
Posed cache_saved(std::uint64_t seed) {
  ExerciseDraw draw(seed, 3);
  struct Shape2 { std::int64_t H, G; };
  const Shape2 s = draw.pick(std::vector<Shape2>{{12, 4}, {32, 8}, {64, 8}, {16, 2}, {40, 8}, {28, 4}, {96, 8}});
  Fraction f = cache_reduction(s.H, s.G);
  double percent = 100.0 * static_cast<double>(f.num) / static_cast<double>(f.den);
  Posed p{ExerciseKind::by_hand, "gqa.ex.3."};
  p.args = {{"heads", s.H}, {"groups", s.G}, {"mha_vectors", kv_cache_vectors(s.H)}, {"gqa_vectors", kv_cache_vectors(s.G)},
            {"num", f.num}, {"den", f.den}, {"percent", percent}};
  p.key = percent;
  p.sig_figs = 3;
  return p;
}

// 4. Why: heads of one group still attend differently.
Posed why_group_differs(std::uint64_t) {
  return why_posed("gqa.ex.4.", 4, 3);  // d
}

}  // namespace

std::vector<Exercise> gqa_exercises() {
  return {{ExerciseKind::predict, group_index},
          {ExerciseKind::predict, llama3_cache},
          {ExerciseKind::by_hand, cache_saved},
          {ExerciseKind::why, why_group_differs}};
}

}  // namespace attn
