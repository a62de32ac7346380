#pragma once
// Test helpers for checkpoints: temporary folders, a safetensors writer (so the tests can write
// files with the header lying on purpose), and byte patches of a good file.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor.h"

namespace ckpt_test {

inline std::string fixture(const std::string& name) {
  std::string path = ATTNLAB_TEST_DIR;  // appended, not `std::string(…) + "…"`: GCC 12 warns falsely on that at -O1
  path += "/fixtures/checkpoints/";
  path += name;
  return path;
}

// A fresh empty folder under /tmp, removed when the object goes.
struct TempDir {
  std::string path;
  explicit TempDir(const std::string& tag) {
    static int n = 0;
    path = "/tmp/attnlab_ckpt_" + std::to_string(::getpid()) + "_" + tag + "_" + std::to_string(n++);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A safetensors file from a header (written as given) and a data section.
inline std::string safetensors_bytes(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

// Split a file into its header JSON and its data section.
inline std::pair<nlohmann::json, std::string> split_file(const std::string& bytes) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  return {nlohmann::json::parse(bytes.substr(8, n)), bytes.substr(8 + n)};
}

// F64 tensors written back to back (numbers past F32's range, such as 1e200, stay as given).
inline std::string write_f64(const std::vector<std::pair<std::string, attn::Tensor>>& tensors) {
  nlohmann::json h = nlohmann::json::object();
  std::string data;
  for (const auto& [name, t] : tensors) {
    std::size_t begin = data.size();
    for (double v : t.data) {
      char b[8];
      std::memcpy(b, &v, 8);
      data.append(b, 8);
    }
    h[name] = {{"dtype", "F64"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  return safetensors_bytes(h.dump(), data);
}

// F32 tensors written back to back.
inline std::string write_f32(const std::vector<std::pair<std::string, attn::Tensor>>& tensors) {
  nlohmann::json h = nlohmann::json::object();
  std::string data;
  for (const auto& [name, t] : tensors) {
    std::size_t begin = data.size();
    for (double v : t.data) {
      float f = static_cast<float>(v);
      char b[4];
      std::memcpy(b, &f, 4);
      data.append(b, 4);
    }
    h[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  return safetensors_bytes(h.dump(), data);
}

}  // namespace ckpt_test
