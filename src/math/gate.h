#pragma once
// Gated attention (Qiu et al. 2025, "Gated Attention for Large Language Models"; the output gate
// of Qwen3-Next's full-attention layers): the heads' concat is multiplied elementwise by
// σ(X W_G) before W_O, so each token can scale — or silence — what attention brings it.
//   T = tokens, D = d_model, H = heads, Dh = head width; W_G is (D, H*Dh).
#include <cstddef>

#include "attention.h"

namespace attn {

struct GatedAttentionPass {
  AttentionPass attn;     // the usual multi-head pass; attn.concat is (T, H*Dh)
  Tensor gate_logits;     // (T, H*Dh) X W_G
  Tensor gate;            // (T, H*Dh) σ(X W_G), each entry in (0, 1)
  Tensor gated;           // (T, H*Dh) concat ⊙ gate
  Tensor output;          // (T, D)    gated W_O
  Tensor output_ungated;  // (T, D)    concat W_O: the same layer without the gate
};

// gate_values: σ(X W_G), X (T, D), W_G (D, C) -> (T, C), each entry in (0, 1).
Tensor gate_values(const Tensor& X, const Tensor& W_G);

// Multi-head attention (H query heads, H key/value heads) with an elementwise sigmoid output gate.
GatedAttentionPass gated_attention(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
                                   const Tensor& W_O, const Tensor& W_G, std::size_t n_heads, bool causal);

// close_gate: W_G (D, C) plus one rank-1 term, u (D) ⊗ (logit·1 − x_s W_G) (C), chosen so that
// token s's gate logits all become `logit` while every other token's stay as they were:
// u = Xᵀ a with (X Xᵀ) a = e_s, so x_j · u = 1 for j = s and 0 otherwise.
// Needs the rows of X (T, D) to be linearly independent (so T <= D); throws std::invalid_argument
// otherwise.
Tensor close_gate(const Tensor& X, const Tensor& W_G, std::size_t s, double logit);

// The same gate put on the values instead (position "after V" in Qiu et al.'s comparison): each
// token's value is scaled by its own gate before anyone reads it, V_gated = V ⊙ gate. The
// attention weights are the pass's own (Q and K are untouched); a token whose gate is shut is
// read by nobody, but it still receives the others' (gated) values.
struct ValueGatedPass {
  Tensor V_gated;  // (T, H*Dh) V ⊙ gate
  Tensor heads;    // (H, T, Dh) weights_i (V_gated)_i
  Tensor concat;   // (T, H*Dh)
  Tensor output;   // (T, D)    concat W_O
};
// p: a multi-head pass with G = H (p.V is (T, H*Dh)); gate (T, H*Dh); W_O (H*Dh, D).
ValueGatedPass value_gated_attention(const AttentionPass& p, const Tensor& gate, const Tensor& W_O);

// Gate parameters one layer adds: W_G is d_model × (heads · head_dim), d_model² when H·Dh = D.
std::int64_t gate_param_count(std::int64_t d_model, std::int64_t n_heads, std::int64_t head_dim);

}  // namespace attn
