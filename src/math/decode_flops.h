#pragma once
// Multiply-adds of one layer, per part, for prefill of T tokens (causal: T(T+1)/2 query-key
// pairs per head) and for one decode step with n tokens in the cache (the new one included:
// n pairs per head), per attention variant at the same dims. FLOP = 2 · multiply-adds; the
// softmax is counted in exponentials. Exact integers.
//   D = d_model, H heads, G KV heads, Dh head width, C = d_c, R = d_R, Cq = d_c' (0: W_Q from x),
//   F = FFN hidden width, gated = SwiGLU-style (three matrices) or two.
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

struct FlopDims {
  std::uint64_t D, H, G, Dh, C, R, Cq, F;
  bool gated;
};

struct LayerFlops {
  std::string id;  // mha | gqa | mqa | mla_naive | mla_absorbed | one_head
  std::uint64_t q_proj, kv_proj, scores, softmax_exp, weighted_sum, out_proj, ffn;
  std::uint64_t macs() const { return q_proj + kv_proj + scores + weighted_sum + out_proj + ffn; }
};

// rows = tokens computed (T for prefill, 1 for decode); pairs = query-key pairs per head.
//   mha, gqa, mqa  q rows·D·H·Dh, kv rows·D·2·G·Dh, scores pairs·H·Dh, exp pairs·H,
//                  sum pairs·H·Dh, out rows·H·Dh·D
//   mla_naive      q rows·(D·Cq + Cq·H·(Dh+R)) or rows·D·H·(Dh+R); kv rows·(D·(C+R) + C·2·H·Dh);
//                  scores pairs·H·(Dh+R), sum pairs·H·Dh, out rows·H·Dh·D
//   mla_absorbed   q as naive + rows·H·Dh·C (W_UK folded into the query); kv rows·D·(C+R);
//                  scores pairs·H·(C+R), sum pairs·H·C, out rows·(H·C·Dh + H·Dh·D) (W_UV, then W_O)
//   one_head       MHA with one head of width H·Dh: the same matmuls, pairs exponentials
//   ffn            rows·3·D·F when gated, rows·2·D·F otherwise (the same for every variant)
// Every count, each variant's total and its FLOP (2 · total) fit in 64 bits, or std::overflow_error.
std::vector<LayerFlops> layer_flops(const FlopDims& d, std::uint64_t rows, std::uint64_t pairs);
std::vector<LayerFlops> prefill_flops(const FlopDims& d, std::uint64_t T);   // rows T, pairs T(T+1)/2
std::vector<LayerFlops> decode_flops(const FlopDims& d, std::uint64_t n);    // rows 1, pairs n

}  // namespace attn
