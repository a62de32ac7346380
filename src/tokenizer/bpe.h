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
#include <string>
#include <unordered_map>
#include <vector>

namespace attn {

class Gpt2Tokenizer {
 public:
  // vocab.json and merges.txt in `folder`; missing: UsageError (tokenizer.err.missing).
  static Gpt2Tokenizer from_folder(const std::string& folder);
  Gpt2Tokenizer(const std::string& vocab_json, const std::string& merges_txt, const std::string& where);

  std::vector<std::int64_t> encode(const std::string& text) const;
  // A token as a learner reads it: its bytes as UTF-8, a leading space as "␣", newline "↵", tab "⇥";
  // bytes that are not whole UTF-8 characters (half of a Chinese character) as <e4>.
  std::string label(std::int64_t id) const;
  std::string decode_bytes(std::int64_t id) const;  // the raw bytes of a token
  std::size_t vocab_size() const { return id_to_token_.size(); }

 private:
  std::vector<std::string> bpe(const std::string& piece) const;  // piece already byte-mapped
  std::unordered_map<std::string, std::int64_t> vocab_;
  std::vector<std::string> id_to_token_;  // "" for ids the vocab skips
  std::map<std::pair<std::string, std::string>, std::size_t> ranks_;
  std::string where_;
};

// The pre-tokenizer alone: the pieces GPT-2's pattern cuts `text` into.
std::vector<std::string> gpt2_pretokenize(const std::string& text);

}  // namespace attn
