#pragma once
// A character-level vocabulary built from a training text, written as a Hugging Face
// tokenizer.json that the `tokenizers` library loads unchanged, and the tokenizer that reads it:
// one token per character (Unicode code point), a character outside the vocabulary is <unk>.
//
// The tokenizer.json (char_tokenizer_json), keys in this order, two-space indent, "\n" at the end:
//   {"version": "1.0", "truncation": null, "padding": null,
//    "added_tokens": [{"id": 0, "content": "<unk>", "single_word": false, "lstrip": false,
//                      "rstrip": false, "normalized": false, "special": true}],
//    "normalizer": null,                                  (the text is already NFC)
//    "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "[\\s\\S]"}, "behavior": "Isolated",
//                      "invert": false},                  (every character its own piece, newline too)
//    "post_processor": null,
//    "decoder": {"type": "Fuse"},                         (decoding concatenates the characters)
//    "model": {"type": "WordLevel", "vocab": {"<unk>": 0, "e": 1, …}, "unk_token": "<unk>"}}
// The vocab is written in id order. Strings are written as serde_json writes them: non-ASCII as
// UTF-8 (not \u escapes); '"' and '\' escaped; control characters U+0000…U+001F as \b \t \n \f \r
// or \u00XX (lowercase hex); nothing else escaped. Same vocabulary, same bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer.h"

namespace attn {

struct TokenizerJsonReader;  // tokenizer_json.cpp

inline constexpr const char* kUnkToken = "<unk>";
// The Split pattern: any character, newline included (Oniguruma, as `tokenizers` compiles it, and
// PCRE2 alike; "." would leave newlines out).
inline constexpr const char* kCharSplitPattern = R"([\s\S])";

struct CharVocab {
  // tokens[id]: "<unk>" (id 0), then each character kept, as UTF-8, by descending count, ties by
  // ascending code point.
  std::vector<std::string> tokens;
  // counts[id]: how often the character occurs in the text; counts[0]: how many characters of the
  // text were left out (seen fewer than min_count times), i.e. how often <unk> stands in the text.
  std::vector<std::uint64_t> counts;
};

// The characters of `utf8_text` seen at least `min_count` times (0 counts as 1). Text that is not
// UTF-8: UsageError checkpoint.err.vocab_utf8 (at: its first bad byte).
CharVocab build_char_vocab(const std::string& utf8_text, std::size_t min_count);

// The vocabulary as tokenizer.json (see the top of this file).
std::string char_tokenizer_json(const CharVocab& vocab);

class CharTokenizer : public Tokenizer {
 public:
  // What char_tokenizer_json(vocab) reads back as, without the file.
  explicit CharTokenizer(const CharVocab& vocab);
  // A tokenizer.json with model WordLevel (see tokenizer.h, read_tokenizer_json): the vocab's keys
  // one character each (the unk token aside), ids 0…N-1 each once, unk_token one of them; the
  // pre-tokenizer the Split above; the normalizer none or NFC; added tokens (matched in the text
  // before it is split, longest first, as `tokenizers` does) tokens of the vocab with their ids,
  // single_word, lstrip and rstrip false. The decoder and post_processor are not read (encode adds
  // no special token). Anything else: UsageError checkpoint.err.tokenizer_json naming file and key.
  static CharTokenizer from_tokenizer_json(const std::string& json, const std::string& file);

  // One id per character (per added token found in the text); a character outside the vocabulary
  // is unk_id(). Not UTF-8: UsageError checkpoint.err.utf8.
  std::vector<std::int64_t> encode(const std::string& utf8) const override;
  // The token's string: a character, or the unk token itself; "" outside the vocabulary.
  std::string decode(std::int64_t id) const;
  // The ids' tokens concatenated, as the Fuse decoder does (<unk> written as "<unk>").
  std::string decode(const std::vector<std::int64_t>& ids) const;
  std::string decode_bytes(std::int64_t id) const override { return decode(id); }
  std::string label(std::int64_t id) const override { return token_label(decode(id)); }
  std::size_t vocab_size() const override { return tokens_.size(); }
  std::int64_t unk_id() const { return unk_id_; }
  const std::string& unk_token() const { return tokens_[static_cast<std::size_t>(unk_id_)]; }

 private:
  CharTokenizer() = default;
  friend struct TokenizerJsonReader;
  void index_tokens();  // chars_ from tokens_ (every token but the unk token is one character)
  std::vector<std::int64_t> encode_piece(std::string_view piece, std::size_t offset) const;

  std::vector<std::string> tokens_;                 // id -> token
  std::unordered_map<char32_t, std::int64_t> chars_;  // character -> id
  std::int64_t unk_id_ = 0;
  // Added tokens: content -> id, longest content first (the text is searched for them first).
  std::vector<std::pair<std::string, std::int64_t>> added_;
  bool nfc_ = false;  // normalizer NFC: each piece put in NFC before it is split
};

}  // namespace attn
