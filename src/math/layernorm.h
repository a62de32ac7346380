#pragma once
// LayerNorm as GPT-2 has it (learned γ and β, ε = 1e-5), written like llm.c's layernorm_forward:
// per row, mean and reciprocal standard deviation, then normalize, scale and shift.
//   T = tokens, D = d_model.
#include "tensor.h"

namespace attn {

constexpr double kLayerNormEps = 1e-5;  // GPT-2's layer_norm_epsilon

struct LayerNormPass {
  Tensor mean;  // (T)    mean of each row
  Tensor rstd;  // (T)    1 / sqrt(var + eps), var the biased variance of each row
  Tensor xhat;  // (T, D) (x − mean) · rstd: each row has mean 0 and variance ≈ 1
  Tensor out;   // (T, D) xhat ⊙ γ + β
};

// x (T, D), gamma (D), beta (D).
LayerNormPass layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps = kLayerNormEps);

}  // namespace attn
