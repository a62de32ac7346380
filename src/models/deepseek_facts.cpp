#include "deepseek_facts.h"

#include "models.h"

namespace attn {

DeepSeekCacheFacts deepseek_cache_facts() {
  ModelConfig v3 = load_preset("deepseek-v3"), v2 = load_preset("deepseek-v2"), b67 = load_preset("deepseek-llm-67b");
  Dtype bf16{"bf16", 16}, six{"6-bit", 6};
  DeepSeekCacheFacts f{};
  f.v3_d_model = v3.d;
  f.v3_d_cq = v3.d_cq;
  f.v3_d_c = v3.d_c;
  f.v3_d_R = v3.d_R;
  f.v3_heads = v3.n_h;
  f.v3_head_dim = v3.d_nope;
  f.v3_mla = kv_elements_per_layer(v3);
  f.v3_mha = 2 * v3.n_h * v3.d_nope;
  f.v3_gqa8 = 2 * 8 * v3.d_nope;
  f.v2_token = kv_elements_per_layer(v2) * v2.l;
  f.b67_token = kv_elements_per_layer(b67) * b67.l;
  f.v2_bytes_bf16 = bytes_of(f.v2_token, bf16, "kv");
  f.v2_bytes_6bit = bytes_of(f.v2_token, six, "kv");
  f.b67_bytes_bf16 = bytes_of(f.b67_token, bf16, "kv");
  return f;
}

}  // namespace attn
