// Lesson `specialize`'s exercises (see lessons/exercise.h); words: lessons/specialize/LANG.cat, ex.N.*.
// Exercise 1 is the task's target, (x_{t−1} − x_0) mod V, as src/train/tasks.h defines prev-minus-first.
#include "exercise.h"

namespace attn {

namespace {

// 1. By hand: the target the task asks for at one position.
Posed task_target(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  const std::int64_t V = 16;
  std::vector<std::int64_t> x;
  for (int i = 0; i < 6; ++i) x.push_back(draw.integer(0, V - 1));
  std::int64_t t = draw.integer(1, 5);
  std::int64_t target = ((x[static_cast<std::size_t>(t - 1)] - x[0]) % V + V) % V;
  std::string seq;
  for (std::int64_t v : x) seq += (seq.empty() ? "" : " ") + std::to_string(v);
  Posed p{ExerciseKind::by_hand, "specialize.ex.1."};
  p.args = {{"V", V}, {"tokens", seq}, {"t", t}, {"prev", x[static_cast<std::size_t>(t - 1)]}, {"first", x[0]},
            {"target", target}};
  p.key = static_cast<double>(target);
  return p;
}

// 2. Why: one head has a hard time with two relations.
Posed why_one_head(std::uint64_t) {
  return why_posed("specialize.ex.2.", 4, 3);  // d
}

// 3. Why: nobody assigns the heads' roles.
Posed why_emergent(std::uint64_t) {
  return why_posed("specialize.ex.3.", 4, 0);  // a
}

}  // namespace

std::vector<Exercise> specialize_exercises() {
  return {{ExerciseKind::by_hand, task_target},
          {ExerciseKind::why, why_one_head},
          {ExerciseKind::why, why_emergent}};
}

}  // namespace attn
