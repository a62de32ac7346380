// Lesson `swiglu`'s exercises (see lessons/exercise.h); words: lessons/swiglu/LANG.cat, ex.N.*.
// Keys from swiglu_hidden, swiglu_param_count and swiglu_forward (src/math/ffn.h).
#include "exercise.h"
#include "ffn.h"

namespace attn {

namespace {

// 1. Predict: LLaMA's hidden width: ⌊8d/3⌋ rounded up to a multiple of 256.
Posed hidden_width(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  std::int64_t D = draw.pick(std::vector<std::int64_t>{2048, 3072, 4096, 5120, 6656, 8192});
  std::int64_t raw = swiglu_hidden(D, 1), F = swiglu_hidden(D, 256);
  Posed p{ExerciseKind::predict, "swiglu.ex.1."};
  p.args = {{"d", D}, {"raw", raw}, {"hidden", F}};
  p.key = static_cast<double>(F);
  return p;
}

// 2. By hand: a one-number SwiGLU: y = w_down · SiLU(x·w_gate) · (x·w_up), x of two numbers.
Posed tiny_swiglu(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  Tensor x(Shape{2}), W_gate(Shape{2, 1}), W_up(Shape{2, 1}), W_down(Shape{1, 1});  // (D), (D, F), (D, F), (F, 1)
  for (double& v : x.data) v = draw.grid(-2, 2, 1);
  for (double& v : W_gate.data) v = draw.grid(-1, 1, 0.5);
  for (double& v : W_up.data) v = draw.grid(-1, 1, 0.5);
  W_down.data[0] = draw.grid(-2, 2, 1);
  // no zero to multiply by: x not all 0, x·W_up not 0, W_down not 0 (a key of 0 would be a guess)
  if (x.data[0] == 0 && x.data[1] == 0) x.data[0] = 1;
  if (x.data[0] * W_up.data[0] + x.data[1] * W_up.data[1] == 0) W_up.data[x.data[0] != 0 ? 0 : 1] += 0.5;
  if (W_down.data[0] == 0) W_down.data[0] = 1;
  SwigluPass s = swiglu_forward(x, W_gate, W_up, W_down);
  Posed p{ExerciseKind::by_hand, "swiglu.ex.2."};
  p.args = {{"x1", x.data[0]},          {"x2", x.data[1]},        {"g1", W_gate.data[0]},    {"g2", W_gate.data[1]},
            {"u1", W_up.data[0]},       {"u2", W_up.data[1]},     {"d", W_down.data[0]},     {"gate_pre", s.gate_pre.data[0]},
            {"gate", s.gate.data[0]},   {"up", s.up.data[0]},     {"hidden", s.hidden.data[0]}, {"y", s.y.data[0]}};
  p.key = s.y.data[0];
  p.sig_figs = 3;
  return p;
}

// 3. By hand: SwiGLU at 8d/3 has the parameters of the 4d FFN (without biases).
Posed same_params(std::uint64_t seed) {
  ExerciseDraw draw(seed, 3);
  std::int64_t D = 3 * draw.integer(2, 40);  // a multiple of 3, so that 8d/3 is whole
  std::int64_t F = 8 * D / 3;
  std::int64_t params = swiglu_param_count(D, F);
  Posed p{ExerciseKind::by_hand, "swiglu.ex.3."};
  p.args = {{"d", D}, {"hidden", F}, {"params", params}, {"ffn", 8 * D * D}};
  p.key = static_cast<double>(params);
  return p;
}

// 4. Why: 8d/3.
Posed why_eight_thirds(std::uint64_t) {
  return why_posed("swiglu.ex.4.", 4, 0);  // a
}

}  // namespace

std::vector<Exercise> swiglu_exercises() {
  return {{ExerciseKind::predict, hidden_width},
          {ExerciseKind::by_hand, tiny_swiglu},
          {ExerciseKind::by_hand, same_params},
          {ExerciseKind::why, why_eight_thirds}};
}

}  // namespace attn
