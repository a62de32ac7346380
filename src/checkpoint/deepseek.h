#pragma once
// A DeepSeek-V2-style MLA checkpoint (model_type deepseek_v2), run forward in double precision, one
// layer at a time: what `attnlab train --attention mla --save` writes (variant_checkpoint.h), read
// back by heads, generate, params --weights and `lesson mla --weights`.
//
// What it runs: dense layers only (n_routed_experts null), no query latent (q_lora_rank null, as
// DeepSeek-V2-Lite), v_head_dim = qk_nope_head_dim, no RMSNorm on the latent (config.json's
// attnlab_mla.kv_a_layernorm false; a checkpoint with kv_a_layernorm is refused, naming it), RoPE
// in consecutive pairs (rope.h) with rope_theta 10000. Names (nn.Linear stores (out, in); each is
// transposed on reading to the chapter's (in, out) and cut into mla.h's matrices):
//   model.embed_tokens.weight (V, D)  model.norm.weight (D)  lm_head.weight (V, D) unless tied
//   model.layers.N.input_layernorm.weight, post_attention_layernorm.weight (D)
//   self_attn.q_proj.weight (H·(Dh+R), D)          head i: Dh rows of W_Q, then R of W_QR
//   self_attn.kv_a_proj_with_mqa.weight (C+R, D)   C rows of W_DKV, then R of W_KR
//   self_attn.kv_b_proj.weight (H·2Dh, C)          head i: Dh rows of W_UK, then Dh of W_UV
//   self_attn.o_proj.weight (D, H·Dh)              W_O
//   mlp.gate_proj, up_proj (F, D), down_proj (D, F)
// A layer: a = rms(x); attention = mla.h's naive path on a (causal); x += attention;
// x += swiglu(rms(x)); logits = rms_f(x) headᵀ.
//   T tokens, D = hidden_size, H heads, Dh = qk_nope_head_dim, C = kv_lora_rank,
//   R = qk_rope_head_dim, F = intermediate_size, V = vocab_size. Layers count from 0.
#include <cstdint>
#include <string>
#include <vector>

#include "ffn.h"
#include "mla.h"
#include "models.h"
#include "rmsnorm.h"
#include "safetensors.h"

namespace attn {

struct MlaLayerWeights {
  std::size_t index = 0;        // the layer's number, from 0
  Tensor attn_norm;             // (D) input_layernorm
  MlaWeights w;                 // W_DKV (D, C), W_UK, W_UV (C, H·Dh), W_Q (D, H·Dh), W_QR (D, H·R), W_KR (D, R), W_O (H·Dh, D)
  Tensor mlp_norm;              // (D) post_attention_layernorm
  Tensor W_gate, W_up, W_down;  // (D, F), (D, F), (F, D)
};

struct MlaLayerPass {
  Tensor x_in;        // (T, D) the residual stream entering the layer
  RmsNormPass norm1;  // norm1.out (T, D): what attention reads
  MlaNaive attn;      // c_KV, K_C, V_C, Q_C, Q_R, K_R, scores, weights, heads, concat, output
  Tensor x_mid;       // (T, D) x_in + attn.output
  RmsNormPass norm2;
  SwigluPass mlp;
  Tensor x_out;       // (T, D) x_mid + mlp.y
};

class MlaModel {
 public:
  // `folder` holds config.json and the safetensors; every tensor's name and shape is checked from
  // the headers alone.
  explicit MlaModel(const std::string& folder);

  const ModelConfig& config() const { return m_; }
  const Checkpoint& checkpoint() const { return ck_; }
  double rms_eps() const { return rms_eps_; }
  u64 max_tokens() const { return max_positions_; }  // max_position_embeddings (0: not given)
  MlaDims dims(std::size_t T) const;                   // mla.h's sizes for T tokens

  Tensor embed(const std::vector<std::int64_t>& ids) const;  // (T, D)
  MlaLayerWeights layer(std::size_t i) const;                 // converted to double now
  MlaLayerPass run_layer(const MlaLayerWeights& w, const Tensor& x) const;
  Tensor logits(const Tensor& x) const;  // (T, V)

 private:
  ModelConfig m_;
  Checkpoint ck_;
  double rms_eps_ = 1e-6;
  u64 max_positions_ = 0;
};

// Whether folder/config.json says model_type deepseek_v2.
bool is_mla_family(const std::string& model_type);

struct MlaRun {
  std::vector<Tensor> residuals;  // L + 1 of (T, D)
  std::vector<Tensor> attention;  // L of (H, T, T)
  Tensor logits;                  // (T, V), empty unless asked
};
MlaRun mla_forward(const MlaModel& model, const std::vector<std::int64_t>& ids, bool with_logits);
// Layer `layer`'s full pass on `ids`, the layers below run first.
MlaLayerPass mla_layer_pass(const MlaModel& model, const std::vector<std::int64_t>& ids, std::size_t layer,
                            MlaLayerWeights* weights_out = nullptr);

}  // namespace attn
