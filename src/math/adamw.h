#pragma once
// AdamW (Loshchilov & Hutter), written as PyTorch 1.13's torch.optim.AdamW computes it, so a
// fixture from PyTorch agrees to rounding:
//   p ← p · (1 − lr·wd)   (only where decay[i] is 1)
//   m ← β1 m + (1 − β1) g;   v ← β2 v + (1 − β2) g²
//   p ← p − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + ε)
// Elementwise, so threads split the parameters and the result never depends on their number.
// S is the scalar type of the parameters, gradients and moments: double, or float for
// `train --dtype f32`. In float the per-step scalars (1 − lr·wd, lr / (1 − β1^t), √(1 − β2^t),
// β1, 1 − β1, β2, 1 − β2, ε) are computed in double, as PyTorch computes them in Python, and
// rounded to float once; every elementwise operation is then float, as PyTorch's float kernels.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn {

template <class S>
struct AdamWT {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
  std::vector<S> m, v;  // first and second moments, one per parameter
  std::size_t t = 0;    // steps taken
};
using AdamW = AdamWT<double>;

// One step with learning rate lr; decay (one flag per parameter) chooses which are decayed,
// or null for all of them. Sizes are checked (std::invalid_argument on a mismatch).
template <class S>
void adamw_step(AdamWT<S>& opt, std::vector<S>& params, const std::vector<S>& grads, double lr,
                const std::vector<std::uint8_t>* decay = nullptr);

}  // namespace attn
