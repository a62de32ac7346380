// Lesson `mla`'s exercises (see lessons/exercise.h); words: lessons/mla/LANG.cat, ex.N.*.
// Keys from kv_elements_per_layer on the DeepSeek presets (src/models) and kv_cache_elements (src/math/gqa.h).
#include "exercise.h"
#include "gqa.h"
#include "models.h"

namespace attn {

namespace {

// 1. Predict: what DeepSeek-V3 caches per token per layer.
Posed v3_cache(std::uint64_t) {
  ModelConfig m = load_preset("deepseek-v3");
  u64 mla = kv_elements_per_layer(m);
  Posed p{ExerciseKind::predict, "mla.ex.1."};
  p.args = {{"model", m.title}, {"heads", m.n_h}, {"d_c", m.d_c}, {"d_R", m.d_R}, {"cache", mla}};
  p.key = static_cast<double>(mla);
  return p;
}

// 2. By hand: how many times smaller MLA's cache is than MHA's with the same heads.
Posed times_smaller(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  std::int64_t H = draw.pick(std::vector<std::int64_t>{16, 32, 64, 128});
  std::int64_t Dh = draw.pick(std::vector<std::int64_t>{64, 128});
  std::int64_t d_c = draw.pick(std::vector<std::int64_t>{256, 512});
  std::int64_t d_R = draw.pick(std::vector<std::int64_t>{32, 64});
  std::int64_t mha = kv_cache_elements(H, Dh);
  double ratio = static_cast<double>(mha) / static_cast<double>(d_c + d_R);
  Posed p{ExerciseKind::by_hand, "mla.ex.2."};
  p.args = {{"heads", H}, {"d_h", Dh}, {"d_c", d_c}, {"d_R", d_R}, {"mha", mha}, {"mla", d_c + d_R}, {"ratio", ratio}};
  p.key = ratio;
  p.sig_figs = 3;
  return p;
}

// 3. Why: RoPE on the compressed keys breaks absorption.
Posed why_rope(std::uint64_t) {
  return why_posed("mla.ex.3.", 4, 2);  // c
}

}  // namespace

std::vector<Exercise> mla_exercises() {
  return {{ExerciseKind::predict, v3_cache},
          {ExerciseKind::by_hand, times_smaller},
          {ExerciseKind::why, why_rope}};
}

}  // namespace attn
