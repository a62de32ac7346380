#pragma once
// A run on a real checkpoint (--weights PATH with --text "…" or --token-ids 1,2,3): the model,
// the token ids and their labels, validated once for every lesson and command that takes them.
// Errors name the flags.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bpe.h"
#include "deepseek.h"
#include "gpt2.h"
#include "llama.h"

namespace attn {

struct RealInput {
  std::string folder;                 // the resolved checkpoint folder
  std::unique_ptr<Gpt2Model> model;   // a GPT-2 checkpoint (model_type "gpt2"), or
  std::unique_ptr<LlamaModel> llama;  // a Llama-family one (llama, mistral, qwen2), or
  std::unique_ptr<MlaModel> mla;      // an MLA one (deepseek_v2, as attnlab trains it): exactly one is set
  std::vector<std::int64_t> ids;      // the tokens
  bool from_text = false;             // cut from --text by the tokenizer (else --token-ids as given)
  // No --text and no --token-ids on a shipped model (--weights text-en): the model's own sample
  // sentence (data/trained/samples.json), which the run says it used (note_sample_text).
  std::optional<std::string> sample;
  std::vector<std::string> labels;    // as shown: the tokenizer's pieces, or "#id" for --token-ids without one
  std::shared_ptr<const Tokenizer> tokenizer;  // the checkpoint's (BPE or characters), when it has one
  std::size_t tokens_given = 0;       // the tokens of the input before a cut to fit (cut_to_fit); 0: not cut

  // A token as shown (generated tokens too): the tokenizer's piece, or "#id".
  std::string label(std::int64_t id) const { return tokenizer ? tokenizer->label(id) : "#" + std::to_string(id); }
  // A token's bytes as the text holds them ("" without a tokenizer).
  std::string text_of(std::int64_t id) const { return tokenizer ? tokenizer->decode_bytes(id) : ""; }

  const ModelConfig& config() const { return llama ? llama->config() : mla ? mla->config() : model->config(); }
  // The most tokens the model takes (GPT-2's learned positions, a Llama's max_position_embeddings
  // or sliding window); 0: no limit from the config.
  std::uint64_t max_positions() const {
    return llama ? llama->max_tokens() : mla ? mla->max_tokens() : model->config().positions;
  }
};

// Every layer's attention weights (H, T, T) on `ids`, whichever family the model is.
std::vector<Tensor> real_attention(const RealInput& in, const std::vector<std::int64_t>& ids);

// max_tokens: the caller's work cap (a lesson's heatmaps, the heads command's L·H·T² numbers).
// allow_mla: the caller runs MLA checkpoints too (heads, generate, lesson mla); others refuse one.
// Neither text nor token_ids: a shipped model runs on its sample sentence (is_sample: this is that run).
// cut_to_fit: a text longer than the model's positions or max_tokens is cut to its first tokens that
// fit (tokens_given says how many there were) instead of refused.
RealInput load_real_input(const std::string& weights, const std::optional<std::string>& text,
                          const std::optional<std::string>& token_ids, std::size_t max_tokens, bool allow_mla = false,
                          bool is_sample = false, bool cut_to_fit = false);
// --layer N and --head N count from 1, as everything attnlab prints does (the chapter's way);
// the tensor names count from 0, so layer 1 holds h.0.… (model.layers.0.…). Returns the tensor
// index N − 1 (0 when the flag is not given); N outside 1 … count is refused (exit 2, naming the flag).
std::size_t checkpoint_layer(const std::optional<std::int64_t>& flag, std::size_t layers);
std::size_t checkpoint_head(const std::optional<std::int64_t>& flag, std::size_t heads);

// The largest T whose `count` tensors of (T, T) per head per layer stay under `budget` numbers.
std::size_t tokens_within(std::size_t layers, std::size_t heads, std::size_t count, std::size_t budget);

}  // namespace attn

namespace attn {
// The header note of a run on a shipped model's sample sentence (common.note_sample_text).
template <class R>
void note_sample_text(R& r, const RealInput& in) {
  if (in.sample) r.header_note("note_sample_text", {{"text", *in.sample}});
}
}  // namespace attn
