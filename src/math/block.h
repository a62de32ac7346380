#pragma once
// One pre-LayerNorm transformer block, as GPT-2 has it (biases on every projection):
//   resid1 = x + MHA(LN_1(x))        output = resid1 + FFN(LN_2(resid1))
//   MHA(h) = concat_i softmax((h W_Q + b_Q)_i (h W_K + b_K)_iᵀ / √Dh) (h W_V + b_V)_i · W_O + b_O
//   FFN(h) = act(h W_1 + b_1) W_2 + b_2
// Legend: T tokens, D = d_model, H heads, Dh = D / H, F = d_ff.
#include <cstdint>

#include "ffn.h"
#include "layernorm.h"
#include "tensor.h"

namespace attn {

struct BlockWeights {
  Tensor ln1_gamma, ln1_beta;  // (D), (D)
  Tensor W_Q, W_K, W_V, W_O;   // (D, D) each
  Tensor b_Q, b_K, b_V, b_O;   // (D) each
  Tensor ln2_gamma, ln2_beta;  // (D), (D)
  Tensor W_1, b_1;             // (D, F), (F)
  Tensor W_2, b_2;             // (F, D), (D)
};

struct BlockPass {
  LayerNormPass ln1;  // ln1.out (T, D)
  Tensor Q, K, V;     // (T, D) with their biases
  Tensor weights;     // (H, T, T)
  Tensor concat;      // (T, D)
  Tensor attn_out;    // (T, D) concat W_O + b_O
  Tensor resid1;      // (T, D) x + attn_out
  LayerNormPass ln2;  // ln2.out (T, D)
  Tensor ffn_hidden;  // (T, F) ln2_out W_1 + b_1, before the activation
  Tensor ffn_act;     // (T, F) act(ffn_hidden)
  Tensor ffn_out;     // (T, D) ffn_act W_2 + b_2
  Tensor output;      // (T, D) resid1 + ffn_out
};

BlockPass transformer_block(const Tensor& x, const BlockWeights& w, std::size_t n_heads, bool causal,
                            Activation act);

// Parameters of one GPT-2 block, part by part.
struct BlockParamCount {
  std::int64_t ln1, qkv, proj, ln2, fc, fc_proj, total;
  // ln: γ and β (2·D); qkv: W_Q, W_K, W_V and biases (3·D² + 3·D); proj: W_O, b_O (D² + D);
  // fc: W_1, b_1 (D·F + F); fc_proj: W_2, b_2 (F·D + D)
};
BlockParamCount block_param_count(std::int64_t d_model, std::int64_t d_ff);

}  // namespace attn
