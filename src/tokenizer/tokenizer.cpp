// What every tokenizer shares: a token's label. See tokenizer.h (load_tokenizer is in bpe.cpp,
// beside the folder's files; read_tokenizer_json in tokenizer_json.cpp).
#include "tokenizer.h"

namespace attn {

std::string token_label(const std::string& bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool whole = n > 0 && i + n <= bytes.size();
    for (std::size_t k = 1; whole && k < n; ++k) whole = (static_cast<unsigned char>(bytes[i + k]) >> 6) == 0x2;
    auto byte = [&out](unsigned char b) {  // <xx>
      static const char* hex = "0123456789abcdef";
      out += "<";
      out += hex[b >> 4];
      out += hex[b & 15];
      out += ">";
    };
    if (!whole) {
      byte(c);
      ++i;
      continue;
    }
    // a C1 control character, U+0080 … U+009F: its two bytes, as a C0 one is shown as its byte
    bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(bytes[i + 1]) < 0xA0;
    if (c == ' ') out += "\xe2\x90\xa3";        // U+2423 open box
    else if (c == '\n') out += "\xe2\x86\xb5";  // U+21B5
    else if (c == '\t') out += "\xe2\x87\xa5";  // U+21E5
    else if (c < 0x20 || c == 0x7f) byte(c);
    else if (c1) byte(c), byte(static_cast<unsigned char>(bytes[i + 1]));
    else out += bytes.substr(i, n);
    i += n;
  }
  return out.empty() ? std::string("<>") : out;
}


}  // namespace attn
