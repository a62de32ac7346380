#pragma once
// Text helpers shared by the renderers and the CLI: language choice, display widths of
// UTF-8 text (Chinese characters take two terminal columns), and number formatting.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace attn {

enum class Lang { En, Zh };

// "en" or "zh" -> Lang; anything else is a UsageError naming --lang.
Lang parse_lang(std::string_view s);
// The default language from the environment: LC_ALL, else LC_MESSAGES, else LANG;
// a value starting with "zh" means Chinese, anything else English.
Lang lang_from_env();
// Pick the text in the run's language.
inline const char* tr(Lang lang, const char* en, const char* zh) { return lang == Lang::Zh ? zh : en; }
// fmt::format with the format string in the run's language.
template <typename... Args>
std::string trf(Lang lang, const char* en, const char* zh, Args&&... args) {
  return fmt::format(fmt::runtime(tr(lang, en, zh)), std::forward<Args>(args)...);
}

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
