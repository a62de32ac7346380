// safetensors reader: mmap, validate everything once, convert on demand. See safetensors.h.
#include "safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "input_file.h"
#include "json_input.h"

namespace attn {

namespace {

constexpr std::size_t kMaxHeader = std::size_t{100} << 20;  // 100 MB, as the reference reader

std::string shape_text(const Shape& s) { return shape_str(s); }

double half_to_double(std::uint16_t h) {
  int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(static_cast<double>(frac), -24);  // subnormal (or zero)
  else if (exp == 31)
    v = frac == 0 ? HUGE_VAL : std::nan("");
  else
    v = std::ldexp(static_cast<double>(frac | 0x400), exp - 25);
  return sign ? -v : v;
}

double element(const unsigned char* p, DType d) {
  switch (d) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::F64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DType::F16: {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      return half_to_double(h);
    }
    case DType::BF16: {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
  return 0;
}

bool dtype_from(const std::string& s, DType& d) {
  if (s == "F32") d = DType::F32;
  else if (s == "F16") d = DType::F16;
  else if (s == "BF16") d = DType::BF16;
  else if (s == "F64") d = DType::F64;
  else return false;
  return true;
}

constexpr std::size_t kMaxIndexBytes = std::size_t{64} << 20;  // an index is a few hundred KiB

}  // namespace

const char* dtype_name(DType d) {
  switch (d) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::F64: return "F64";
  }
  return "?";
}

std::size_t dtype_size(DType d) {
  switch (d) {
    case DType::F32: return 4;
    case DType::F16: case DType::BF16: return 2;
    case DType::F64: return 8;
  }
  return 0;
}

std::map<std::string, TensorEntry> parse_safetensors_header(const std::string& text, std::size_t data_size,
                                                            const std::string& file) {
  // depth-safe, numbers checked, a syntax error with its line (input.err.json_*)
  nlohmann::json h = parse_json_input(text, file);
  if (!h.is_object()) throw UsageError("checkpoint.err.header_object", {{"file", file}});
  std::map<std::string, TensorEntry> out;
  for (auto it = h.begin(); it != h.end(); ++it) {
    const std::string& name = it.key();
    if (name == "__metadata__") continue;
    const auto& v = it.value();
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets") ||
        !v["dtype"].is_string() || !v["shape"].is_array() || !v["data_offsets"].is_array() ||
        v["data_offsets"].size() != 2 || !v["data_offsets"][0].is_number_unsigned() ||
        !v["data_offsets"][1].is_number_unsigned())
      throw UsageError("checkpoint.err.entry", {{"file", file}, {"tensor", name}});
    TensorEntry e;
    e.name = name;
    std::string dt = v["dtype"].get<std::string>();
    if (!dtype_from(dt, e.dtype)) throw UsageError("checkpoint.err.dtype", {{"file", file}, {"tensor", name}, {"dtype", dt}});
    std::uint64_t count = 1;
    bool too_big = false;
    for (const auto& dim : v["shape"]) {
      if (!dim.is_number_unsigned()) throw UsageError("checkpoint.err.entry", {{"file", file}, {"tensor", name}});
      std::uint64_t n = dim.get<std::uint64_t>();
      if (n != 0 && count > (std::uint64_t{1} << 62) / n) too_big = true;
      else count *= n;
      e.shape.push_back(static_cast<std::size_t>(n));
    }
    e.begin = v["data_offsets"][0].get<std::uint64_t>();
    e.end = v["data_offsets"][1].get<std::uint64_t>();
    if (e.begin > e.end || e.end > data_size)
      throw UsageError("checkpoint.err.offsets", {{"file", file}, {"tensor", name}, {"begin", static_cast<std::uint64_t>(e.begin)},
                                                  {"end", static_cast<std::uint64_t>(e.end)}, {"size", static_cast<std::uint64_t>(data_size)}});
    std::uint64_t need = count * dtype_size(e.dtype);
    if (too_big || need != e.end - e.begin)
      throw UsageError("checkpoint.err.length", {{"file", file}, {"tensor", name}, {"shape", shape_text(e.shape)}, {"dtype", dt},
                                                 {"have", static_cast<std::uint64_t>(e.end - e.begin)}});
    out.emplace(name, std::move(e));
  }
  // No two tensors share a byte: sorted by start, each begins at or after the previous end.
  std::vector<const TensorEntry*> by_start;
  for (const auto& [n, e] : out)
    if (e.end > e.begin) by_start.push_back(&e);
  std::sort(by_start.begin(), by_start.end(), [](const TensorEntry* a, const TensorEntry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->name < b->name;
  });
  for (std::size_t i = 1; i < by_start.size(); ++i)
    if (by_start[i]->begin < by_start[i - 1]->end)
      throw UsageError("checkpoint.err.overlap", {{"file", file}, {"tensor", by_start[i - 1]->name}, {"other", by_start[i]->name}});
  return out;
}

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path) {
  require_regular_file(path, "--weights");  // not a directory, a FIFO or a device (input.err.file_*)
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw UsageError("checkpoint.err.open", {{"file", path}});
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UsageError("checkpoint.err.open", {{"file", path}});
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ < 8) {
    ::close(fd);
    throw UsageError("checkpoint.err.truncated", {{"file", path}, {"size", static_cast<std::uint64_t>(size_)}});
  }
  void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) throw UsageError("checkpoint.err.open", {{"file", path}});
  map_ = static_cast<const unsigned char*>(m);
  try {
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | map_[i];
    if (n > kMaxHeader || n > size_ - 8)
      throw UsageError("checkpoint.err.header_size", {{"file", path}, {"n", n}, {"size", static_cast<std::uint64_t>(size_ - 8)}});
    data_start_ = 8 + static_cast<std::size_t>(n);
    std::string header(reinterpret_cast<const char*>(map_ + 8), static_cast<std::size_t>(n));
    entries_ = parse_safetensors_header(header, size_ - data_start_, path);
  } catch (...) {
    ::munmap(const_cast<unsigned char*>(map_), size_);
    map_ = nullptr;
    throw;
  }
}

SafetensorsFile::~SafetensorsFile() {
  if (map_ != nullptr) ::munmap(const_cast<unsigned char*>(map_), size_);
}

const TensorEntry* SafetensorsFile::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

Tensor SafetensorsFile::read(const TensorEntry& e) const {
  Shape s = e.shape.empty() ? Shape{1} : e.shape;  // a scalar as (1)
  if (s.size() > 4 || checked_numel(s) == 0)         // what a Tensor can hold: rank 1 to 4, 1 to 2^27 numbers
    throw UsageError("checkpoint.err.convert", {{"file", path_}, {"tensor", e.name}, {"shape", shape_text(e.shape)}});
  Tensor t(s);
  const unsigned char* p = map_ + data_start_ + e.begin;
  std::size_t w = dtype_size(e.dtype);
  for (std::size_t i = 0; i < t.data.size(); ++i) t.data[i] = element(p + i * w, e.dtype);
  require_finite(t, 0, e);
  return t;
}

Tensor SafetensorsFile::read_rows(const TensorEntry& e, std::size_t r0, std::size_t n) const {
  std::size_t cols = e.shape.at(1);
  Tensor t({n, cols});
  std::size_t w = dtype_size(e.dtype);
  for (std::size_t r = 0; r < n; ++r) {
    if (r0 + r >= e.shape[0]) throw std::out_of_range("read_rows past the tensor");
    const unsigned char* p = map_ + data_start_ + e.begin + (r0 + r) * cols * w;
    for (std::size_t c = 0; c < cols; ++c) t.data[r * cols + c] = element(p + c * w, e.dtype);
  }
  require_finite(t, r0 * cols, e);
  return t;
}

// Weights are numbers: a NaN or an infinity would surface much later as a softmax over nothing.
void SafetensorsFile::require_finite(const Tensor& t, std::size_t first, const TensorEntry& e) const {
  auto bad = std::find_if(t.data.begin(), t.data.end(), [](double v) { return !std::isfinite(v); });
  if (bad == t.data.end()) return;
  std::size_t i = static_cast<std::size_t>(bad - t.data.begin());
  throw UsageError("checkpoint.err.not_finite", {{"file", path_}, {"tensor", e.name}, {"index", first + i}});
}

Checkpoint::Checkpoint(const std::string& folder) : folder_(folder) {
  std::string single = folder + "/model.safetensors", index = folder + "/model.safetensors.index.json";
  struct stat st {};
  if (::stat(single.c_str(), &st) == 0) {
    files_.push_back(std::make_unique<SafetensorsFile>(single));
  } else if (::stat(index.c_str(), &st) == 0) {
    nlohmann::json j = parse_json_input(read_regular_file(index, kMaxIndexBytes, "--weights"), index);
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw UsageError("checkpoint.err.index", {{"file", index}});
    std::map<std::string, std::size_t> shard_ix;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      if (!it.value().is_string()) throw UsageError("checkpoint.err.index", {{"file", index}});
      std::string shard = it.value().get<std::string>();
      if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..")
        throw UsageError("checkpoint.err.shard_name", {{"file", index}, {"tensor", it.key()}, {"shard", shard}});
      if (!shard_ix.count(shard)) {
        shard_ix[shard] = files_.size();
        files_.push_back(std::make_unique<SafetensorsFile>(folder + "/" + shard));
      }
      std::size_t f = shard_ix[shard];
      if (files_[f]->find(it.key()) == nullptr)
        throw UsageError("checkpoint.err.missing", {{"file", files_[f]->path()}, {"tensor", it.key()}});
      where_[it.key()] = f;
    }
    return;
  } else {
    throw UsageError("checkpoint.err.no_weights", {{"folder", folder}});
  }
  for (const auto& [name, e] : files_[0]->entries()) where_[name] = 0;
}

const TensorEntry& Checkpoint::entry(const std::string& name, const Shape& expected) const {
  auto it = where_.find(name);
  if (it == where_.end()) {
    std::string file = files_.size() == 1 ? files_[0]->path() : folder_ + "/model.safetensors.index.json";
    throw UsageError("checkpoint.err.missing", {{"file", file}, {"tensor", name}});
  }
  const TensorEntry* e = files_[it->second]->find(name);
  if (e->shape != expected)
    throw UsageError("checkpoint.err.shape", {{"file", files_[it->second]->path()}, {"tensor", name},
                                              {"shape", shape_text(e->shape)}, {"expected", shape_text(expected)}});
  return *e;
}

Tensor Checkpoint::read(const std::string& name, const Shape& expected) const {
  const TensorEntry& e = entry(name, expected);
  return files_[where_.at(name)]->read(e);
}

Tensor Checkpoint::read_rows(const std::string& name, const Shape& expected, std::size_t r0, std::size_t n) const {
  const TensorEntry& e = entry(name, expected);
  return files_[where_.at(name)]->read_rows(e, r0, n);
}

std::vector<const TensorEntry*> Checkpoint::all() const {
  std::vector<const TensorEntry*> out;
  for (const auto& [name, f] : where_) out.push_back(files_[f]->find(name));
  return out;
}

std::string Checkpoint::file_of(const std::string& name) const { return files_[where_.at(name)]->path(); }

}  // namespace attn
