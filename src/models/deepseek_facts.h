#pragma once
// The DeepSeek cache figures the conversation quotes, computed from the bundled presets.
#include <cstdint>

namespace attn {

// The conversation's figures, computed from the bundled presets (models.h): deepseek-v3 for the
// per-layer cache, deepseek-v2 and deepseek-llm-67b for the DeepSeek-V2 paper's "93.3% less".
struct DeepSeekCacheFacts {
  std::uint64_t v3_d_model, v3_d_cq;                    // 7168, 1536
  std::uint64_t v3_d_c, v3_d_R, v3_heads, v3_head_dim;  // 512, 64, 128, 128
  std::uint64_t v3_mla;       // per token per layer: d_c + d_R
  std::uint64_t v3_mha;       // 2·n_h·d_h with d_h = qk_nope_head_dim = v_head_dim
  std::uint64_t v3_gqa8;      // 2·8·d_h: a Llama-style 8-KV-head GQA on the same heads
  std::uint64_t v2_token;     // DeepSeek-V2, per token over all layers: (d_c + d_R)·l
  std::uint64_t b67_token;    // DeepSeek 67B (GQA), per token over all layers: 2·n_g·d_h·l
  std::uint64_t v2_bytes_bf16, v2_bytes_6bit, b67_bytes_bf16;  // those, in bytes
};
DeepSeekCacheFacts deepseek_cache_facts();

}  // namespace attn
