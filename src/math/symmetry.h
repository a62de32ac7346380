#pragma once
// Why each head must start from its own random weights: train the same small attention layer
// (src/backprop.h) from three starts and watch the heads.
//   identical: head 1 drawn at random and copied into every other head
//   random:    the same head 1, every other head drawn independently
//   zero:      every weight 0
//   T = tokens, D = d_model, H = heads, Dh = head width.
#include <cstddef>
#include <vector>

#include "backprop.h"
#include "random.h"

namespace attn {

// One head's own weights: W_Q_i, W_K_i, W_V_i (D, Dh) and W_O_i (Dh, D).
struct HeadWeights {
  Tensor W_Q, W_K, W_V, W_O;
};
// Draw one head, every entry N(0, std²), in the order W_Q_i, W_K_i, W_V_i, W_O_i.
HeadWeights draw_head(Rng& rng, std::size_t D, std::size_t Dh, double std);

// Lay heads side by side: W_Q = [W_Q_1 | … | W_Q_H], W_O = [W_O_1 ; … ; W_O_H].
MhaWeights assemble_heads(const std::vector<HeadWeights>& heads);
// Head i's own slices of the fused matrices.
HeadWeights head_of(const MhaWeights& w, std::size_t n_heads, std::size_t i);
// max |head a − head b| over all four of the two heads' matrices (0 only if they are identical).
double head_gap(const MhaWeights& w, std::size_t n_heads, std::size_t a, std::size_t b);
// The largest |entry| of each gradient: {W_Q, W_K, W_V, W_O}.
std::vector<double> grad_max(const MhaWeights& g);

// The three starts, drawn in this order: head 1 (N(0, std²)), then heads 2 … H for `random`.
struct Starts {
  MhaWeights identical;  // every head a copy of head 1
  MhaWeights random;     // head 1, then independently drawn heads
  MhaWeights zero;       // all weights 0
};
Starts make_starts(Rng& rng, std::size_t D, std::size_t H, std::size_t Dh, double std);

// The target: the output (T, D) of a "teacher" layer whose H heads are drawn independently
// with std 1/√D — something that heads which differ from each other can learn.
Tensor teacher_target(Rng& rng, const Tensor& X, std::size_t H, std::size_t Dh);

struct TrainRun {
  std::vector<double> loss;  // [steps+1]: before the first step and after each step
  std::vector<double> gap;   // [steps+1]: head_gap(·, 0, 1)
  MhaWeights first_grads;    // the gradients of step 1
  MhaWeights final;          // the weights after the last step
  std::size_t diverged_at = 0;  // 0: never; else the step after which a weight was no longer finite or
                                // passed kDivergedWeight (the learning rate is too large); training stops there
};
constexpr double kDivergedWeight = 1e6;

// Plain gradient descent on mse(mha_forward(X).output, Y) for `steps` steps (fewer if it diverges).
TrainRun train_toy(const Tensor& X, const Tensor& Y, MhaWeights w, std::size_t n_heads, std::size_t steps, double lr);

}  // namespace attn
