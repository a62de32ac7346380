#pragma once
// A trained variant (decoder.h) as a Hugging Face Llama checkpoint, for the variants Llama can
// hold: RoPE positions, RMSNorm, a SwiGLU FFN and MHA, GQA or MQA attention (MQA is Llama with one
// key-value head). Names and shapes are transformers' LlamaForCausalLM: nn.Linear weights are
// (out, in), so every (in, out) matrix of the decoder is written transposed:
//   wte                  -> model.embed_tokens.weight (V, C)   (tied: no lm_head.weight)
//   layers.l.norm_1      -> model.layers.l.input_layernorm.weight
//   attn.W_Q, W_K, W_V   -> self_attn.q_proj, k_proj, v_proj .weight  (H·hs, C), (G·hs, C), (G·hs, C)
//   attn.W_O             -> self_attn.o_proj.weight (C, H·hs)
//   layers.l.norm_2      -> post_attention_layernorm.weight
//   ffn.W_gate, W_up     -> mlp.gate_proj, up_proj .weight (F, C);  ffn.W_down -> mlp.down_proj.weight (C, F)
//   norm_f               -> model.norm.weight
// The decoder's RoPE is rotate_half on each head's q and k with θ_i = rope_theta^(−2i/hs), which
// is what LlamaAttention applies, so the checkpoint computes the same function there.
#include <string>
#include <vector>

#include "decoder.h"
#include "safetensors_writer.h"

namespace attn::train {

// "" if a Llama checkpoint can hold c; else which part it cannot (positions, norm, ffn, attention).
std::string llama_incompatibility(const decoder::DecoderConfig& c);

struct LlamaTensors {
  std::vector<std::vector<double>> storage;  // the transposed copies the tensors point into
  std::vector<NamedTensor> tensors;          // in the order above
};
LlamaTensors llama_tensors(const decoder::Decoder& m);

// config.json (two-space indent, "\n" at the end); torch_dtype "float32" or "float64";
// extra: attnlab's own keys, added at the end (a JSON object's text, or "").
std::string llama_config_json(const decoder::DecoderConfig& c, bool f64, const std::string& extra);

// ---- MLA as a DeepSeek-V2 checkpoint ------------------------------------------------------------
// An MLA variant with RoPE positions (R > 0), RMSNorm and SwiGLU, in transformers' DeepseekV2 names
// (dense layers only, no query latent: q_lora_rank null, as DeepSeek-V2-Lite), nn.Linear (out, in):
//   wte -> model.embed_tokens.weight (tied);  norm_1, norm_2, norm_f as for Llama;  ffn as for Llama
//   [W_Q,i | W_QR,i] per head i             -> self_attn.q_proj.weight (H·(hs+R), C)
//   [W_DKV | W_KR]                          -> self_attn.kv_a_proj_with_mqa.weight (Dc+R, C)
//   [W_UK,i | W_UV,i] per head i            -> self_attn.kv_b_proj.weight (H·(hs+hs), Dc)
//   W_O                                     -> self_attn.o_proj.weight (C, H·hs)
// Two differences from DeepSeek-V2, both stated in config.json (attnlab_mla):
//   * no kv_a_layernorm: the trained latent c_KV = h W_DKV is not RMS-normalised (the `mla` lesson's
//     math), so the file has no such tensor;
//   * RoPE: the decoder rotates W_QR's and W_KR's columns in rotate_half pairs (i, i + R/2); DeepSeek's
//     weights pair consecutive columns (2i, 2i + 1) (its reference code multiplies complex pairs and
//     transformers' DeepseekV2 reorders them to rotate_half before rotating). The columns are written
//     interleaved (half column i -> 2i, i + R/2 -> 2i + 1), so a reader that rotates consecutive pairs
//     (rope.h, the `mla` lesson) computes the trained function.

// "" if a DeepSeek-V2 checkpoint can hold c; else the part that differs (positions, norm, ffn, attention).
std::string deepseek_incompatibility(const decoder::DecoderConfig& c);
LlamaTensors deepseek_tensors(const decoder::Decoder& m);
std::string deepseek_config_json(const decoder::DecoderConfig& c, bool f64, const std::string& extra);

}  // namespace attn::train
