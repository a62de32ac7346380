// libFuzzer: the catalog parser and the message formatter (a catalog a translator writes,
// ATTNLAB_CATALOG_PATH). Problems are reported in the file's `problems`, never by a crash;
// formatting a bad pattern is a std::logic_error (a catalog bug the tests catch).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "catalog.h"
#include "errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  attn::CatalogFile f = attn::parse_catalog(text, "fuzz", "en", "fuzz");
  for (const auto& [key, pattern] : f.messages) {
    try {
      attn::format_message(pattern, {{"n", 3}, {"x", 0.5}, {"name", "a"}, {"flag", "--x"}}, attn::Lang::En);
    } catch (const std::logic_error&) {
    } catch (const attn::UsageError&) {
    }
  }
  return 0;
}
