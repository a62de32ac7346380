// Counting a checkpoint's parameters from its headers. See param_census.h.
#include "param_census.h"

namespace attn {

namespace {

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
bool ends(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

const char* param_group_name(ParamGroup g) {
  static const char* const names[] = {"embeddings", "attention", "mlp", "norms", "head", "buffers", "other"};
  return names[static_cast<std::size_t>(g)];
}

ParamGroup param_group_of(const std::string& n) {
  if (ends(n, ".attn.bias") || ends(n, ".attn.masked_bias") || has(n, "rotary_emb.")) return ParamGroup::Buffers;
  if (has(n, "embed_tokens.") || ends(n, "wte.weight") || ends(n, "wpe.weight")) return ParamGroup::Embeddings;
  if (n == "lm_head.weight" || n == "model.norm.weight" || has(n, "ln_f.")) return ParamGroup::Head;
  if (has(n, ".self_attn.") || has(n, ".attn.")) return ParamGroup::Attention;
  if (has(n, ".mlp.")) return ParamGroup::Mlp;
  if (has(n, "layernorm.") || has(n, ".ln_1.") || has(n, ".ln_2.")) return ParamGroup::Norms;
  return ParamGroup::Other;
}

CheckpointCensus census_checkpoint(const Checkpoint& ck, const ModelConfig& m) {
  CheckpointCensus c;
  c.files_count = ck.file_count();
  for (const TensorEntry* e : ck.all()) {
    u64 n = 1;
    for (std::size_t d : e->shape) n = mul(n, d, "params");
    ParamGroup g = param_group_of(e->name);
    GroupCount& gc = c.files[static_cast<std::size_t>(g)];
    gc.tensors += 1;
    gc.params = add(gc.params, n, "params");
    if (g == ParamGroup::Buffers) {
      c.buffers.push_back(e->name);
      continue;
    }
    if (g == ParamGroup::Other) c.other.push_back(e->name);
    c.files_total = add(c.files_total, n, "params");
    c.dtype_params[dtype_name(e->dtype)] += n;
    c.dtype_bytes[dtype_name(e->dtype)] += e->end - e->begin;
  }
  ParamReport r = count_params(m);
  c.formula[0] = r.embedding_total;
  for (const LayerParams& lp : r.layers) {
    c.formula[1] = add(c.formula[1], mul(lp.attention_total, lp.layers, "params"), "params");
    c.formula[2] = add(c.formula[2], mul(lp.ffn_total, lp.layers, "params"), "params");
    c.formula[3] = add(c.formula[3], mul(lp.norm_total, lp.layers, "params"), "params");
  }
  c.formula[4] = r.head_total;
  c.formula_total = r.total;
  return c;
}

}  // namespace attn
