#pragma once
// Per-head scores from attention weights (Olsson et al. 2022, "In-context Learning and Induction
// Heads"), each a mean attention weight in [0, 1]:
//   previous-token  weight from t to t − 1, over t ≥ 1
//   first-token     weight from t to 0, over t ≥ 1
//   self            weight from t to t, over t ≥ 1
//   induction       weight from t to j + 1, where j < t − 1 is the latest earlier position holding
//                   the same token as t (the token that followed it last time), over every t
//                   that has such a j
// A score with no position to average over is 0.
#include <cstddef>
#include <vector>

#include "gpt.h"
#include "tensor.h"

namespace attn::train {

struct HeadScores {
  Tensor prev_token, first_token, self, induction;  // (L, H)
};

// One head on one sequence: weights (T, T), tokens (T). Sums and counts are added to.
struct ScoreSums {
  double prev = 0, first = 0, self = 0, induction = 0;
  std::size_t n_rows = 0, n_induction = 0;
};
void add_head_scores(const Tensor& weights, const int* tokens, ScoreSums& s);

// Every layer and head over every sequence of the last forward pass on `tokens` (B, T).
HeadScores head_scores(const gpt::Gpt& m, const gpt::GptActs& a, const std::vector<int>& tokens);

// Induction on a real text, where a single character recurs everywhere: for each position t, the
// position its induction head would copy from, j + 1, where j < t − 2 is the latest earlier position
// with the same token as t and, before it, the same token as before t (tokens[j − 1] = tokens[t − 1]:
// a repeated pair, "A B … A B"; j + 1 < t − 1, so the previous token is never the target); −1 where
// there is none.
std::vector<long> pair_repeat_targets(const std::vector<int>& tokens);
// Each head's mean weight on those targets (L, H), over the positions that have one; attention
// (L, H, T, T) on `tokens` (T). Also the even spread's score over the same positions: the mean of
// 1/(t + 1).
Tensor pair_induction_scores(const Tensor& attention, const std::vector<long>& targets, double* even = nullptr);

// The highest score of a (L, H) score table over layers [from, to): which layer and head, and the
// score (-1 when the range is empty). Ties keep the first head in layer-major order.
struct BestHead {
  std::size_t layer = 0, head = 0;
  double score = -1.0;
};
BestHead best_head(const Tensor& s, std::size_t from, std::size_t to);

}  // namespace attn::train
