#pragma once
// Model configuration: presets, Hugging Face config.json import, parameter and KV-cache
// arithmetic. Knows nothing of terminals or the CLI.
//
// Legend (the DeepSeek-V2 paper's names, Table 1):
//   d    = d_model (hidden_size)            l   = layers (num_hidden_layers)
//   n_h  = query heads                       n_g = KV heads (groups); MHA n_g = n_h, MQA n_g = 1
//   d_h  = per-head dimension (head_dim)     d_ff = FFN inner size (intermediate_size)
//   d_c  = MLA latent KV size (kv_lora_rank) d_R = MLA decoupled RoPE key size (qk_rope_head_dim)
//   d_cq = MLA query latent (q_lora_rank)    V   = vocabulary
// KV cache per token (elements): MHA 2·n_h·d_h·l, GQA 2·n_g·d_h·l, MQA 2·d_h·l, MLA (d_c + d_R)·l.
//
// All counts are unsigned 64-bit and computed with checked arithmetic: a size that would
// overflow is a UsageError, never a wrapped number.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "message.h"

namespace attn {

using u64 = std::uint64_t;

// A count from a config used as a size. On a 32-bit target (the book's WebAssembly core, which
// reads no checkpoint) a count past SIZE_MAX throws rather than wrap; on 64 bits it is the value.
inline std::size_t as_size(u64 v) {
  if (v > SIZE_MAX) throw std::length_error("a model dimension does not fit this build's size_t");
  return static_cast<std::size_t>(v);
}

// One model, as the arithmetic needs it. Presets and config.json files map onto it one to one.
struct ModelConfig {
  std::string name;        // preset name, or the file it was read from
  std::string model_type;  // Hugging Face model_type ("llama", "deepseek_v3", ...; "custom" for flags)
  std::string title;       // the model's name, e.g. "Llama 3 8B" (shown with words from calc.preset.NAME.title)
  Msg title_msg;           // for explicit dims: calc.title.dims or calc.title.dims_heads

  u64 vocab = 0;           // V
  u64 d = 0;               // d_model
  u64 l = 0;               // layers
  u64 n_h = 0;             // query heads
  u64 n_g = 0;             // KV heads
  u64 d_h = 0;             // head dim
  u64 d_ff = 0;            // dense FFN inner size
  bool ffn = true;         // false: attention-only blocks, no FFN and one norm (attnlab train without --mlp)
  u64 positions = 0;       // learned position embeddings (GPT-2 wpe); 0 = none (RoPE, ALiBi)

  bool gated_ffn = true;   // SwiGLU/GeGLU: W_gate, W_up, W_down; else W_1, W_2 (GPT-2, Falcon)
  bool qkv_bias = false;   // biases on W_Q, W_K, W_V (GPT-2, Qwen2)
  bool o_bias = false;     // bias on W_O (GPT-2)
  bool mlp_bias = false;   // biases on the FFN matrices (GPT-2)
  bool norm_bias = false;  // LayerNorm (weight + bias) instead of RMSNorm (weight only)
  bool qk_norm = false;    // per-head RMSNorm on q and k (Qwen3): d_h + d_h
  u64 norms_per_layer = 2; // 1 for Falcon's parallel block, 4 for Gemma 2
  bool tied_embeddings = false;
  bool final_norm = true;  // a norm before the output head (ChatGLM: post_layer_norm)

  // Sliding-window attention: sliding[i] says whether layer i holds at most `window` tokens.
  // With `chunked` (Llama 4's chunked local attention) the window is a chunk instead: a token
  // attends only to the tokens of its own block of `window`, so such a layer also caches at most
  // `window` tokens (the current chunk) -- the same bound, a different rule.
  u64 window = 0;
  std::vector<bool> sliding;
  bool chunked = false;

  // MLA (DeepSeek-V2/V3): K and V are cached as one latent of d_c plus a shared RoPE key of d_R.
  bool mla = false;
  u64 d_cq = 0;            // q_lora_rank; 0 = W_Q straight from d (DeepSeek-V2-Lite)
  u64 d_c = 0;             // kv_lora_rank
  u64 d_nope = 0;          // qk_nope_head_dim
  u64 d_R = 0;             // qk_rope_head_dim
  u64 d_v = 0;             // v_head_dim
  bool mla_kv_norm = true; // kv_a_layernorm on the latent; false in attnlab's trained MLA (attnlab_mla)

  // MoE (DeepSeekMoE): routed experts, shared experts, a router; the first layers stay dense.
  u64 n_routed = 0;        // 0 = dense model
  u64 n_shared = 0;
  u64 top_k = 0;           // routed experts per token
  u64 moe_d_ff = 0;        // inner size of one expert
  u64 first_dense = 0;     // first_k_dense_replace
  u64 moe_every = 1;       // moe_layer_freq
  u64 moe_phase = 0;       // layer i is MoE when i >= first_dense and i % moe_every == moe_phase
                           // (DeepSeek 0; Llama 4 interleave_moe_layer_step - 1)
  bool router_bias = false;// e_score_correction_bias (DeepSeek-V3, topk_method noaux_tc)
  u64 mtp_layers = 0;      // DeepSeek-V3's multi-token-prediction modules (not in the total)

  // From the preset's "_attnlab" block (empty for files and flags). The preset's title and note
  // are words, so they live in catalogs/calc (calc.preset.NAME.title, calc.preset.NAME.note).
  u64 official_total = 0;
  std::string source;
  bool preset = false;
};

enum class AttnKind { MHA, GQA, MQA, MLA };
AttnKind attn_kind(const ModelConfig& m);
const char* attn_kind_name(AttnKind k);  // "MHA", "GQA", "MQA", "MLA"
bool is_moe_layer(const ModelConfig& m, u64 layer);

// Checked arithmetic: `what` names the quantity in the error message: "params", "kv" or
// "weights" (worded by the catalog, calc.err.overflow_mul), or a config key / flag shown as it is.
u64 mul(u64 a, u64 b, std::string_view what);
u64 add(u64 a, u64 b, std::string_view what);

// ---- validation (one place) ----------------------------------------------------------
// Checks sizes and consistency; errors name `where` (a file, "--model NAME" or "flags")
// and the key, in config.json terms when `hf_keys`, else as command-line flags.
void validate(const ModelConfig& m, const std::string& where, bool hf_keys);

// ---- presets and config.json ---------------------------------------------------------
std::vector<std::string> preset_names();                 // sorted
ModelConfig load_preset(const std::string& name);        // unknown: UsageError listing presets
// Reads the text of a config.json; `where` (the file name) prefixes every error.
ModelConfig parse_hf_config(std::string_view text, const std::string& where);
ModelConfig load_config_file(const std::string& path);
const std::vector<std::string>& supported_model_types();

// Explicit dims from the command line: a GPT-2-style block by default (LayerNorm, biases,
// W_1/W_2 with d_ff = 4·d), or a Llama-style one with ffn = "swiglu" (RMSNorm, no biases).
struct ModelDims {
  u64 d_model = 0, layers = 1, heads = 0, kv_heads = 0, head_dim = 0, d_ff = 0, vocab = 0;
  std::string ffn = "gelu";  // gelu | swiglu
  bool no_bias = false;      // params --no-bias: no bias vector on any matrix (the chapter's count)
};
ModelConfig model_from_dims(const ModelDims& dims);  // errors name the flags
// Exactly one of a preset, a config.json or explicit dims (d_model > 0).
ModelConfig select_model(const std::string& preset, const std::string& config_path, const ModelDims& dims);

// ---- parameter counting --------------------------------------------------------------
struct ParamItem {
  std::string name;   // "W_Q", "b_Q", "routed experts", ...: the JSON key (English, an interface)
  std::string shape;  // "[768, 768]" or a formula
  u64 count = 0;
  Msg label = {};     // the words shown for a descriptive name (calc.item.*); empty key: show name
};

// One kind of layer (dense or MoE) and how many of the model's layers are of that kind.
struct LayerParams {
  bool moe = false;
  u64 layers = 0;
  std::vector<ParamItem> attention, ffn, norms;
  u64 attention_total = 0, ffn_total = 0, norm_total = 0, total = 0;
  u64 ffn_active = 0;  // FFN parameters one token passes through (MoE: top_k + shared + router)
};

struct ParamReport {
  std::vector<ParamItem> embeddings;  // token embedding, learned positions
  std::vector<LayerParams> layers;    // dense layers first, then MoE layers
  std::vector<ParamItem> head;        // final norm, lm_head (0 when tied)
  u64 embedding_total = 0, head_total = 0;
  u64 total = 0;       // everything, once (tied weights once)
  u64 active = 0;      // per token (== total for a dense model)
  u64 mtp = 0;         // DeepSeek-V3 MTP module(s), not in `total`
};

ParamReport count_params(const ModelConfig& m);
// The FFN parameters of every layer together (each kind × its layer count): GPT-2 small 56,669,184.
u64 ffn_params_all_layers(const ParamReport& r);

// ---- KV cache ------------------------------------------------------------------------
struct Dtype {
  std::string name;  // fp32 fp16 bf16 fp8 int8 int4
  u64 bits = 16;
};
Dtype parse_dtype(const std::string& s, const std::string& flag);  // UsageError naming flag
std::string bytes_per_element_text(const Dtype& t);                  // "2", "0.5"
u64 bytes_of(u64 elements, const Dtype& t, std::string_view what);  // rounded up to whole bytes

// Elements one token adds to one layer's cache: 2·n_g·d_h, or d_c + d_R for MLA.
u64 kv_elements_per_layer(const ModelConfig& m);
// The same on one GPU under tensor parallelism of `tp` ranks: KV heads split across ranks,
// one head per rank (replicated) once tp exceeds n_g; MLA's latent replicated on every rank.
u64 kv_elements_per_layer_per_gpu(const ModelConfig& m, u64 tp);
// Checks tp against the model (divides n_h; divides or is a multiple of n_g).
void validate_tp(const ModelConfig& m, u64 tp);

struct KvUsage {
  u64 elements_per_token = 0;  // all layers, one token
  u64 bytes_per_token = 0;
  u64 elements_total = 0;      // batch x seq_len, sliding layers capped at the window
  u64 total_bytes = 0;
  u64 per_gpu_bytes = 0;       // the same on one of tp GPUs
  u64 per_gpu_bytes_per_token = 0;
  u64 sliding_layers = 0;
};
KvUsage kv_usage(const ModelConfig& m, u64 seq_len, u64 batch, const Dtype& t, u64 tp);

// What-ifs on the model's own dims (DeepSeek-V2 paper, Table 1).
struct KvVariant {
  std::string name;        // "mha" "gqa" "mqa" "mla"
  u64 kv_heads = 0;        // n_g (0 for MLA)
  u64 vectors_per_layer = 0;  // cached vectors per token per layer: 2·n_g (MLA: latent + RoPE key = 2)
  u64 elements_per_layer = 0;
  u64 elements_per_token = 0;
  u64 bytes_per_token = 0;
  u64 total_bytes = 0;     // batch x seq_len, no sliding windows (a like-for-like comparison)
  u64 per_gpu_elements_per_layer = 0;  // on one of tp GPUs, the model's own rules (kv_elements_per_layer_per_gpu)
  u64 per_gpu_bytes = 0;   // total_bytes on one of tp GPUs
  double ratio_to_mha = 0;
  bool actual = false;     // the model's own kind
};
struct WhatIfDims {
  u64 n_h = 0, d_h = 0, l = 0;
  u64 n_g = 0;             // the GQA row's groups; 0 = no GQA row (no divisor of n_h fits)
  u64 d_c = 0, d_R = 0;    // MLA row
  bool mla_from_model = false;
  // MLA models: a literal MHA on the model's own heads caches K of d_nope + d_R and V of d_v per
  // head (DeepSeek-V3: 192 and 128), beside the paper's convention of d_h = d_nope for both.
  u64 k_full = 0, v_full = 0;
};
// gqa_kv_heads: 0 = the model's own n_g when it is GQA, else 8 (or the largest divisor of n_h
// below it); latent/rope 0 = the model's own (MLA) or DeepSeek-V2's rule d_c = 4·d_h, d_R = d_h/2.
WhatIfDims whatif_dims(const ModelConfig& m, u64 gqa_kv_heads, u64 latent, u64 rope);
// Rows mha, gqa (if any), mqa, mla; for an MLA model also "mha_full" (k_full/v_full) after mha.
// Each row is also worked out per GPU under tp ranks by the same rules as the model's own cache:
// KV heads split across ranks, one replicated head per rank once tp exceeds them (a share that
// does not divide evenly is rounded up), MLA's latent replicated on every rank.
std::vector<KvVariant> kv_variants(const ModelConfig& m, const WhatIfDims& w, u64 seq_len,
                                   u64 batch, const Dtype& t, u64 tp = 1);

// Parses "80GiB", "512MiB", "1.5TiB", "80GB" (decimal), "1000000" (bytes).
u64 parse_size(const std::string& s, const std::string& flag);

}  // namespace attn
