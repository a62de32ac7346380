#pragma once
// Decoding with a KV cache: a small decoder (token embedding + position embedding, L attention
// layers with residuals, logits = h W_U) generating greedily one token at a
// time, and the full causal forward over the same tokens that the cache must reproduce.
// Plus what one decoded token costs each attention variant: cache numbers read, multiply-adds.
// Row-vector convention: X is (T, D), a projection is X @ W with W (D_in, D_out).
//   V = vocabulary, D = d_model, H = query heads, G = KV heads, Dh = head width, L = layers,
//   T = tokens (prompt + generated), C = MLA latent d_c, R = MLA decoupled RoPE width d_R.
#include <cstdint>
#include <string>
#include <vector>

#include "random.h"
#include "tensor.h"

namespace attn {

struct DecodeDims {
  std::size_t V, D, H, G, Dh, L;
  std::size_t T;  // positions: prompt plus generated tokens
};

struct DecodeLayer {
  Tensor W_Q;  // (D, H*Dh)
  Tensor W_K;  // (D, G*Dh)
  Tensor W_V;  // (D, G*Dh)
  Tensor W_O;  // (H*Dh, D)
};
struct DecodeModel {
  Tensor E;  // (V, D) token embeddings, N(0, 1)
  Tensor P;  // (T, D) position embeddings, N(0, 1)
  std::vector<DecodeLayer> layers;
  Tensor W_U;  // (D, V) unembedding: logits = h W_U
};
// Draws E, P, then per layer W_Q, W_K, W_V, W_O, then W_U (each N(0, 1/d_in)), row-major.
DecodeModel init_decode_model(Rng& rng, const DecodeDims& d);

// One generation run. The cache of layer l holds one row of K and one of V per token seen.
struct DecodeRun {
  std::vector<std::size_t> tokens;   // (T): the prompt, then each generated token
  Tensor hidden;                     // (T, D): the last layer's output of each step, row by row
  Tensor logits;                     // (T, V): hidden W_U
  std::vector<Tensor> K_cache;       // per layer (T, G*Dh), the cache after the last step
  std::vector<Tensor> V_cache;       // per layer (T, G*Dh)
  std::vector<std::uint64_t> macs;   // (T): multiply-adds of the attention over the cache
                                     // (scores and weighted sums, all layers) counted in the loop
};
// Feeds the prompt one token at a time, then appends argmax(logits) until T tokens.
// Each step: x = E[tok] + P[t]; per layer q, k, v of the new row only, k and v appended to
// the cache, attention of the new query over every cached row, x += heads W_O.
DecodeRun decode_greedy(const DecodeModel& m, const DecodeDims& d, const std::vector<std::size_t>& prompt);

// The same model over all T tokens at once, causal mask, no cache.
struct DecodeFull {
  Tensor hidden;  // (T, D)
  Tensor logits;  // (T, V)
  std::vector<Tensor> K, V;  // per layer (T, G*Dh)
};
DecodeFull decode_full_forward(const DecodeModel& m, const DecodeDims& d, const std::vector<std::size_t>& tokens);

// What one decoded token costs one layer's attention with n cached tokens (the new one
// included), per variant at the same D, H, Dh. Projections of the new token are not counted
// (every variant does them); the absorbed path's own extra work is.
//   mha, gqa, mqa   cache 2·G·Dh per token (G = H, G, 1); MACs 2·H·Dh·n (scores, weighted sum)
//   mla_naive       the latent expanded and cached per head, as DeepSeek-V3's reference
//                   inference code does with attn_impl "naive": cache H·(Dh+R) + H·Dh per token;
//                   MACs H·n·(Dh+R) + H·n·Dh
//   mla_absorbed    cache C + R per token; MACs H·Dh·C (W_UK into the query) + H·n·(C+R) + H·n·C
//                   + H·C·Dh (W_UV after attention)
struct VariantDims {
  std::size_t H, G, Dh, C, R;
};
struct VariantCost {
  std::string id;             // mha | gqa | mqa | mla_naive | mla_absorbed
  std::uint64_t per_token;    // cache numbers per token per layer
  std::uint64_t cache_read;   // numbers read for this token: per_token · n
  std::uint64_t macs;         // multiply-adds
};
std::vector<VariantCost> decode_variant_costs(const VariantDims& v, std::uint64_t n);

// Roofline: FLOP per byte = 2·MACs / (cache_read · bytes per number); attainable GFLOP/s =
// min(peak, bandwidth · intensity); the balance point is peak / bandwidth.
double arithmetic_intensity(const VariantCost& c, double bytes_per_number);
double roofline(double intensity, double bandwidth_gb_s, double peak_gflop_s);

}  // namespace attn
