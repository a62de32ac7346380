#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "errors.h"

namespace attn::cli {

void emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void write_output(const std::string& flag, const std::string& path, const std::string& text) {
  if (path == "-") {
    emit(text);
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError(fmt::format("{}: cannot write to '{}'", flag, path));
  out << text;
  out.close();
  if (!out) throw UsageError(fmt::format("{}: writing '{}' failed", flag, path));
}

void write_output_with(const std::string& flag, const std::string& path, const std::function<bool(std::FILE*)>& write) {
  if (path == "-") {
    std::fflush(stdout);
    if (!write(stdout)) throw UsageError(fmt::format("{}: writing '{}' failed", flag, path));
    return;
  }
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) throw UsageError(fmt::format("{}: cannot write to '{}'", flag, path));
  bool ok = write(out);
  if (std::fclose(out) != 0) ok = false;
  if (!ok) throw UsageError(fmt::format("{}: writing '{}' failed", flag, path));
}

}  // namespace attn::cli
