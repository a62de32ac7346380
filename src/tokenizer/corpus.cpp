#include "corpus.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "embedded_data.h"

namespace attn {

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

bool has_bundled_corpus(const std::string& name) { return embedded_file("corpus/" + name + ".txt").has_value(); }

std::string bundled_corpus(const std::string& name) {
  const auto text = embedded_file("corpus/" + name + ".txt");
  if (!text) throw std::logic_error("no bundled corpus " + name);
  return std::string(*text);
}

namespace {
// How often the character `piece` (one UTF-8 character) occurs in `text`.
std::uint64_t occurrences(const std::string& text, const std::string& piece) {
  std::uint64_t n = 0;
  for (std::size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + piece.size())) ++n;
  return n;
}

// The characters of `s`, each once, as UTF-8 pieces.
std::set<std::string> characters_of(const std::string& s) {
  std::set<std::string> out;
  for (std::size_t at = 0; at < s.size();) {
    std::size_t n = 1;
    while (at + n < s.size() && (static_cast<unsigned char>(s[at + n]) & 0xC0) == 0x80) ++n;
    out.insert(s.substr(at, n));
    at += n;
  }
  return out;
}

char32_t first_code_point(const std::string& piece) {
  auto c = static_cast<unsigned char>(piece[0]);
  char32_t cp = c < 0x80 ? c : c < 0xE0 ? c & 0x1F : c < 0xF0 ? c & 0x0F : c & 0x07;
  for (std::size_t i = 1; i < piece.size(); ++i) cp = (cp << 6) | (static_cast<unsigned char>(piece[i]) & 0x3F);
  return cp;
}

// The vocabulary cut to `keep` tokens, <unk> included: the required characters first (added with
// their counts in train_text if min_count had left them out), then the most frequent others; every
// character left out counted in counts[0]. Tokens stay in descending count, ties by code point.
void cap_vocab(CharVocab& v, std::size_t keep, const std::string& train_text, const std::set<std::string>& required) {
  std::set<std::string> have(v.tokens.begin() + 1, v.tokens.end());
  for (const std::string& c : required) {
    if (have.count(c)) continue;
    const std::uint64_t n = occurrences(train_text, c);
    v.tokens.push_back(c);
    v.counts.push_back(n);
    v.counts[0] -= n;  // it was <unk> (seen fewer than min_count times), or absent
  }
  std::vector<std::size_t> order;  // ids 1…: by descending count, ties by ascending code point
  for (std::size_t i = 1; i < v.tokens.size(); ++i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (v.counts[a] != v.counts[b]) return v.counts[a] > v.counts[b];
    return first_code_point(v.tokens[a]) < first_code_point(v.tokens[b]);
  });
  std::size_t free = keep > required.size() + 1 ? keep - 1 - required.size() : 0;  // places for the others
  CharVocab out;
  out.tokens.push_back(v.tokens[0]);
  out.counts.push_back(v.counts[0]);
  for (std::size_t i : order) {
    if (required.count(v.tokens[i]) || free > 0) {
      if (!required.count(v.tokens[i])) --free;
      out.tokens.push_back(v.tokens[i]);
      out.counts.push_back(v.counts[i]);
    } else {
      out.counts[0] += v.counts[i];
    }
  }
  v = std::move(out);
}
}  // namespace

std::string required_characters(const std::string& corpus) {
  const auto file = embedded_file("corpus/sentences.json");
  if (!file) return "";
  const nlohmann::json j = nlohmann::json::parse(*file);
  std::string out;
  if (j.contains(corpus))
    for (const auto& s : j[corpus]) out += s.get<std::string>();
  return out;
}

std::size_t heldout_start(const std::string& text) {
  const std::size_t n = code_points(text), cut = n - n / 20;  // the first 95% (rounded up) is trained on
  std::size_t at = 0, seen = 0;
  while (at < text.size() && seen < cut) {
    ++at;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    ++seen;
  }
  return at;
}

CorpusSplit split_corpus(const std::string& text, std::size_t min_count, std::size_t keep, const std::string& required) {
  CorpusSplit s;
  s.characters = code_points(text);
  const std::size_t at = heldout_start(text);
  s.train_text = text.substr(0, at);
  s.heldout_text = text.substr(at);
  s.heldout_characters = s.characters / 20;
  s.vocab = build_char_vocab(s.train_text, min_count);
  if (!required.empty()) {
    cap_vocab(s.vocab, keep, s.train_text, characters_of(required));
  } else if (s.vocab.tokens.size() > keep) {  // the rarest characters beyond the cap become <unk> too
    for (std::size_t i = keep; i < s.vocab.tokens.size(); ++i) s.vocab.counts[0] += s.vocab.counts[i];
    s.vocab.tokens.resize(keep);
    s.vocab.counts.resize(keep);
  }
  CharTokenizer tok(s.vocab);
  auto ids = [&tok](const std::string& part) {
    std::vector<std::int64_t> v = tok.encode(part);
    return std::vector<int>(v.begin(), v.end());
  };
  s.train_ids = ids(s.train_text);
  s.heldout_ids = ids(s.heldout_text);
  return s;
}

}  // namespace attn
