#pragma once
// A multi-head attention layer trained by hand: forward pass with a cache, squared-error loss,
// and the backward pass written out op by op, the way llm.c writes its *_backward functions
// (each takes the upstream gradient and the forward activations, and returns the input grads).
//   T = tokens, D = d_model, H = heads, Dh = head width.
// No mask, no biases: X (T, D) -> Q, K, V = X W_Q, X W_K, X W_V -> per-head softmax attention
// -> concat (T, H*Dh) -> output = concat W_O (T, D).
#include <cstddef>

#include "tensor.h"

namespace attn {

struct MhaWeights {
  Tensor W_Q, W_K, W_V;  // (D, H*Dh) each; head i owns column block i
  Tensor W_O;            // (H*Dh, D);   head i owns row block i
};

struct MhaActs {
  Tensor Q_heads, K_heads, V_heads;  // (H, T, Dh)
  Tensor weights;                    // (H, T, T) softmax(Q_i K_iᵀ / √Dh)
  Tensor concat;                     // (T, H*Dh)
  Tensor output;                     // (T, D)
};

MhaActs mha_forward(const Tensor& X, const MhaWeights& w, std::size_t n_heads);

// loss = mean over all T·D entries of (output − Y)²
double mse_loss(const Tensor& output, const Tensor& Y);
// dloss/doutput = 2 (output − Y) / (T·D)
Tensor mse_backward(const Tensor& output, const Tensor& Y);

// ---- the backward passes, one per forward op -----------------------------------------------
// out = inp @ W: given dout (M, N), inp (M, K), W (K, N) -> dinp = dout Wᵀ (M, K), dW = inpᵀ dout (K, N)
void matmul_backward(const Tensor& dout, const Tensor& inp, const Tensor& W, Tensor* dinp, Tensor* dW);
// w = softmax(s) row by row: ds = w ⊙ (dw − rowsum(dw ⊙ w)); w, dw (..., N)
Tensor softmax_backward(const Tensor& w, const Tensor& dw);
// All four weight gradients of the layer for an upstream gradient doutput (T, D).
MhaWeights mha_backward(const Tensor& X, const MhaWeights& w, const MhaActs& a, const Tensor& doutput,
                        std::size_t n_heads);

// w ← w − lr · g, matrix by matrix.
void sgd_step(MhaWeights& w, const MhaWeights& g, double lr);

}  // namespace attn
