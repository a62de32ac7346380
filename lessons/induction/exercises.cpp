// Lesson `induction`'s exercises (see lessons/exercise.h); words: lessons/induction/LANG.cat, ex.N.*.
// Exercise 1's key is pair_repeat_targets (src/train/head_scores.h), the position the lesson scores an
// induction head on.
#include "exercise.h"
#include "head_scores.h"

namespace attn {

namespace {

// 1. By hand: which token an induction head copies at the end of "A B C D E … A B".
Posed copied_token(std::uint64_t seed) {
  ExerciseDraw draw(seed, 1);
  std::vector<int> pool = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<int> tokens;
  for (int i = 0; i < 5; ++i) {  // five distinct tokens
    std::size_t k = static_cast<std::size_t>(draw.integer(0, static_cast<std::int64_t>(pool.size()) - 1));
    tokens.push_back(pool[k]);
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(k));
  }
  std::int64_t repeat = draw.integer(2, 4);  // then the first 2-4 of them again
  for (std::int64_t i = 0; i < repeat; ++i) tokens.push_back(tokens[static_cast<std::size_t>(i)]);
  long target = train::pair_repeat_targets(tokens).back();  // the position the head copies from
  std::string seq;
  for (int t : tokens) seq += (seq.empty() ? "" : " ") + std::to_string(t);
  Posed p{ExerciseKind::by_hand, "induction.ex.1."};
  p.args = {{"tokens", seq}, {"last", tokens.back()}, {"before", tokens[tokens.size() - 2]},
            {"position", target + 1}, {"copied", tokens[static_cast<std::size_t>(target)]}};
  p.key = tokens[static_cast<std::size_t>(target)];
  return p;
}

// 2. Why: an induction head needs a head in an earlier layer.
Posed why_two_layers(std::uint64_t) {
  return why_posed("induction.ex.2.", 4, 2);  // c
}

// 3. Why: the loss plateaus, then drops.
Posed why_plateau(std::uint64_t) {
  return why_posed("induction.ex.3.", 4, 1);  // b
}

}  // namespace

std::vector<Exercise> induction_exercises() {
  return {{ExerciseKind::by_hand, copied_token},
          {ExerciseKind::why, why_two_layers},
          {ExerciseKind::why, why_plateau}};
}

}  // namespace attn
