// Lesson `qkv-roles`'s exercises (see lessons/exercise.h); words: lessons/qkv_roles/LANG.cat, ex.N.*.
// Keys from attention_scores, softmax_rows and matmul, the lesson's ablations (a) and (b).
#include "attention.h"
#include "exercise.h"
#include "matmul.h"
#include "tensor.h"

namespace attn {

namespace {

// 1. By hand, ablation (a): no matrices, scores = X Xᵀ / √d; the weight token 1 gives itself.
Posed no_matrices(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  Tensor X(Shape{2, 2});  // (T = 2, d = 2)
  for (double& v : X.data) v = draw.grid(-2, 2, 1);
  if (X(0, 0) == 0 && X(0, 1) == 0) X(0, 0) = 1;  // token 1 is not the zero vector
  Tensor scores = attention_scores(X, X);  // (2, 2)
  Tensor w = softmax_rows(scores);         // (2, 2)
  Posed p{ExerciseKind::by_hand, "qkv_roles.ex.1."};
  p.args = {{"x11", X(0, 0)}, {"x12", X(0, 1)}, {"x21", X(1, 0)}, {"x22", X(1, 1)},
            {"s11", scores(0, 0)}, {"s12", scores(0, 1)}, {"w11", w(0, 0)}};
  p.key = w(0, 0);
  p.sig_figs = 3;
  return p;
}

// 2. Predict, ablation (b): equal scores, so every token's output is the mean of the values.
Posed equal_scores(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  std::int64_t T = draw.integer(3, 5);
  auto n = static_cast<std::size_t>(T);
  Tensor V(Shape{n, 1});  // (T, 1): one number per token
  for (double& v : V.data) v = draw.grid(-4, 4, 1);
  std::int64_t token = draw.integer(1, T);
  Tensor out = matmul(softmax_rows(Tensor(Shape{n, n})), V);  // (T, 1): all scores 0
  std::string values;
  for (std::size_t i = 0; i < n; ++i) values += (i ? "  " : "") + plain_number(V.data[i]);
  Posed p{ExerciseKind::predict, "qkv_roles.ex.2."};
  p.args = {{"T", T}, {"values", values}, {"token", token}, {"out", out.data[static_cast<std::size_t>(token - 1)]}};
  p.key = out.data[static_cast<std::size_t>(token - 1)];
  p.sig_figs = 3;
  return p;
}

// 3. Why: Q, K and V are activations, not parameters.
Posed why_activations(std::uint64_t) {
  return why_posed("qkv_roles.ex.3.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> qkv_roles_exercises() {
  return {{ExerciseKind::by_hand, no_matrices},
          {ExerciseKind::predict, equal_scores},
          {ExerciseKind::why, why_activations}};
}

}  // namespace attn
