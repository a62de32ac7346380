#include "corpus.h"

#include <stdexcept>

#include "embedded_data.h"

namespace attn {

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

std::string bundled_corpus(const std::string& name) {
  const auto text = embedded_file("corpus/" + name + ".txt");
  if (!text) throw std::logic_error("no bundled corpus " + name);
  return std::string(*text);
}

CorpusSplit split_corpus(const std::string& text, std::size_t min_count, std::size_t keep) {
  CorpusSplit s;
  s.characters = code_points(text);
  const std::size_t cut = s.characters - s.characters / 20;  // the first 95% (rounded up) is trained on
  std::size_t at = 0, seen = 0;
  while (at < text.size() && seen < cut) {
    ++at;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    ++seen;
  }
  s.train_text = text.substr(0, at);
  s.heldout_text = text.substr(at);
  s.heldout_characters = s.characters - cut;
  s.vocab = build_char_vocab(s.train_text, min_count);
  if (s.vocab.tokens.size() > keep) {  // the rarest characters beyond the cap become <unk> too
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
