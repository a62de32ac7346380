// The character vocabulary, its tokenizer.json and the tokenizer. See char_vocab.h (the reading of
// a tokenizer.json is in tokenizer_json.cpp).
#include "char_vocab.h"

#include <algorithm>
#include <stdexcept>

#include "errors.h"
#include "nfc.h"
#include "utf8.h"

namespace attn {

namespace {

// A JSON string as serde_json writes it (see char_vocab.h).
void put_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace

CharVocab build_char_vocab(const std::string& utf8_text, std::size_t min_count) {
  std::unordered_map<char32_t, std::uint64_t> seen;
  for (std::size_t i = 0; i < utf8_text.size();) {
    char32_t cp = 0;
    if (!next_utf8(utf8_text, i, cp)) throw UsageError("checkpoint.err.vocab_utf8", {{"at", static_cast<std::uint64_t>(i)}});
    ++seen[cp];
  }
  std::vector<std::pair<char32_t, std::uint64_t>> kept;
  std::uint64_t left_out = 0;
  for (const auto& [cp, n] : seen) {
    if (n >= std::max<std::size_t>(min_count, 1)) kept.emplace_back(cp, n);
    else left_out += n;
  }
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  CharVocab v;
  v.tokens.push_back(kUnkToken);
  v.counts.push_back(left_out);
  for (const auto& [cp, n] : kept) {
    std::string s;
    append_utf8(s, cp);
    v.tokens.push_back(std::move(s));
    v.counts.push_back(n);
  }
  return v;
}

std::string char_tokenizer_json(const CharVocab& vocab) {
  if (vocab.tokens.empty()) throw std::logic_error("char_tokenizer_json: a vocabulary without its unk token");
  const std::string& unk = vocab.tokens[0];
  std::string out = "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n  \"added_tokens\": [\n    {\n";
  out += "      \"id\": 0,\n      \"content\": ";
  put_string(out, unk);
  out += ",\n      \"single_word\": false,\n      \"lstrip\": false,\n      \"rstrip\": false,\n"
         "      \"normalized\": false,\n      \"special\": true\n    }\n  ],\n"
         "  \"normalizer\": null,\n"
         "  \"pre_tokenizer\": {\n    \"type\": \"Split\",\n    \"pattern\": {\n      \"Regex\": ";
  put_string(out, kCharSplitPattern);
  out += "\n    },\n    \"behavior\": \"Isolated\",\n    \"invert\": false\n  },\n"
         "  \"post_processor\": null,\n"
         "  \"decoder\": {\n    \"type\": \"Fuse\"\n  },\n"
         "  \"model\": {\n    \"type\": \"WordLevel\",\n    \"vocab\": {\n";
  for (std::size_t id = 0; id < vocab.tokens.size(); ++id) {
    out += "      ";
    put_string(out, vocab.tokens[id]);
    out += ": " + std::to_string(id) + (id + 1 < vocab.tokens.size() ? ",\n" : "\n");
  }
  out += "    },\n    \"unk_token\": ";
  put_string(out, unk);
  out += "\n  }\n}\n";
  return out;
}

CharTokenizer::CharTokenizer(const CharVocab& vocab) : tokens_(vocab.tokens) {
  if (tokens_.empty() || tokens_[0].empty()) throw std::logic_error("CharTokenizer: a vocabulary without its unk token");
  unk_id_ = 0;
  added_ = {{tokens_[0], 0}};  // as char_tokenizer_json writes it: <unk> an added (special) token
  index_tokens();
  if (chars_.size() + 1 < tokens_.size()) throw std::logic_error("CharTokenizer: a token that is not one character");
}

void CharTokenizer::index_tokens() {
  chars_.clear();
  for (std::size_t id = 0; id < tokens_.size(); ++id) {
    std::size_t i = 0;
    char32_t cp = 0;
    if (next_utf8(tokens_[id], i, cp) && i == tokens_[id].size()) chars_[cp] = static_cast<std::int64_t>(id);
  }
}

std::vector<std::int64_t> CharTokenizer::encode_piece(std::string_view piece, std::size_t offset) const {
  std::string normalized;
  if (nfc_) {
    normalized = nfc(piece);  // text that is not UTF-8 comes back as it was: the offsets below hold
    piece = normalized;
  }
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < piece.size();) {
    char32_t cp = 0;
    if (!next_utf8(piece, i, cp)) throw UsageError("checkpoint.err.utf8", {{"at", static_cast<std::uint64_t>(offset + i)}});
    auto it = chars_.find(cp);
    ids.push_back(it == chars_.end() ? unk_id_ : it->second);
  }
  return ids;
}

std::vector<std::int64_t> CharTokenizer::encode(const std::string& utf8) const {
  // The added tokens first, leftmost, and the longest where two start at the same byte (as the
  // `tokenizers` added vocabulary does); the text between them is cut into characters.
  std::vector<std::int64_t> ids;
  std::size_t start = 0;
  for (std::size_t i = 0; i < utf8.size() && !added_.empty();) {
    auto hit = std::find_if(added_.begin(), added_.end(), [&](const auto& a) { return utf8.compare(i, a.first.size(), a.first) == 0; });
    if (hit == added_.end()) {
      ++i;
      continue;
    }
    std::vector<std::int64_t> before = encode_piece(std::string_view(utf8).substr(start, i - start), start);
    ids.insert(ids.end(), before.begin(), before.end());
    ids.push_back(hit->second);
    i += hit->first.size();
    start = i;
  }
  std::vector<std::int64_t> rest = encode_piece(std::string_view(utf8).substr(start), start);
  ids.insert(ids.end(), rest.begin(), rest.end());
  return ids;
}

std::string CharTokenizer::decode(std::int64_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= tokens_.size()) return "";
  return tokens_[static_cast<std::size_t>(id)];
}

std::string CharTokenizer::decode(const std::vector<std::int64_t>& ids) const {
  std::string out;
  for (std::int64_t id : ids) out += decode(id);
  return out;
}

}  // namespace attn
