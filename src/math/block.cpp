#include "block.h"

#include "attention.h"

namespace attn {

BlockPass transformer_block(const Tensor& x, const BlockWeights& w, std::size_t n_heads, bool causal,
                            Activation act) {
  BlockPass p;
  // pass 1: LayerNorm, then attention with biased projections
  p.ln1 = layernorm(x, w.ln1_gamma, w.ln1_beta);                  // (T, D)
  p.Q = add_bias(matmul(p.ln1.out, w.W_Q), w.b_Q);                // (T, D)
  p.K = add_bias(matmul(p.ln1.out, w.W_K), w.b_K);                // (T, D)
  p.V = add_bias(matmul(p.ln1.out, w.W_V), w.b_V);                // (T, D)
  HeadsAttention a = multi_head_attention(split_heads(p.Q, n_heads), split_heads(p.K, n_heads),
                                          split_heads(p.V, n_heads), causal);
  p.weights = std::move(a.weights);                                // (H, T, T)
  p.concat = merge_heads(a.heads);                                 // (T, D)
  p.attn_out = add_bias(matmul(p.concat, w.W_O), w.b_O);          // (T, D)
  // pass 2: the first residual connection
  p.resid1 = add(x, p.attn_out);                                  // (T, D)
  // pass 3: LayerNorm, then the FFN
  p.ln2 = layernorm(p.resid1, w.ln2_gamma, w.ln2_beta);           // (T, D)
  FfnPass f = ffn_forward(p.ln2.out, w.W_1, w.b_1, w.W_2, w.b_2, act);
  p.ffn_hidden = f.z;                                             // (T, F)
  p.ffn_act = f.h;                                                // (T, F)
  p.ffn_out = f.y;                                                // (T, D)
  // pass 4: the second residual connection
  p.output = add(p.resid1, p.ffn_out);                            // (T, D)
  return p;
}

BlockParamCount block_param_count(std::int64_t D, std::int64_t F) {
  BlockParamCount c{};
  c.ln1 = 2 * D;
  c.qkv = 3 * D * D + 3 * D;
  c.proj = D * D + D;
  c.ln2 = 2 * D;
  c.fc = D * F + F;
  c.fc_proj = F * D + D;
  c.total = c.ln1 + c.qkv + c.proj + c.ln2 + c.fc + c.fc_proj;
  return c;
}

}  // namespace attn
