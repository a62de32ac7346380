// Lesson `mqa`'s exercises (see lessons/exercise.h); words: lessons/mqa/LANG.cat, ex.N.*.
// Keys from kv_cache_vectors (src/math/gqa.h) and kv_usage on the bundled Falcon-7B preset.
#include "exercise.h"
#include "gqa.h"
#include "models.h"

namespace attn {

namespace {

// 1. By hand: how many times smaller MQA's cache is than MHA's with the same heads.
Posed times_smaller(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  std::int64_t H = draw.pick(std::vector<std::int64_t>{8, 12, 16, 32, 40, 64, 71, 96});
  std::int64_t mha = kv_cache_vectors(H), mqa = kv_cache_vectors(1);
  Posed p{ExerciseKind::by_hand, "mqa.ex.1."};
  p.args = {{"heads", H}, {"mha_vectors", mha}, {"mqa_vectors", mqa}, {"ratio", mha / mqa}};
  p.key = static_cast<double>(mha / mqa);
  return p;
}

// 2. Predict: Falcon-7B (MQA) caches how many bytes per token, all layers, bf16.
Posed falcon_per_token(std::uint64_t) {
  ModelConfig m = load_preset("falcon-7b");
  KvUsage u = kv_usage(m, 1, 1, Dtype{"bf16", 16}, 1);
  Posed p{ExerciseKind::predict, "mqa.ex.2."};
  p.args = {{"model", m.title}, {"layers", m.l}, {"heads", m.n_h}, {"head_dim", m.d_h}, {"bytes", u.bytes_per_token},
            {"mha_bytes", u.bytes_per_token * m.n_h}};
  p.key = static_cast<double>(u.bytes_per_token);
  return p;
}

// 3. Why: why most new models chose GQA over MQA.
Posed why_gqa_not_mqa(std::uint64_t) {
  return why_posed("mqa.ex.3.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> mqa_exercises() {
  return {{ExerciseKind::by_hand, times_smaller},
          {ExerciseKind::predict, falcon_per_token},
          {ExerciseKind::why, why_gqa_not_mqa}};
}

}  // namespace attn
