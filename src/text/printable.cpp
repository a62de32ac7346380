#include "printable.h"

#include <fmt/format.h>

namespace attn {

namespace {

// The length of the valid UTF-8 sequence starting at s[i] (1..4), or 0 if it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? (c <= 0xEF ? 3 : 0) : c >= 0xC2 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if (n == 3 && c == 0xE0 && b(i + 1) < 0xA0) return 0;  // overlong
  if (n == 3 && c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogates
  if (n == 4 && c == 0xF0 && b(i + 1) < 0x90) return 0;  // overlong
  if (n == 4 && c == 0xF4 && b(i + 1) >= 0x90) return 0;  // past U+10FFFF
  return n;
}

bool is_c1(std::string_view s, std::size_t i, std::size_t n) {
  return n == 2 && static_cast<unsigned char>(s[i]) == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
}

}  // namespace

std::string printable(std::string_view s, std::size_t max_chars) {
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (chars >= max_chars) {
      out += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = utf8_length(s, i);
    if (n == 1 && c >= 0x20 && c != 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (n == 0 || n == 1 || is_c1(s, i, n)) {
      std::size_t m = n == 0 ? 1 : n;
      for (std::size_t k = 0; k < m; ++k) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i + k]));
      i += m;
      ++chars;
      continue;
    } else {
      out.append(s.substr(i, n));
    }
    i += n == 0 ? 1 : n;
    ++chars;
  }
  return out;
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

bool is_clean_text(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0 || is_c1(s, i, n)) return false;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (n == 1 && (c < 0x20 || c == 0x7F)) return false;
    i += n;
  }
  return true;
}

}  // namespace attn
