#pragma once
// Values echoed back to the user (a flag's value, a path, a key, a token) go through printable():
// control characters and invalid UTF-8 become visible escapes (\n, \x1b, \xc2\x85), so an error
// stays one line and no escape sequence reaches the terminal; a long value is cut.
#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

// At most max_chars characters of s, escaped; a cut value ends in "...".
std::string printable(std::string_view s, std::size_t max_chars = 80);
// True if s is valid UTF-8 with no C0 or C1 control character and no DEL.
bool is_clean_text(std::string_view s);
bool is_valid_utf8(std::string_view s);

}  // namespace attn
