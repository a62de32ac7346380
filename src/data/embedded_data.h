#pragma once
// The files under data/, compiled into the binary (see cmake/embed_data.cmake),
// so attnlab needs nothing beside its sources at run time.
#include <optional>
#include <string_view>
#include <vector>

namespace attn {

struct EmbeddedFile {
  std::string_view path;      // relative to data/, e.g. "models/gpt2.json"
  std::string_view contents;
};

const std::vector<EmbeddedFile>& embedded_files();  // sorted by path

// The contents of data/<path>, or nothing if no such file was bundled.
std::optional<std::string_view> embedded_file(std::string_view path);

}  // namespace attn
