#pragma once
// A GPT-2 decoder trained by hand, in the manner of llm.c's train_gpt2.c: every parameter in one
// flat buffer (so AdamW is one loop), every activation in named buffers, and one forward and one
// backward function per layer. Double precision, or float32 (the same templates); every function
// is deterministic and gives the same bits for every thread count (threads split independent
// outputs only; every sum runs in one fixed order).
//
//   B = sequences in a batch   T = positions   C = d_model   H = heads   hs = C / H
//   V = vocabulary             L = layers      N = B·T rows
//   S = the scalar type: double, or float for `train --dtype f32`
//
// The model: x = wte[token] + wpe[position]; L pre-LN blocks
//   x = x + c_proj(causal_mha(c_attn(ln_1(x))));   x = x + mlp.c_proj(gelu(mlp.c_fc(ln_2(x))))
// (the MLP half left out when mlp = false: an attention-only model); logits = ln_f(x) · wteᵀ
// (tied unembedding); loss = mean cross-entropy over the positions whose target is not -1.
// GELU is GPT-2's tanh form ("gelu_new"). Weights are stored as Hugging Face GPT-2 stores them
// (Conv1D: (in, out), applied as x @ W + b), so a checkpoint is the buffer cut into its tensors.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tensor.h"

namespace attn::gpt {

struct GptConfig {
  std::size_t vocab = 32, n_positions = 32, d_model = 64, n_layer = 2, n_head = 4;
  bool mlp = true;
  std::size_t d_ff() const { return 4 * d_model; }
  std::size_t head_size() const { return d_model / n_head; }
};

// One named parameter tensor inside the flat buffer; names and shapes are Hugging Face GPT-2's
// (without the "transformer." prefix): wte.weight (V, C), h.0.attn.c_attn.weight (C, 3C), …
struct ParamTensor {
  std::string name;
  Shape shape;
  std::size_t offset = 0, size = 0;
};

// Offsets of every parameter, for the kernels.
struct LayerOffsets {
  std::size_t ln1w, ln1b, qkvw, qkvb, projw, projb;
  std::size_t ln2w = 0, ln2b = 0, fcw = 0, fcb = 0, fcprojw = 0, fcprojb = 0;  // mlp only
};
struct GptLayout {
  std::vector<ParamTensor> tensors;  // in the order of the checkpoint
  std::size_t wte = 0, wpe = 0, lnfw = 0, lnfb = 0, total = 0;
  std::vector<LayerOffsets> layers;
};
GptLayout gpt_layout(const GptConfig& c);

// The number of parameters (== gpt_layout(c).total), in double so that absurd sizes do not wrap.
double gpt_param_count(const GptConfig& c);

// Initial weights as GPT-2 draws them (Hugging Face's _init_weights): every weight matrix and both
// embeddings N(0, 0.02²), the two residual projections (attn.c_proj, mlp.c_proj) N(0, (0.02/√(2L))²),
// biases 0, LayerNorm weights 1. Drawn from Rng(seed) tensor by tensor in layout order.
std::vector<double> gpt_init(const GptConfig& c, std::uint64_t seed);

// ---- the layers: forward and backward ----------------------------------------------------------
// Every layer is a template on the scalar type S, instantiated for double (the default trainer)
// and float (`train --dtype f32`); the double instantiation is the code that was double-only
// before, the same operations in the same order, so its bits did not change. In float every
// number, sum included, is a float: accumulators are float, as PyTorch's CPU kernels keep them
// (docs/ARCHITECTURE.md, "Training in float32"). Optional pointers (bias, dbias, head_gate) are
// NoDeduce<const S*> so that a nullptr argument does not stop S being deduced.
// Backward functions ADD into their gradient outputs (a buffer is zeroed once per step), as llm.c.
template <class P>
using NoDeduce = std::type_identity_t<P>;

// out (N, C) = wte[tokens[n]] + wpe[n % T]
template <class S>
void encoder_forward(S* out, const int* tokens, const S* wte, const S* wpe, std::size_t B, std::size_t T,
                     std::size_t C);
template <class S>
void encoder_backward(S* dwte, S* dwpe, const S* dout, const int* tokens, std::size_t B, std::size_t T, std::size_t C,
                      std::size_t V);

// out = (inp − mean) · rstd · w + b per row; mean, rstd (N) kept for the backward. eps 1e-5.
constexpr double kLayerNormEps = 1e-5;
template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* inp, const S* w, const S* b, std::size_t N, std::size_t C);
template <class S>
void layernorm_backward(S* dinp, S* dw, S* db, const S* dout, const S* inp, const S* w, const S* mean, const S* rstd,
                        std::size_t N, std::size_t C);

// out (N, OC) = inp (N, IC) @ w (IC, OC) + bias (OC); bias may be null.
template <class S>
void matmul_forward(S* out, const S* inp, const S* w, NoDeduce<const S*> bias, std::size_t N, std::size_t IC,
                    std::size_t OC);
// dinp += dout @ wᵀ, dw += inpᵀ @ dout, dbias += column sums of dout (dbias may be null).
template <class S>
void matmul_backward(S* dinp, S* dw, NoDeduce<S*> dbias, const S* dout, const S* inp, const S* w, std::size_t N,
                     std::size_t IC, std::size_t OC);

// qkv (B, T, 3C): q | k | v, head h in columns h·hs … (h+1)·hs of each. out (B, T, C): the heads'
// outputs side by side; att (B, H, T, T): causal softmax weights (0 above the diagonal).
// head_gate (H) or null: head h's output is multiplied by head_gate[h] (0 ablates the head).
template <class S>
void attention_forward(S* out, S* att, const S* qkv, std::size_t B, std::size_t T, std::size_t C, std::size_t H,
                       NoDeduce<const S*> head_gate = nullptr);
template <class S>
void attention_backward(S* dqkv, const S* dout, const S* qkv, const S* att, std::size_t B, std::size_t T,
                        std::size_t C, std::size_t H, NoDeduce<const S*> head_gate = nullptr);

// GPT-2's tanh GELU, elementwise over n numbers.
template <class S>
void gelu_forward(S* out, const S* inp, std::size_t n);
template <class S>
void gelu_backward(S* dinp, const S* inp, const S* dout, std::size_t n);
// The same, keeping the forward's tanh(u) (th, n numbers) for the backward instead of computing it
// twice: the same operations on the same numbers, so the same bits as the pair above.
template <class S>
void gelu_forward_keep(S* out, S* th, const S* inp, std::size_t n);
template <class S>
void gelu_backward_kept(S* dinp, const S* inp, const S* th, const S* dout, std::size_t n);

// out = a + b; backward: da += dout, db += dout.
template <class S>
void residual_forward(S* out, const S* a, const S* b, std::size_t n);
template <class S>
void residual_backward(S* da, S* db, const S* dout, std::size_t n);

// probs (N, V) = softmax(logits); losses (N) = −log probs[target] (0 where target is -1).
template <class S>
void softmax_forward(S* probs, const S* logits, std::size_t N, std::size_t V);
template <class S>
void crossentropy_forward(S* losses, const S* probs, const int* targets, std::size_t N, std::size_t V);
// dlogits += (probs − onehot(target)) · dlosses[n]   (rows with target -1 get nothing)
template <class S>
void crossentropy_softmax_backward(S* dlogits, const S* dlosses, const S* probs, const int* targets, std::size_t N,
                                   std::size_t V);

// ---- the whole model -----------------------------------------------------------------------------
// Activations of a forward pass, in the model's scalar type S.
template <class S>
struct GptActsT {
  std::size_t B = 0, T = 0;
  std::vector<S> encoded;                                  // (N, C)
  // per layer, each (L, …)
  std::vector<S> ln1, ln1_mean, ln1_rstd, qkv, atty, att, attproj, residual2;
  std::vector<S> ln2, ln2_mean, ln2_rstd, fch, fch_tanh, fch_gelu, fcproj, residual3;  // fch_tanh: GELU's tanh(u)
  std::vector<S> lnf, lnf_mean, lnf_rstd, logits, probs, losses;
  std::vector<S> wte_t;  // (C, V) wteᵀ for the unembedding
  double loss = 0.0;     // mean over counted targets (in float: the float mean, widened)
  std::size_t counted = 0;  // targets that are not -1
};

// A model: config, layout, weights in S.
template <class S>
struct GptT {
  GptConfig config;
  GptLayout layout;
  std::vector<S> params;
};
using Gpt = GptT<double>;
using GptActs = GptActsT<double>;
Gpt make_gpt(const GptConfig& c, std::uint64_t seed);
// The same model in another scalar type (float ← double rounds each weight; double ← float is exact).
template <class To, class From>
GptT<To> gpt_cast(const GptT<From>& m) {
  return GptT<To>{m.config, m.layout, std::vector<To>(m.params.begin(), m.params.end())};
}

// The forward pass over tokens (B, T), T ≤ n_positions, every token < vocab. targets (B, T) or
// null (then no loss). ablate: for each layer, H gates or empty (see attention_forward).
template <class S>
void gpt_forward(const GptT<S>& m, const int* tokens, const int* targets, std::size_t B, std::size_t T, GptActsT<S>& a,
                 NoDeduce<const std::vector<std::vector<S>>*> ablate = nullptr);
// grads (layout.total) is overwritten with d loss / d params for the last forward pass (with targets).
template <class S>
void gpt_backward(const GptT<S>& m, const int* tokens, const int* targets, const GptActsT<S>& a, std::vector<S>& grads);

// The attention weights of layer l, head h, sequence b: (T, T), from the last forward pass.
Tensor attention_of(const Gpt& m, const GptActs& a, std::size_t l, std::size_t h, std::size_t b);

}  // namespace attn::gpt
