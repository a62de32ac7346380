#pragma once
// GPT-2's byte-level BPE, from a checkpoint's vocab.json (token -> id) and merges.txt (one merge
// "a b" per line, best first, after a "#version" line). As OpenAI's encoder.py does it:
//   1. split the text with the pre-tokenizer pattern (Unicode letter / number classes, through
//      PCRE2 with UTF and UCP), 2. map each piece's UTF-8 bytes to printable characters
//      (bytes_to_unicode: 0x20 -> "Ġ", …), 3. merge adjacent symbols by rank until none merges,
//      4. look each symbol up in vocab.json.
// A malformed vocab.json or merges.txt, or text that is not UTF-8, is a UsageError naming it.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer.h"

namespace attn {

struct Regex;  // a compiled pre-tokenizer pattern (pattern.h)
struct TokenizerJsonReader;  // tokenizer_json.cpp

class Gpt2Tokenizer : public Tokenizer {
 public:
  // vocab.json and merges.txt in `folder`, or else its tokenizer.json; missing: UsageError
  // (checkpoint.err.tokenizer_missing).
  static Gpt2Tokenizer from_folder(const std::string& folder);
  static bool folder_has_tokenizer(const std::string& folder);
  // A Hugging Face tokenizer.json (tokenizer_json.cpp): model BPE over bytes, the pre-tokenizer
  // ByteLevel (GPT-2's pattern, or none with use_regex false), or a Sequence of Split (its Regex,
  // behavior Isolated) and ByteLevel, as Llama 3 and Qwen2 write it; merges as "a b" or ["a", "b"];
  // ignore_merges; added tokens kept for their labels (the text is not searched for them); the
  // normalizer none or NFC (nfc.h), applied to the text before the pre-tokenizer.
  // Anything else: one UsageError naming the file and the key (checkpoint.err.tokenizer_json).
  static Gpt2Tokenizer from_tokenizer_json(const std::string& json, const std::string& file);
  Gpt2Tokenizer(const std::string& vocab_json, const std::string& merges_txt, const std::string& where);

  std::vector<std::int64_t> encode(const std::string& text) const override;
  // A token as a learner reads it: its bytes as UTF-8, a leading space as "␣", newline "↵", tab "⇥";
  // bytes that are not whole UTF-8 characters (half of a Chinese character) as <e4> (token_label).
  std::string label(std::int64_t id) const override;
  std::string decode_bytes(std::int64_t id) const override;  // the raw bytes of a token
  std::size_t vocab_size() const override { return id_to_token_.size(); }

 private:
  std::vector<std::string> bpe(const std::string& piece) const;  // piece already byte-mapped
  std::unordered_map<std::string, std::int64_t> vocab_;
  std::vector<std::string> id_to_token_;  // "" for ids the vocab skips
  std::map<std::pair<std::string, std::string>, std::size_t> ranks_;
  std::string vocab_file_;            // named by errors
  // tokenizer.json only: the Split pattern (code == nullptr: no split), a space put in front of
  // the text (ByteLevel add_prefix_space), a piece found whole in the vocab taken as one token,
  // the text put in NFC first (normalizer NFC).
  std::shared_ptr<const Regex> split_;
  bool add_prefix_space_ = false, ignore_merges_ = false, nfc_ = false;
  Gpt2Tokenizer() = default;
  friend struct TokenizerJsonReader;
};

// The pre-tokenizer alone: the pieces GPT-2's pattern cuts `text` into.
std::vector<std::string> gpt2_pretokenize(const std::string& text);

}  // namespace attn
