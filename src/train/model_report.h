#pragma once
// A trained model looked at (for `lesson induction`): its losses and head scores on the evaluation
// batch, every head's attention on one sequence, and the loss on the repeat with the induction
// heads zeroed — the same numbers train() records at its last evaluation, for a model read back
// from a checkpoint.
#include <cstddef>
#include <utility>
#include <vector>

#include "gpt.h"
#include "head_scores.h"
#include "tasks.h"
#include "trainer.h"

namespace attn::train {

// The evaluation batch train() draws for c (c.eval_batch sequences of c.task): the same numbers.
Batch evaluation_batch(const TrainConfig& c);
// The same draw for another task (the shortcut model scored on random offsets, and back).
Batch evaluation_batch(const TrainConfig& c, Task task);

struct ModelReport {
  double loss = 0.0;          // every target of the batch
  double repeat_loss = 0.0;   // the second copy only
  HeadScores scores;          // (L, H) each
  Tensor offset;              // (L, H): mean weight from t to t − k, k = T/2 − 1, over t ≥ k (repeat-half's
                              // positional head: the token k back is the one the repeat copies next)
  Tensor attention;           // (L, H, T, T): every head on sequence `shown` of the batch
  // The induction heads zeroed (every head past layer 1 with induction score ≥ 0.5, or the best
  // one), as train() chooses them; (layer, head) from 0.
  std::vector<std::pair<std::size_t, std::size_t>> ablated;
  double repeat_loss_ablated = 0.0;
};
ModelReport analyse_model(const gpt::Gpt& m, const Batch& eval, std::size_t shown = 0);

// Where sequence s of an induction or repeat-half batch repeats itself: the first copy starts at
// `first`, the second at `second`, each `length` tokens long (read off repeat_targets).
struct RepeatSpan {
  std::size_t first = 0, second = 0, length = 0;
};
RepeatSpan repeat_span(const Batch& b, std::size_t s);

// The offset score of one head on one sequence, added to sums (weights (T, T)).
void add_offset_score(const Tensor& weights, std::size_t k, double& sum, std::size_t& n);

}  // namespace attn::train
