#include "text.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>


namespace attn {

namespace {

bool is_wide(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
         (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
         (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

bool is_zero_width(char32_t cp) {
  return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || cp == 0xFE0F;
}

}  // namespace

char32_t next_code_point(std::string_view s, std::size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (c < 0x80 || i + extra >= s.size() + (extra == 0 ? 1 : 0)) {
    ++i;
    return c;
  }
  char32_t cp = c & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) {
      ++i;
      return c;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  i += 1 + extra;
  return cp;
}

std::size_t display_width(std::string_view s) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = next_code_point(s, i);
    width += is_zero_width(cp) ? 0 : is_wide(cp) ? 2 : 1;
  }
  return width;
}

std::string pad_right(std::string_view s, std::size_t width) {
  std::size_t w = display_width(s);
  return std::string(s) + std::string(w < width ? width - w : 0, ' ');
}

std::string pad_left(std::string_view s, std::size_t width) {
  std::size_t w = display_width(s);
  return std::string(w < width ? width - w : 0, ' ') + std::string(s);
}

std::string with_commas_u(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string with_commas(std::int64_t n) {
  if (n < 0) return "-" + with_commas_u(static_cast<std::uint64_t>(-(n + 1)) + 1);
  return with_commas_u(static_cast<std::uint64_t>(n));
}

std::string binary_size(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (!std::isfinite(bytes)) return fixed(bytes, 0) + " B";  // never cast to an integer below
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", static_cast<long long>(bytes));
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string fixed(double x, int precision) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{:.{}f}", x, precision);
  // "-0.0000" -> "0.0000": a tiny negative number rounds to zero without a sign.
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

}  // namespace attn
