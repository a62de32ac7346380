// Lesson `transmla`'s exercises (see lessons/exercise.h); words: lessons/transmla/LANG.cat, ex.N.*.
// Keys from TransMlaDims and gqa_up_projection (src/math/transmla.h), the lesson's exact rewrite.
#include "exercise.h"
#include "transmla.h"

namespace attn {

namespace {

struct HGD { std::size_t H, G, Dh; };

// 1. By hand: the exact latent of a GQA layer written as MLA.
Posed exact_latent(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  const HGD s = draw.pick(std::vector<HGD>{{32, 8, 128}, {64, 8, 128}, {28, 4, 128}, {16, 4, 64}, {40, 8, 128}, {12, 4, 64}});
  TransMlaDims d{1, s.H * s.Dh, s.H, s.G, s.Dh};
  Posed p{ExerciseKind::by_hand, "transmla.ex.1."};
  p.args = {{"heads", s.H}, {"groups", s.G}, {"d_h", s.Dh}, {"d_c", d.C()}};
  p.key = static_cast<double>(d.C());
  return p;
}

// 2. Predict: how many entries of the copy matrix W_UK are 1.
Posed ones_in_up(std::uint64_t seed) {
  ExerciseDraw draw(seed, 2);
  const HGD s = draw.pick(std::vector<HGD>{{4, 2, 2}, {6, 3, 2}, {8, 2, 4}, {8, 4, 2}, {4, 1, 4}, {6, 2, 3}});
  Tensor W_UK = gqa_up_projection(s.H, s.G, s.Dh, false);  // (2·G·Dh, H·Dh), 0/1
  std::int64_t ones = 0;
  for (double v : W_UK.data) ones += v == 1.0;
  Posed p{ExerciseKind::predict, "transmla.ex.2."};
  p.args = {{"heads", s.H}, {"groups", s.G}, {"d_h", s.Dh}, {"rows", W_UK.dim(0)}, {"cols", W_UK.dim(1)}, {"ones", ones}};
  p.key = static_cast<double>(ones);
  return p;
}

// 3. Why: RoPE stands in the way of converting real models.
Posed why_rope(std::uint64_t) {
  return why_posed("transmla.ex.3.", 4, 0);  // a
}

}  // namespace

std::vector<Exercise> transmla_exercises() {
  return {{ExerciseKind::by_hand, exact_latent},
          {ExerciseKind::predict, ones_in_up},
          {ExerciseKind::why, why_rope}};
}

}  // namespace attn
