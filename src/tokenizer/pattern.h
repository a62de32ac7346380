#pragma once
// A pre-tokenizer pattern compiled by PCRE2 (UTF + UCP: \p{L}, \s and friends are Unicode's), and
// the pieces it cuts a text into. Internal to the tokenizer layer.
#ifndef ATTNLAB_NO_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#else
// The book's WebAssembly core has no PCRE2 (the page reads no checkpoint): a pattern is refused
// with checkpoint.err.no_regex (bpe.cpp).
using pcre2_code = void;
#endif

#include <string>
#include <vector>

namespace attn {

struct Regex {
  pcre2_code* code = nullptr;  // nullptr: no pattern (the whole text is one piece)
  Regex() = default;
  // A pattern that does not compile: UsageError checkpoint.err.tokenizer_regex naming `file`.
  Regex(const std::string& pattern, const std::string& file);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
};

// The matches of `re` in `text`, left to right; with `isolated`, the text between two matches is
// a piece of its own too (tokenizers' Split with behavior "Isolated"). Text that is not UTF-8:
// UsageError checkpoint.err.utf8.
std::vector<std::string> split_pieces(const Regex& re, const std::string& text, bool isolated);

}  // namespace attn
