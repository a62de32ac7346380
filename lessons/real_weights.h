#pragma once
// A run on a real checkpoint (--weights PATH with --text "…" or --token-ids 1,2,3): the model,
// the token ids and their labels, validated once for every lesson and command that takes them.
// Errors name the flags.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpt2.h"

namespace attn {

struct RealInput {
  std::string folder;                 // the resolved checkpoint folder
  std::unique_ptr<Gpt2Model> model;
  std::vector<std::int64_t> ids;      // the tokens
  std::vector<std::string> labels;    // as shown: the tokenizer's pieces, or "#id" for --token-ids without one
};

// max_tokens: the caller's work cap (a lesson's heatmaps, the heads command's L·H·T² numbers).
RealInput load_real_input(const std::string& weights, const std::optional<std::string>& text,
                          const std::optional<std::string>& token_ids, std::size_t max_tokens);
// The largest T whose `count` tensors of (T, T) per head per layer stay under `budget` numbers.
std::size_t tokens_within(std::size_t layers, std::size_t heads, std::size_t count, std::size_t budget);

}  // namespace attn
