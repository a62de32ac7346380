// UTF-8 <-> code points. See utf8.h.
#include "utf8.h"

namespace attn {

bool next_utf8(std::string_view s, std::size_t& i, char32_t& cp) {
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};  // smallest code point per length
  if (i >= s.size()) return false;
  auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
  if (n == 0 || n > s.size() - i) return false;
  char32_t v = n == 1 ? c : c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    auto t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) return false;
    v = (v << 6) | (t & 0x3F);
  }
  if (v < kMin[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
  cp = v;
  i += n;
  return true;
}

bool decode_utf8(std::string_view s, std::u32string& out) {
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    if (!next_utf8(s, i, cp)) return false;
    out.push_back(cp);
  }
  return true;
}

void append_utf8(std::string& s, char32_t c) {
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string encode_utf8(const std::u32string& cps) {
  std::string s;
  for (char32_t c : cps) append_utf8(s, c);
  return s;
}

}  // namespace attn
