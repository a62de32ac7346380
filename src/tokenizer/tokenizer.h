#pragma once
// What the checkpoint commands (heads, generate, lesson … --weights) need of a checkpoint's
// tokenizer, whichever kind its folder holds:
//   Gpt2Tokenizer (bpe.h)        byte-level BPE: vocab.json + merges.txt, or a tokenizer.json with
//                                model BPE (GPT-2, Llama 3, Qwen2)
//   CharTokenizer (char_vocab.h) one token per character: a tokenizer.json with model WordLevel
//                                and a Split of every character (what `attnlab train --task text`
//                                writes)
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // The ids of UTF-8 text; text that is not UTF-8: UsageError checkpoint.err.utf8 (at: its byte).
  virtual std::vector<std::int64_t> encode(const std::string& text) const = 0;
  // A token as a learner reads it (token_label of its bytes); an id outside the vocabulary: "<>".
  virtual std::string label(std::int64_t id) const = 0;
  // The token's bytes as the text holds them ("" for an id outside the vocabulary).
  virtual std::string decode_bytes(std::int64_t id) const = 0;
  virtual std::size_t vocab_size() const = 0;

 protected:
  Tokenizer() = default;
  Tokenizer(const Tokenizer&) = default;
  Tokenizer(Tokenizer&&) = default;
  Tokenizer& operator=(const Tokenizer&) = default;
  Tokenizer& operator=(Tokenizer&&) = default;
};

// The tokenizer of a checkpoint folder: vocab.json + merges.txt when both are there, else its
// tokenizer.json, read by its model.type (read_tokenizer_json). Neither: UsageError
// checkpoint.err.tokenizer_missing. (Gpt2Tokenizer::folder_has_tokenizer says whether one is there.)
std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& folder);

// A tokenizer.json's text (`file` names it in errors): model.type "WordLevel" is a CharTokenizer,
// "BPE" (or no type, as older files write it) a Gpt2Tokenizer; anything else, and every field
// either reader refuses, is one UsageError checkpoint.err.tokenizer_json naming the file and the key.
std::shared_ptr<const Tokenizer> read_tokenizer_json(const std::string& json, const std::string& file);

// Bytes as a learner reads them: UTF-8 characters as themselves, a space as "␣", newline "↵", tab
// "⇥", other control characters (C0, DEL, C1) and bytes that are not whole UTF-8 characters (half
// of a Chinese character) as <e4>; nothing as "<>".
std::string token_label(const std::string& bytes);

}  // namespace attn
