#pragma once
// A GPT-2 checkpoint, run forward in double precision, one layer at a time.
//
// Hugging Face's GPT-2 layout (names with or without the "transformer." prefix that
// GPT2LMHeadModel.save_pretrained adds; both load):
//   wte.weight (V, D)  wpe.weight (P, D)  ln_f.{weight,bias} (D)
//   h.N.ln_1.{weight,bias} (D)  h.N.attn.c_attn.weight (D, 3D) + bias (3D): Q | K | V side by side
//   h.N.attn.c_proj.weight (D, D) + bias  h.N.ln_2.…  h.N.mlp.c_fc.weight (D, F)  h.N.mlp.c_proj.weight (F, D)
// Conv1D stores W as (in, out), so y = x W + b is already the chapter's row-vector form. The head
// is tied to wte (lm_head.weight, if a file has it, is used instead). Pre-LayerNorm blocks:
//   x += attn(ln_1(x));  x += mlp(ln_2(x));  logits = ln_f(x) wteᵀ.   Attention is causal.
// Layers count from 0, as the tensor names do.
// An attention-only checkpoint (`attnlab train --no-mlp`: config.json has
// "attnlab_attention_only": true) has no ln_2 / mlp tensors: each block is x += attn(ln_1(x)).
//   T tokens, D = n_embd, H = n_head, Dh = D / H, F = n_inner (4·D), V = vocab, P = n_positions.
#include <cstdint>
#include <string>
#include <vector>

#include "attention.h"
#include "ffn.h"
#include "layernorm.h"
#include "models.h"
#include "safetensors.h"

namespace attn {

struct Gpt2LayerWeights {
  std::size_t index = 0;          // the layer's number, from 0 (the errors of its forward name it)
  Tensor ln1_g, ln1_b;            // (D)
  Tensor W_Q, W_K, W_V;           // (D, D): column blocks 0, 1, 2 of c_attn.weight
  Tensor b_Q, b_K, b_V;           // (D)
  Tensor W_O, b_O;                // (D, D), (D): c_proj
  Tensor ln2_g, ln2_b;            // (D)
  Tensor W_1, b_1, W_2, b_2;      // (D, F), (F), (F, D), (D): mlp.c_fc, mlp.c_proj (empty: attention-only)
};

struct Gpt2LayerPass {
  Tensor x_in;         // (T, D) the residual stream entering the layer
  LayerNormPass ln1;   // ln1.out (T, D): what attention reads
  AttentionPass attn;  // Q, K, V include their biases; output = concat W_O + b_O
  Tensor x_mid;        // (T, D) x_in + attn.output
  LayerNormPass ln2;   // ln2 and ffn: empty in an attention-only model
  FfnPass ffn;
  Tensor x_out;        // (T, D) x_mid + ffn.y (x_mid when attention-only)
};

class Gpt2Model {
 public:
  // `folder` holds config.json and the safetensors (see locate.h). Checks the config and every
  // tensor's name and shape from the headers alone; no weight is read yet.
  explicit Gpt2Model(const std::string& folder);

  const ModelConfig& config() const { return m_; }
  const Checkpoint& checkpoint() const { return ck_; }
  double eps() const { return eps_; }
  Activation activation() const { return act_; }
  bool attention_only() const { return attention_only_; }  // no ln_2 / mlp: x_out = x_mid

  // wte[ids] + wpe[p0 .. p0+T): (T, D), p0 = first_position (0, or the tokens a KV cache holds).
  // Ids must be < V and p0 + T ≤ P (the caller checks, naming its flag).
  Tensor embed(const std::vector<std::int64_t>& ids, std::size_t first_position = 0) const;
  Gpt2LayerWeights layer(std::size_t i) const;  // converted to double now, dropped by the caller
  // Every activation is checked as it is computed (activations.h): a NaN or an infinity, from
  // weights finite but too large, is a UsageError naming the folder, the layer and the tensor.
  Gpt2LayerPass run_layer(const Gpt2LayerWeights& w, const Tensor& x) const;
  // ln_f(x) · headᵀ: (T, V), the head read a block of rows at a time.
  Tensor logits(const Tensor& x) const;

 private:
  std::string name(const std::string& tail) const { return prefix_ + tail; }
  ModelConfig m_;
  Checkpoint ck_;
  std::string prefix_;  // "" or "transformer."
  double eps_ = 1e-5;
  Activation act_ = Activation::GeluTanh;
  bool attention_only_ = false;
};

// The forward pass of `ids`: the residual entering every layer (and the last layer's output),
// every layer's attention weights (H, T, T), and the logits if asked.
struct Gpt2Run {
  std::vector<Tensor> residuals;  // L + 1 of (T, D)
  std::vector<Tensor> attention;  // L of (H, T, T)
  Tensor logits;                  // (T, V), empty unless asked
};
Gpt2Run gpt2_forward(const Gpt2Model& model, const std::vector<std::int64_t>& ids, bool with_logits);
// Layer `layer`'s full pass on `ids`: the layers below run first, each loaded and dropped in turn.
Gpt2LayerPass gpt2_layer_pass(const Gpt2Model& model, const std::vector<std::int64_t>& ids, std::size_t layer,
                              Gpt2LayerWeights* weights_out = nullptr);

}  // namespace attn
