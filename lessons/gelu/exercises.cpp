// Lesson `gelu`'s exercises (see lessons/exercise.h); words: lessons/gelu/LANG.cat, ex.N.*.
// Keys from gelu and silu (src/math/tensor.h), the functions the lesson plots.
#include "exercise.h"
#include "tensor.h"

namespace attn {

namespace {

// A point away from 0 (so that "the fraction kept" has a meaning): ±0.2 … ±3.0 in steps of 0.1.
double nonzero_point(ExerciseDraw& draw) {
  double x = draw.grid(0.2, 3.0, 0.1);
  return draw.integer(0, 1) == 0 ? x : -x;
}

// 1. By hand: GELU(x), exact form.
Posed gelu_at(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  double x = nonzero_point(draw);
  Posed p{ExerciseKind::by_hand, "gelu.ex.1."};
  p.args = {{"x", x}, {"phi", gelu(x) / x}, {"y", gelu(x)}};
  p.key = gelu(x);
  p.sig_figs = 3;
  return p;
}

// 2. By hand: SiLU(x) = x·σ(x).
Posed silu_at(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  double x = nonzero_point(draw);
  Posed p{ExerciseKind::by_hand, "gelu.ex.2."};
  p.args = {{"x", x}, {"sigma", sigmoid(x)}, {"y", silu(x)}};
  p.key = silu(x);
  p.sig_figs = 3;
  return p;
}

// 3. Predict: the percent of x that GELU keeps, Φ(x) = GELU(x) / x.
Posed kept_percent(std::uint64_t seed) {
  ExerciseDraw draw(seed, 3);
  double x = draw.pick(std::vector<double>{0.1, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, -0.5, -1.0});
  double percent = 100.0 * gelu(x) / x;
  Posed p{ExerciseKind::predict, "gelu.ex.3."};
  p.args = {{"x", x}, {"y", gelu(x)}, {"percent", percent}};
  p.key = percent;
  p.sig_figs = 3;
  return p;
}

// 4. Why: "positives unchanged, negatives compressed" is true only far from 0.
Posed why_not_a_switch(std::uint64_t) {
  return why_posed("gelu.ex.4.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> gelu_exercises() {
  return {{ExerciseKind::by_hand, gelu_at},
          {ExerciseKind::by_hand, silu_at},
          {ExerciseKind::predict, kept_percent},
          {ExerciseKind::why, why_not_a_switch}};
}

}  // namespace attn
