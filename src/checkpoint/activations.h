#pragma once
// Activations of a forward pass on real weights, checked as they are computed. Every weight can
// be finite and still too large for double precision (1e200 in an F64 checkpoint): a product
// overflows to an infinity, a sum of infinities is NaN, and a NaN would reach the softmax (a row
// with no maximum) or a renderer. The first tensor that holds one is refused with one UsageError
// (checkpoint.err.activation_not_finite) naming the checkpoint folder, the layer (counting from
// 1, with the tensor names' index from 0 beside, as every command prints it) and the tensor. One pass over the tensor.
//
// Tensor names (the catalog message selects its words by them):
//   embed, logits, final_norm                       outside the layers (the layer is not shown)
//   norm1, q, k, v, scores, attn_out, resid_mid,    in a layer: the norm before attention, the
//   norm2, mlp_hidden, mlp_out, block_out           projections, q·k/√d, concat·W_O (+ b_O), the
//                                                   residual after attention, the norm before the
//                                                   MLP, its hidden layer (pre- and post-activation;
//                                                   SwiGLU's gate, up and their product), its output
//                                                   and the residual leaving the block
#include <cstddef>
#include <string>

#include "tensor.h"

namespace attn {

// What a checked tensor must hold.
enum class FiniteRule {
  All,       // every number finite
  Causal,    // scores (…, R, C), masked or not: only the entries a causal mask keeps (column ≤
             // row + C − R: the last R of C positions are the queries, as in a KV cache) count
  Positive,  // a norm's 1/√(variance + ε): finite and above 0 (0 means the variance overflowed)
};

// Where a forward pass is: the checkpoint folder its errors name, and the layer (from 0).
struct ActivationSite {
  std::string folder;
  std::size_t layer = 0;
};

void require_finite_activation(const Tensor& t, const ActivationSite& at, const char* tensor,
                               FiniteRule rule = FiniteRule::All);

// A LayerNorm or RMSNorm pass (LayerNormPass, RmsNormPass): its 1/√(variance + ε) and its output.
template <class NormPass>
void require_finite_norm(const NormPass& p, const ActivationSite& at, const char* tensor) {
  require_finite_activation(p.rstd, at, tensor, FiniteRule::Positive);
  require_finite_activation(p.out, at, tensor);
}

}  // namespace attn
