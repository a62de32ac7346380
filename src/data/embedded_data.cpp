#include "embedded_data.h"

namespace attn {

std::optional<std::string_view> embedded_file(std::string_view path) {
  for (const EmbeddedFile& f : embedded_files())
    if (f.path == path) return f.contents;
  return std::nullopt;
}

}  // namespace attn
