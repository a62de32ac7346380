#pragma once
// A safetensors file (https://huggingface.co/docs/safetensors): 8 bytes little-endian header length,
// a JSON header {"__metadata__": {...}, "NAME": {"dtype", "shape", "data_offsets": [begin, end]}, …}
// padded with spaces to a multiple of 8, then the raw little-endian data, tensor after tensor.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tensor.h"

namespace attn::train {

struct NamedTensor {
  std::string name;
  Shape shape;
  const double* data = nullptr;  // shape's product numbers
};

enum class SafeDtype { F32, F64 };

// The file's bytes, tensors in the given order. Names must be plain (no '"' or '\\').
std::string safetensors_bytes(const std::vector<NamedTensor>& tensors, SafeDtype dtype,
                              const std::map<std::string, std::string>& metadata = {});

}  // namespace attn::train
