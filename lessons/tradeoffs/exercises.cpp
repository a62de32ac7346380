// Lesson `tradeoffs`'s exercises (see lessons/exercise.h); words: lessons/tradeoffs/LANG.cat, ex.N.*.
// Exercise 1's key is attention_param_count (src/math/attention.h), which the study uses to match the
// variants' parameters.
#include "attention.h"
#include "exercise.h"

namespace attn {

namespace {

// 1. By hand: the attention parameters MQA saves against MHA (which the study gives to the FFN).
Posed mqa_saves(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  std::int64_t H = draw.pick(std::vector<std::int64_t>{4, 8, 12, 16});
  std::int64_t Dh = draw.pick(std::vector<std::int64_t>{16, 32, 64});
  std::int64_t D = H * Dh;
  std::int64_t mha = attention_param_count(D, H, H, Dh), mqa = attention_param_count(D, H, 1, Dh);
  Posed p{ExerciseKind::by_hand, "tradeoffs.ex.1."};
  p.args = {{"d_model", D}, {"heads", H}, {"d_h", Dh}, {"mha", mha}, {"mqa", mqa}, {"saved", mha - mqa}};
  p.key = static_cast<double>(mha - mqa);
  return p;
}

// 2. Why: every variant has the same parameter count.
Posed why_matched(std::uint64_t) {
  return why_posed("tradeoffs.ex.2.", 4, 2);  // c
}

// 3. Why: a difference inside the seeds' range is not a result.
Posed why_seeds(std::uint64_t) {
  return why_posed("tradeoffs.ex.3.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> tradeoffs_exercises() {
  return {{ExerciseKind::by_hand, mqa_saves},
          {ExerciseKind::why, why_matched},
          {ExerciseKind::why, why_seeds}};
}

}  // namespace attn
