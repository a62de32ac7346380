#pragma once
// Greedy generation on a real checkpoint with a KV cache (`attnlab generate`), and the check that
// it changes nothing: the logits the cache gives equal a full forward over the same tokens.
//
// The prompt runs once (prefill: T0 rows, causal), filling every layer's cache with its K and V;
// then each new token runs alone: its q, k, v are computed, k and v appended to the cache, and its
// query reads every cached row (no mask needed: the cache holds only the past and itself).
//   L layers, H query heads, G KV heads (GPT-2: G = H), Dh head width, V vocabulary,
//   t tokens in the cache, n new rows in one call, t0 = t before the call.
// Layers count from 0, as the tensor names do.
#include <cstdint>
#include <vector>

#include "activations.h"
#include "deepseek.h"
#include "gpt2.h"
#include "llama.h"

namespace attn {

struct KvCache {
  // per layer (G, t, Dh); a Llama's K after RoPE (as it is read). MLA caches what its absorbed
  // path reads: K holds the latent c_KV (1, t, C), V the shared RoPE key K_R after RoPE (1, t, R).
  std::vector<Tensor> K, V;
  std::size_t tokens() const { return K.empty() ? 0 : K[0].dim(1); }
};

// Queries (H, n, Dh) at positions t0 … t0 + n − 1 over a cache K, V (G, t0 + n, Dh), head i
// reading KV head i / (H / G); query r sees keys 0 … t0 + r. Returns the heads (H, n, Dh).
// `at`, when given: the scores are checked for a NaN or an infinity first (activations.h).
Tensor cached_attention(const Tensor& Q_heads, const Tensor& K, const Tensor& V, std::size_t t0,
                        const ActivationSite* at = nullptr);
// (G, t, Dh) with (G, n, Dh) appended along the tokens: (G, t + n, Dh). An empty cache is t = 0.
Tensor append_tokens(const Tensor& cache, const Tensor& rows);

// n new tokens (positions cache.tokens() …) through every layer, reading and growing the cache
// (created on the first call): the logits of the new rows, (n, V). `layers`: every layer's
// weights already read (generate_greedy keeps them for a run), else each layer is read here.
// Every activation is checked as in the full forward (activations.h).
Tensor gpt2_extend(const Gpt2Model& model, const std::vector<std::int64_t>& ids, KvCache& cache,
                   const std::vector<Gpt2LayerWeights>* layers = nullptr);
Tensor llama_extend(const LlamaModel& model, const std::vector<std::int64_t>& ids, KvCache& cache,
                    const std::vector<LlamaLayerWeights>* layers = nullptr);
// MLA decodes as DeepSeek-V3's inference code does ("absorb"): the new tokens' c_KV and K_R join
// the cache; each head's query is folded through W_UK,i (width C), scored against the cached
// latents and RoPE keys, /√(Dh + R), and its weighted sum of latents goes through W_UV,i, then
// W_O. K_C and V_C are never formed: mla_forward (the naive path) is the check.
Tensor mla_extend(const MlaModel& model, const std::vector<std::int64_t>& ids, KvCache& cache,
                  const std::vector<MlaLayerWeights>* layers = nullptr);

// The checkpoint a run reads: exactly one of the three is set.
struct ModelRef {
  const Gpt2Model* gpt2 = nullptr;
  const LlamaModel* llama = nullptr;
  const MlaModel* mla = nullptr;
};

// How the next token is chosen from a row of logits:
//   temperature 0   greedy: the argmax (lowest id on a tie)
//   temperature T   sampled: the top_k largest logits (0: all; ties at the cut keep the lower ids),
//                   p_j ∝ exp((logit_j − max) / T), one uniform draw u from Rng(seed) per token, the
//                   first id (in descending-logit order) whose running sum of p exceeds u
// masked: a token never chosen (a character model's <unk>): left out of the argmax and of the
// sampled tokens, as if its logit were −∞; −1: none. The reported prob stays the model's softmax.
struct Sampling {
  double temperature = 0.0;
  std::size_t top_k = 0;
  std::uint64_t seed = 42;
  std::int64_t masked = -1;
};

struct GenerateStep {
  std::int64_t id = 0;          // the token chosen (see Sampling)
  double logit = 0, prob = 0;   // its logit and its softmax probability under the model (T = 1, all tokens)
  std::size_t cache_tokens = 0; // rows in each layer's cache when it was chosen
};

struct GenerateRun {
  std::vector<std::int64_t> ids;    // the prompt, then the generated tokens
  std::vector<GenerateStep> steps;  // one per generated token
  Tensor logits;                    // (N, V): row s chose steps[s], computed with the cache
  KvCache cache;                    // after the last step: T0 + N − 1 tokens (the last token is not fed)
};

// generate_greedy reads every layer's weights once, as doubles, when all of them take at most
// this many bytes (GPT-2 124M's take 680 MB), and keeps them for every step; a larger model's
// layers are read again at each step, so memory stays at one layer's weights.
constexpr double kKeptLayerBytes = 2.0 * (1u << 30);

// N greedy steps after `prompt`, for whichever family `model` holds.
// keep_layer_bytes: the budget above (tests pass 0 to read the layers at every step).
GenerateRun generate_greedy(const ModelRef& model, const std::vector<std::int64_t>& prompt, std::size_t n,
                            double keep_layer_bytes = kKeptLayerBytes, const Sampling& sampling = {});
// The full forward's logits over all of run.ids but the last, rows T0 − 1 …: (N, V), and the
// largest |difference| from the cached ones.
double cached_vs_full(const ModelRef& model, const GenerateRun& run, std::size_t prompt_len, Tensor* full_out = nullptr);

}  // namespace attn
