// libFuzzer: the depth-safe JSON reader every user file goes through (configs, traces).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "errors.h"
#include "json_input.h"
#include "printable.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  attn::printable(text);
  attn::is_clean_text(text);
  try {
    nlohmann::json j = attn::parse_json_input(text, "fuzz.json");
    attn::json_preview(j);
  } catch (const attn::UsageError&) {
  }
  return 0;
}
