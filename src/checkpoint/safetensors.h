#pragma once
// safetensors, read by our own small reader: an 8-byte little-endian header size N, N bytes of
// JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {…}}, then the
// raw little-endian data (offsets count from the end of the header). The file is memory-mapped
// and checked whole when opened: every entry's dtype (F32, F16, BF16, F64), shape × dtype size =
// byte length, offsets inside the file, no two tensors overlapping. Anything wrong is one
// UsageError (checkpoint.err.*) naming the file and the tensor; no byte outside the mapping is
// ever read. Tensors are converted to double only when asked for, one at a time.
//
// A checkpoint is one model.safetensors, or the shards a model.safetensors.index.json lists
// ({"weight_map": {tensor: shard file}}).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensor.h"

namespace attn {

enum class DType { F32, F16, BF16, F64 };
const char* dtype_name(DType d);
std::size_t dtype_size(DType d);

struct TensorEntry {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  std::size_t begin = 0, end = 0;  // byte offsets into the data section
};

class SafetensorsFile {
 public:
  // Maps and validates `path`; `shown` is the name errors use (the path as the user gave it).
  explicit SafetensorsFile(const std::string& path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::map<std::string, TensorEntry>& entries() const { return entries_; }
  const TensorEntry* find(const std::string& name) const;
  // The tensor's numbers as doubles (F16/BF16/F32 widen exactly).
  Tensor read(const TensorEntry& e) const;
  // Rows [r0, r0 + n) of a rank-2 tensor, as (n, cols).
  Tensor read_rows(const TensorEntry& e, std::size_t r0, std::size_t n) const;
  // A UsageError naming the file, the tensor and the flat index of its first NaN or infinity.
  void require_finite(const Tensor& t, std::size_t first, const TensorEntry& e) const;

 private:
  std::string path_;
  const unsigned char* map_ = nullptr;
  std::size_t size_ = 0;
  std::size_t data_start_ = 0;
  std::map<std::string, TensorEntry> entries_;
};

// Validate a header alone (the bytes after the 8-byte size), against a data section of
// data_size bytes: exposed for the tests.
std::map<std::string, TensorEntry> parse_safetensors_header(const std::string& json, std::size_t data_size,
                                                            const std::string& file);

// All tensors of a checkpoint folder, across its shards.
class Checkpoint {
 public:
  explicit Checkpoint(const std::string& folder);  // model.safetensors or model.safetensors.index.json
  const std::string& folder() const { return folder_; }
  bool has(const std::string& name) const { return where_.count(name) != 0; }
  // The entry of a tensor, checked against the shape the config says; missing or wrong: UsageError.
  const TensorEntry& entry(const std::string& name, const Shape& expected) const;
  Tensor read(const std::string& name, const Shape& expected) const;
  Tensor read_rows(const std::string& name, const Shape& expected, std::size_t r0, std::size_t n) const;
  std::vector<const TensorEntry*> all() const;  // every tensor, by name
  std::size_t file_count() const { return files_.size(); }
  std::string file_of(const std::string& name) const;  // the shard a tensor is in

 private:
  std::string folder_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, std::size_t> where_;  // tensor -> index in files_
};

}  // namespace attn
