// Lesson `mha`'s exercises (see lessons/exercise.h); words: lessons/mha/LANG.cat, ex.N.*.
// Keys from attention_param_count (src/math/attention.h) and the bundled presets (src/models).
#include "attention.h"
#include "exercise.h"
#include "models.h"

namespace attn {

namespace {

// 1. By hand: the parameters of one attention layer (W_Q, W_K, W_V, W_O, no biases).
Posed layer_params(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  std::int64_t H = draw.pick(std::vector<std::int64_t>{2, 4, 6, 8, 12, 16});
  std::int64_t Dh = draw.pick(std::vector<std::int64_t>{8, 16, 32, 64});
  std::int64_t D = H * Dh;
  std::int64_t params = attention_param_count(D, H, H, Dh);
  Posed p{ExerciseKind::by_hand, "mha.ex.1."};
  p.args = {{"d_model", D}, {"heads", H}, {"d_k", Dh}, {"per_matrix", D * H * Dh}, {"params", params}};
  p.key = static_cast<double>(params);
  return p;
}

// 2. Predict: a real model's head width d_k = d_model / h, from its preset.
Posed head_width(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  const std::string name = draw.pick(std::vector<std::string>{"gpt2", "llama-2-7b", "gpt-3-175b", "llama-3-8b"});
  ModelConfig m = load_preset(name);
  Posed p{ExerciseKind::predict, "mha.ex.2."};
  p.args = {{"model", m.title}, {"preset", name}, {"d_model", m.d}, {"heads", m.n_h}, {"d_k", m.d_h}};
  p.key = static_cast<double>(m.d_h);
  return p;
}

// 3. Why: more heads, the same parameters.
Posed why_no_more_params(std::uint64_t) {
  return why_posed("mha.ex.3.", 4, 2);  // c
}

// 4. Why: what W_O does.
Posed why_w_o(std::uint64_t) {
  return why_posed("mha.ex.4.", 4, 0);  // a
}

}  // namespace

std::vector<Exercise> mha_exercises() {
  return {{ExerciseKind::by_hand, layer_params},
          {ExerciseKind::predict, head_width},
          {ExerciseKind::why, why_no_more_params},
          {ExerciseKind::why, why_w_o}};
}

}  // namespace attn
