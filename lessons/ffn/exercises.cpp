// Lesson `ffn`'s exercises (see lessons/exercise.h); words: lessons/ffn/LANG.cat, ex.N.*.
// Keys from ffn_param_count and ffn_forward (src/math/ffn.h) and count_params on the GPT-2 preset.
#include "exercise.h"
#include "ffn.h"
#include "models.h"

namespace attn {

namespace {

// 1. By hand: the parameters of one FFN with biases, d_ff = 4·d.
Posed ffn_params(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  std::int64_t D = draw.pick(std::vector<std::int64_t>{4, 8, 16, 32, 64, 128, 256, 768});
  FfnParams f = ffn_param_count(D, 4 * D);
  Posed p{ExerciseKind::by_hand, "ffn.ex.1."};
  p.args = {{"d", D}, {"d_ff", 4 * D}, {"W_1", f.W_1}, {"b_1", f.b_1}, {"W_2", f.W_2}, {"b_2", f.b_2}, {"total", f.total}};
  p.key = static_cast<double>(f.total);
  return p;
}

// 2. By hand: a tiny FFN with ReLU (d = 2, d_ff = 2, one output number).
Posed tiny_ffn(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  Tensor x(Shape{2}), W_1(Shape{2, 2}), b_1(Shape{2}), W_2(Shape{2, 1}), b_2(Shape{1});  // (D), (D, F), (F), (F, 1), (1)
  for (double& v : x.data) v = draw.grid(-2, 2, 1);
  for (double& v : W_1.data) v = draw.grid(-2, 2, 1);
  for (double& v : b_1.data) v = draw.grid(-1, 1, 1);
  for (double& v : W_2.data) v = draw.grid(-2, 2, 1);
  FfnPass f = ffn_forward(x, W_1, b_1, W_2, b_2, Activation::Relu);
  Posed p{ExerciseKind::by_hand, "ffn.ex.2."};
  p.args = {{"x1", x.data[0]},      {"x2", x.data[1]},      {"w11", W_1(0, 0)},     {"w12", W_1(0, 1)},
            {"w21", W_1(1, 0)},     {"w22", W_1(1, 1)},     {"b1", b_1.data[0]},    {"b2", b_1.data[1]},
            {"u1", W_2.data[0]},    {"u2", W_2.data[1]},    {"z1", f.z.data[0]},    {"z2", f.z.data[1]},
            {"h1", f.h.data[0]},    {"h2", f.h.data[1]},    {"y", f.y.data[0]}};
  p.key = f.y.data[0];
  return p;
}

// 3. Predict: GPT-2 small's FFN parameters, all 12 layers.
Posed gpt2_ffn(std::uint64_t) {
  ModelConfig m = load_preset("gpt2");
  u64 all = ffn_params_all_layers(count_params(m));
  Posed p{ExerciseKind::predict, "ffn.ex.3."};
  p.args = {{"model", m.title}, {"d", m.d}, {"d_ff", m.d_ff}, {"layers", m.l}, {"per_layer", all / m.l}, {"all", all}};
  p.key = static_cast<double>(all);
  p.sig_figs = 3;
  return p;
}

// 4. Why: the FFN widens to 4d.
Posed why_widen(std::uint64_t) {
  return why_posed("ffn.ex.4.", 4, 2);  // c
}

}  // namespace

std::vector<Exercise> ffn_exercises() {
  return {{ExerciseKind::by_hand, ffn_params},
          {ExerciseKind::by_hand, tiny_ffn},
          {ExerciseKind::predict, gpt2_ffn},
          {ExerciseKind::why, why_widen}};
}

}  // namespace attn
