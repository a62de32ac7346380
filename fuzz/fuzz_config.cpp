// libFuzzer: the config.json reader (what `--config FILE` parses). Any input must end in a
// model or a UsageError; anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "errors.h"
#include "models.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    attn::ModelConfig m = attn::parse_hf_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    attn::count_params(m);
  } catch (const attn::UsageError&) {
  }
  return 0;
}
