// Lesson `symmetry`'s exercises (see lessons/exercise.h); words: lessons/symmetry/LANG.cat, ex.N.*.
// Exercise 1's gradients are the chain rule through two identical heads, with matmul (src/math).
#include "exercise.h"
#include "matmul.h"
#include "tensor.h"

namespace attn {

namespace {

// 1. By hand: two heads that start equal get equal gradients. y = x·w1 + x·w2 (one input number,
// two one-number heads), loss (y − t)² / 2; the gradient on w1 (and on w2: the same).
Posed equal_gradients(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  double x = draw.grid(-2, 2, 0.5), w = draw.grid(-1, 1, 0.5), t = draw.grid(-2, 2, 1);
  if (x == 0) x = 1;
  Tensor xs(Shape{1, 1}, {x}), W(Shape{1, 2}, {w, w});  // (1, 1) input, (1, 2): both heads
  Tensor heads = matmul(xs, W);                        // (1, 2): x·w1, x·w2
  double y = heads.data[0] + heads.data[1];
  double dy = y - t;                                   // dL/dy
  Tensor grad = matmul(Tensor(Shape{1, 1}, {x * dy}), Tensor(Shape{1, 2}, {1, 1}));  // (1, 2): dL/dw1, dL/dw2
  Posed p{ExerciseKind::by_hand, "symmetry.ex.1."};
  p.args = {{"x", x}, {"w", w}, {"t", t}, {"y", y}, {"dy", dy}, {"g1", grad.data[0]}, {"g2", grad.data[1]}};
  p.key = grad.data[0];
  p.sig_figs = 3;
  return p;
}

// 2. Why: heads must start from different random weights.
Posed why_random(std::uint64_t) {
  return why_posed("symmetry.ex.2.", 4, 2);  // c
}

// 3. Why: all-zero weights never move.
Posed why_zero(std::uint64_t) {
  return why_posed("symmetry.ex.3.", 4, 0);  // a
}

}  // namespace

std::vector<Exercise> symmetry_exercises() {
  return {{ExerciseKind::by_hand, equal_gradients},
          {ExerciseKind::why, why_random},
          {ExerciseKind::why, why_zero}};
}

}  // namespace attn
