#pragma once
// A text for next-character training, split as `attnlab train --task text` and the trade-offs
// study split it: the last 5% of its characters (rounded down) held out and never trained on, the
// vocabulary built from the rest (characters seen at least min_count times, the `keep` most
// frequent of them, everything else <unk>), both parts as ids.
#include <cstddef>
#include <string>
#include <vector>

#include "char_vocab.h"

namespace attn {

struct CorpusSplit {
  std::string train_text, heldout_text;
  std::size_t characters = 0, heldout_characters = 0;
  CharVocab vocab;
  std::vector<int> train_ids, heldout_ids;
};

// Code points in a UTF-8 string (bytes that are not continuation bytes).
std::size_t code_points(const std::string& s);

// The byte where a text's held-out part begins: after the first N − floor(N/20) of its N characters.
std::size_t heldout_start(const std::string& text);

// required: characters (UTF-8) that get a place in the vocabulary whatever their count in the
// training part, even 0 (a lesson's example sentence must read without <unk>); they take the places
// of the rarest others, so the vocabulary still has at most `keep` tokens.
CorpusSplit split_corpus(const std::string& text, std::size_t min_count, std::size_t keep,
                         const std::string& required = "");

// The characters a bundled corpus's vocabulary must hold (data/corpus/sentences.json: the sentences
// the lessons read with a model trained on it, joined); "" for a corpus without sentences.
std::string required_characters(const std::string& corpus);

// A bundled corpus (data/corpus/NAME.txt: "en", the King James Bible; "zh", classical Chinese
// poetry; "zh-mix", modern and classical Chinese); std::logic_error if no such text was bundled.
std::string bundled_corpus(const std::string& name);
bool has_bundled_corpus(const std::string& name);

}  // namespace attn
