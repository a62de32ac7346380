#pragma once
// A Llama-family checkpoint (model_type llama, mistral, qwen2), run forward in double precision,
// one layer at a time.
//
// Hugging Face's layout (LlamaForCausalLM.save_pretrained; nn.Linear stores W as (out, in), so
// each is transposed on reading to the chapter's row-vector (in, out)):
//   model.embed_tokens.weight (V, D)   model.norm.weight (D)   lm_head.weight (V, D) unless tied
//   model.layers.N.input_layernorm.weight (D)   model.layers.N.post_attention_layernorm.weight (D)
//   model.layers.N.self_attn.q_proj.weight (H·Dh, D)  k_proj, v_proj (G·Dh, D)  o_proj (D, H·Dh)
//     + q/k/v biases for qwen2 (and for attention_bias: true, which also biases o_proj)
//   model.layers.N.mlp.gate_proj.weight (F, D)  up_proj (F, D)  down_proj (D, F)
// Pre-RMSNorm blocks with RoPE (rotate-half, rope_half.h) on Q and K, GQA and a SwiGLU MLP:
//   a = rms(x);  Q, K, V = a W_Q (+b), a W_K (+b), a W_V (+b);  Q, K rotated per head;
//   head i reads KV head i / (H / G);  x += concat W_O;  x += swiglu(rms(x));
//   logits = rms_f(x) headᵀ.   Attention is causal. Layers count from 0, as the tensor names do.
//   T tokens, D = hidden_size, H query heads, G = num_key_value_heads, Dh = head_dim,
//   F = intermediate_size, V = vocab_size.
#include <cstdint>
#include <string>
#include <vector>

#include "attention.h"
#include "ffn.h"
#include "models.h"
#include "rmsnorm.h"
#include "safetensors.h"

namespace attn {

// The keys of config.json the forward needs beyond ModelConfig.
struct LlamaSettings {
  double rms_eps = 1e-6;        // rms_norm_eps
  double rope_theta = 10000.0;  // rope_theta
  std::string rope_type;        // "" (none), "linear", "llama3"
  u64 max_positions = 0;        // max_position_embeddings (0: not given)
};

struct LlamaLayerWeights {
  std::size_t index = 0;           // the layer's number, from 0 (the errors of its forward name it)
  Tensor attn_norm;                // (D) input_layernorm
  Tensor W_Q, W_K, W_V, W_O;       // (D, H·Dh), (D, G·Dh), (D, G·Dh), (H·Dh, D)
  Tensor b_Q, b_K, b_V, b_O;       // (H·Dh), (G·Dh), (G·Dh), (D): zeros when the model has none
  Tensor mlp_norm;                 // (D) post_attention_layernorm
  Tensor W_gate, W_up, W_down;     // (D, F), (D, F), (F, D)
};

struct LlamaLayerPass {
  Tensor x_in;        // (T, D) the residual stream entering the layer
  RmsNormPass norm1;  // norm1.out (T, D): what attention reads
  // Q, K, V with biases; Q_heads (H, T, Dh), K_heads and V_heads (G, T, Dh) before RoPE;
  // K_expanded, V_expanded (H, T, Dh) after RoPE, each KV head repeated for its query heads;
  // scores and weights from the rotated Q and K.
  AttentionPass attn;
  Tensor Q_rot;       // (H, T, Dh) Q_heads after RoPE
  Tensor K_rot;       // (G, T, Dh) K_heads after RoPE
  Tensor x_mid;       // (T, D) x_in + attn.output
  RmsNormPass norm2;
  SwigluPass mlp;
  Tensor x_out;       // (T, D) x_mid + mlp.y
};

class LlamaModel {
 public:
  // `folder` holds config.json and the safetensors. Checks the config and every tensor's name and
  // shape from the headers alone; no weight is read yet.
  explicit LlamaModel(const std::string& folder);

  const ModelConfig& config() const { return m_; }
  const LlamaSettings& settings() const { return s_; }
  const Checkpoint& checkpoint() const { return ck_; }
  const Tensor& inv_freq() const { return inv_freq_; }  // (Dh/2) θ_i after any rope_scaling
  // The most tokens one run may hold: max_position_embeddings, and the sliding window if any
  // layer has one (attnlab does not mask by window). 0: no limit from the config.
  u64 max_tokens() const;

  Tensor embed(const std::vector<std::int64_t>& ids) const;  // embed_tokens[ids]: (T, D)
  LlamaLayerWeights layer(std::size_t i) const;               // converted to double now
  // Every activation is checked as it is computed (activations.h), as in Gpt2Model::run_layer.
  LlamaLayerPass run_layer(const LlamaLayerWeights& w, const Tensor& x) const;
  Tensor logits(const Tensor& x) const;  // norm(x) · headᵀ: (T, V)

 private:
  ModelConfig m_;
  LlamaSettings s_;
  Checkpoint ck_;
  Tensor inv_freq_;
};

// The logits of an RMSNorm-final model with Hugging Face names: rms(x) with model.norm.weight, times
// lm_head.weight (or the tied model.embed_tokens.weight) transposed, read 4,096 rows at a time:
// x (T, D) -> (T, V), checked (the final norm and the logits, at layer L). LlamaModel and MlaModel.
Tensor rms_head_logits(const Checkpoint& ck, const ModelConfig& m, double eps, const Tensor& x);

// Whether a config.json's model_type is one LlamaModel runs.
bool is_llama_family(const std::string& model_type);
// The model_type of folder/config.json, or "" when it cannot be read as one (the model's own
// loader then names the error).
std::string config_model_type(const std::string& folder);

struct LlamaRun {
  std::vector<Tensor> residuals;  // L + 1 of (T, D)
  std::vector<Tensor> attention;  // L of (H, T, T)
  Tensor logits;                  // (T, V), empty unless asked
};
LlamaRun llama_forward(const LlamaModel& model, const std::vector<std::int64_t>& ids, bool with_logits);
// Layer `layer`'s full pass on `ids`: the layers below run first, each loaded and dropped in turn.
LlamaLayerPass llama_layer_pass(const LlamaModel& model, const std::vector<std::int64_t>& ids, std::size_t layer,
                                LlamaLayerWeights* weights_out = nullptr);

}  // namespace attn
