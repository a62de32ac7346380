// libFuzzer: the trace reader (what `attnlab render TRACE.json` reads) and the renderers after it.
// Any input must end in a rendered trace or a UsageError; a crash, a sanitizer report or another
// exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "errors.h"
#include "html.h"
#include "terminal.h"
#include "trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    attn::Trace t = attn::read_trace_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    attn::render_trace(t, attn::RenderOptions{});
    attn::render_html(t);
  } catch (const attn::UsageError&) {
  }
  return 0;
}
