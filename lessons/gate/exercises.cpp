// Lesson `gate`'s exercises (see lessons/exercise.h); words: lessons/gate/LANG.cat, ex.N.*.
// Keys from sigmoid (src/math/tensor.h), the gate's own function, and gate_param_count (src/math/gate.h).
#include "exercise.h"
#include "gate.h"
#include "tensor.h"

namespace attn {

namespace {

// 1. By hand: a gate σ(x·w_G) scales what a token receives from its head.
Posed gated_value(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  double x1 = draw.grid(-2, 2, 1), x2 = draw.grid(-2, 2, 1);
  double g1 = draw.grid(-1, 1, 0.5), g2 = draw.grid(-1, 1, 0.5);
  double head = draw.grid(-3, 3, 1);
  if (head == 0) head = 2;
  double logit = x1 * g1 + x2 * g2;
  double gate = sigmoid(logit);
  Posed p{ExerciseKind::by_hand, "gate.ex.1."};
  p.args = {{"x1", x1}, {"x2", x2}, {"g1", g1}, {"g2", g2}, {"head", head}, {"logit", logit}, {"gate", gate},
            {"out", gate * head}};
  p.key = gate * head;
  p.sig_figs = 3;
  return p;
}

// 2. By hand: what the gate costs, W_G of d_model × (heads · head_dim).
Posed gate_params(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  std::int64_t H = draw.pick(std::vector<std::int64_t>{8, 16, 32});
  std::int64_t Dh = draw.pick(std::vector<std::int64_t>{64, 128, 256});
  std::int64_t D = draw.pick(std::vector<std::int64_t>{1024, 2048, 4096});
  std::int64_t n = gate_param_count(D, H, Dh);
  Posed p{ExerciseKind::by_hand, "gate.ex.2."};
  p.args = {{"d_model", D}, {"heads", H}, {"head_dim", Dh}, {"params", n}};
  p.key = static_cast<double>(n);
  return p;
}

// 3. Why: what a closed gate allows.
Posed why_closed(std::uint64_t) {
  return why_posed("gate.ex.3.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> gate_exercises() {
  return {{ExerciseKind::by_hand, gated_value},
          {ExerciseKind::by_hand, gate_params},
          {ExerciseKind::why, why_closed}};
}

}  // namespace attn
