#pragma once
// AdamW (Loshchilov & Hutter), written as PyTorch 1.13's torch.optim.AdamW computes it, so a
// fixture from PyTorch agrees to rounding:
//   p ← p · (1 − lr·wd)   (only where decay[i] is 1)
//   m ← β1 m + (1 − β1) g;   v ← β2 v + (1 − β2) g²
//   p ← p − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + ε)
// Elementwise, so threads split the parameters and the result never depends on their number.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn {

struct AdamW {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
  std::vector<double> m, v;  // first and second moments, one per parameter
  std::size_t t = 0;         // steps taken
};

// One step with learning rate lr; decay (one flag per parameter) chooses which are decayed,
// or null for all of them. Sizes are checked (std::invalid_argument on a mismatch).
void adamw_step(AdamW& opt, std::vector<double>& params, const std::vector<double>& grads, double lr,
                const std::vector<std::uint8_t>* decay = nullptr);

}  // namespace attn
