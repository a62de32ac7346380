#pragma once
// Text helpers shared by the renderers and the CLI: language choice, display widths of
// UTF-8 text (Chinese characters take two terminal columns), and number formatting.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace attn {

// A language: its catalog code ("en", "zh", or any language a catalog was added for).
// Which codes exist, and the words in each, is the i18n layer's business (src/i18n/catalog.h).
struct Lang {
  std::string code = "en";
  bool operator==(const Lang&) const = default;
  static const Lang En;  // English: every catalog's fallback
};
inline const Lang Lang::En{"en"};

// Decode one UTF-8 code point starting at s[i] and advance i past it; a bad byte decodes as itself.
char32_t next_code_point(std::string_view s, std::size_t& i);

// Terminal columns taken by s: East Asian wide and fullwidth characters count 2,
// combining marks 0, everything else 1. Invalid UTF-8 bytes count 1 each.
std::size_t display_width(std::string_view s);
std::string pad_right(std::string_view s, std::size_t width);  // pad with spaces to width columns
std::string pad_left(std::string_view s, std::size_t width);

// 2359296 -> "2,359,296"
std::string with_commas(std::int64_t n);
std::string with_commas_u(std::uint64_t n);
// Bytes in binary units, e.g. 131072 -> "128.0 KiB", 3 -> "3 B".
std::string binary_size(double bytes);
// A fixed-point number with `precision` decimals; never prints "-0.000".
std::string fixed(double x, int precision);

}  // namespace attn
