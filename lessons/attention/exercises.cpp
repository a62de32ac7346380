// Lesson `attention`'s exercises (see lessons/exercise.h); words: lessons/attention/LANG.cat, ex.N.*.
// Every key is computed by the functions the lesson calls: attention_scores, softmax_rows, matmul,
// causal_mask.
#include <cmath>

#include "attention.h"
#include "exercise.h"
#include "matmul.h"
#include "tensor.h"

namespace attn {

namespace {

// 1. By hand: one query against two keys (d_k = 2); the weight on key 1.
Posed softmax_weight(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  Tensor q(Shape{1, 2}), K(Shape{2, 2});  // (1, d_k), (2 keys, d_k)
  for (double& x : q.data) x = draw.grid(-2, 2, 1);
  for (double& x : K.data) x = draw.grid(-2, 2, 1);
  Tensor scores = attention_scores(q, K);  // (1, 2): q·k_j / √2
  Tensor w = softmax_rows(scores);         // (1, 2)
  Posed p{ExerciseKind::by_hand, "attention.ex.1."};
  p.args = {{"q1", q.data[0]}, {"q2", q.data[1]}, {"k11", K(0, 0)}, {"k12", K(0, 1)}, {"k21", K(1, 0)},
            {"k22", K(1, 1)}, {"s1", scores(0, 0)}, {"s2", scores(0, 1)}, {"w1", w(0, 0)}};
  p.key = w(0, 0);
  p.sig_figs = 3;
  return p;
}

// 2. By hand: the same two keys with one-number values; the output = w1·v1 + w2·v2.
Posed weighted_sum(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  Tensor q(Shape{1, 2}), K(Shape{2, 2}), V(Shape{2, 1});  // (1, d_k), (2, d_k), (2, d_v = 1)
  for (double& x : q.data) x = draw.grid(-2, 2, 1);
  for (double& x : K.data) x = draw.grid(-2, 2, 1);
  for (double& x : V.data) x = draw.grid(-3, 3, 1);
  Tensor w = softmax_rows(attention_scores(q, K));  // (1, 2)
  Tensor out = matmul(w, V);                        // (1, 1)
  Posed p{ExerciseKind::by_hand, "attention.ex.2."};
  p.args = {{"q1", q.data[0]}, {"q2", q.data[1]}, {"k11", K(0, 0)}, {"k12", K(0, 1)}, {"k21", K(1, 0)},
            {"k22", K(1, 1)}, {"v1", V.data[0]}, {"v2", V.data[1]}, {"w1", w(0, 0)}, {"w2", w(0, 1)},
            {"out", out.data[0]}};
  p.key = out.data[0];
  p.sig_figs = 3;
  return p;
}

// 3. Predict: with --causal and T tokens, how many of the T×T weights are exactly 0.
Posed masked_weights(std::uint64_t seed) {
  ExerciseDraw draw(seed, 3);
  std::int64_t T = draw.integer(3, 12);
  auto n = static_cast<std::size_t>(T);
  Tensor w = softmax_rows(causal_mask(Tensor(Shape{n, n})));  // (T, T)
  std::int64_t zeros = 0;
  for (double x : w.data) zeros += x == 0.0;
  Posed p{ExerciseKind::predict, "attention.ex.3."};
  p.args = {{"T", T}, {"total", T * T}, {"zeros", zeros}};
  p.key = static_cast<double>(zeros);
  return p;
}

// 4. Why: the scores are divided by √d_k.
Posed why_scale(std::uint64_t) {
  return why_posed("attention.ex.4.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> attention_exercises() {
  return {{ExerciseKind::by_hand, softmax_weight},
          {ExerciseKind::by_hand, weighted_sum},
          {ExerciseKind::predict, masked_weights},
          {ExerciseKind::why, why_scale}};
}

}  // namespace attn
