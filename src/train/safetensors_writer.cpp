#include "safetensors_writer.h"

#include "bit_cast.h"
#include <cstdint>
#include <stdexcept>

namespace attn::train {

namespace {
void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void check_plain(const std::string& s) {
  for (char c : s)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      throw std::invalid_argument("safetensors: a name or metadata is not plain text");
}
}  // namespace

std::string safetensors_bytes(const std::vector<NamedTensor>& tensors, SafeDtype dtype,
                              const std::map<std::string, std::string>& metadata) {
  const std::size_t width = dtype == SafeDtype::F32 ? 4 : 8;
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      check_plain(k), check_plain(v);
      header += (first ? "\"" : ",\"") + k + "\":\"" + v + "\"";
      first = false;
    }
    header += "}";
  }
  std::size_t offset = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const NamedTensor& t = tensors[i];
    check_plain(t.name);
    std::size_t n = 1;
    std::string shape;
    for (std::size_t d : t.shape) {
      n *= d;
      shape += (shape.empty() ? "" : ",") + std::to_string(d);
    }
    if (header.size() > 1) header += ",";
    header += "\"" + t.name + "\":{\"dtype\":\"" + (width == 4 ? "F32" : "F64") + "\",\"shape\":[" + shape +
              "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + n * width) + "]}";
    offset += n * width;
  }
  header += "}";
  while (header.size() % 8 != 0) header += ' ';
  std::string out;
  out.reserve(8 + header.size() + offset);
  put_le(out, header.size(), 8);
  out += header;
  for (const NamedTensor& t : tensors) {
    std::size_t n = 1;
    for (std::size_t d : t.shape) n *= d;
    for (std::size_t i = 0; i < n; ++i) {
      if (width == 4)
        put_le(out, attn::bit_cast<std::uint32_t>(static_cast<float>(t.data[i])), 4);
      else
        put_le(out, attn::bit_cast<std::uint64_t>(t.data[i]), 8);
    }
  }
  return out;
}

}  // namespace attn::train
