#pragma once
// Unicode Normalization Form C (UAX #15), as a tokenizer.json "normalizer": {"type": "NFC"} asks:
// so "e" + U+0301 COMBINING ACUTE ACCENT and the precomposed "é" give the same tokens.
#include <string>
#include <string_view>

namespace attn {

// The NFC form of UTF-8 text: canonical decomposition, canonical ordering, canonical
// composition. Text with no code point at or above U+0300 (ASCII, Latin-1) is returned as it is
// without decoding. Text that is not valid UTF-8 is returned as it is too: the pre-tokenizer
// refuses it (checkpoint.err.utf8).
std::string nfc(std::string_view utf8);

// The Unicode version of the tables nfc() uses (Python's unicodedata, scripts/gen-nfc-tables.py).
const char* nfc_unicode_version();

}  // namespace attn
