#pragma once
// UTF-8 and code points, as RFC 3629 has them (no overlong forms, no surrogates, nothing above
// U+10FFFF): the NFC normalizer's and the character tokenizer's one decoder. Internal to the
// tokenizer layer (the text layer's next_code_point is for display and takes any bytes).
#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

// The code point at s[i]: true and i moved past it, or false (i and cp unchanged) when the bytes
// there are not one whole UTF-8 character.
bool next_utf8(std::string_view s, std::size_t& i, char32_t& cp);
// All of s; false at the first byte that is not UTF-8.
bool decode_utf8(std::string_view s, std::u32string& out);
void append_utf8(std::string& out, char32_t cp);  // cp must be a code point (<= U+10FFFF)
std::string encode_utf8(const std::u32string& cps);

}  // namespace attn
