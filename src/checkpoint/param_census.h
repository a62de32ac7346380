#pragma once
// attnlab params --weights: a checkpoint's parameters counted from its safetensors headers alone
// (shape products; no weight is read), grouped as `attnlab params` groups the formula's count
// (models.h count_params), so the two can be set side by side group by group.
//
// Groups by tensor name, for the GPT-2 and Llama-family layouts:
//   embeddings  wte, wpe, model.embed_tokens
//   attention   h.N.attn.c_attn / c_proj, model.layers.N.self_attn.*
//   mlp         h.N.mlp.*, model.layers.N.mlp.*
//   norms       h.N.ln_1 / ln_2, model.layers.N.*layernorm*
//   head        ln_f, model.norm, lm_head
//   buffers     not parameters: GPT-2's causal-mask h.N.attn.bias / masked_bias, rotary_emb.inv_freq
//   other       any other name (listed, so that nothing is silently dropped)
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models.h"
#include "safetensors.h"

namespace attn {

enum class ParamGroup { Embeddings, Attention, Mlp, Norms, Head, Buffers, Other };
constexpr std::size_t kParamGroups = 7;
const char* param_group_name(ParamGroup g);  // "embeddings", "attention", "mlp", "norms", "head", "buffers", "other"
ParamGroup param_group_of(const std::string& tensor);

struct GroupCount {
  u64 tensors = 0;
  u64 params = 0;
};

struct CheckpointCensus {
  std::array<GroupCount, kParamGroups> files;  // by ParamGroup, from the headers
  std::array<u64, 5> formula{};                // embeddings … head, from config.json (count_params)
  u64 files_total = 0;                         // every group but buffers
  u64 formula_total = 0;
  std::map<std::string, u64> dtype_params;     // "BF16" -> parameters stored in it (buffers excluded)
  std::map<std::string, u64> dtype_bytes;
  std::vector<std::string> other;              // names of the "other" tensors
  std::vector<std::string> buffers;            // names of the buffers
  std::size_t files_count = 0;
};

// Counts `ck` and sets it beside the formula for `m`.
CheckpointCensus census_checkpoint(const Checkpoint& ck, const ModelConfig& m);

}  // namespace attn
