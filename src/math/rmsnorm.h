#pragma once
// RMSNorm as Llama, Mistral and Qwen2 have it (Zhang & Sennrich 2019): no mean, no shift.
//   out = x / sqrt(mean(x²) + ε) ⊙ γ        T = tokens, D = d_model.
#include "tensor.h"

namespace attn {

struct RmsNormPass {
  Tensor rstd;  // (T)    1 / sqrt(mean(x²) + eps) of each row
  Tensor out;   // (T, D) x · rstd ⊙ γ
};

// x (T, D), gamma (D).
RmsNormPass rmsnorm(const Tensor& x, const Tensor& gamma, double eps);

}  // namespace attn
