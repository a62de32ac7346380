// libFuzzer: the safetensors reader. The input is a whole file (an 8-byte little-endian header
// size, the JSON header, the data bytes), opened from memory (a memfd) the way a checkpoint is
// mapped; every tensor is then read. Any input must end in tensors or a UsageError.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "errors.h"
#include "safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int fd = ::memfd_create("fuzz.safetensors", 0);
  if (fd < 0) return 0;
  if (::write(fd, data, size) != static_cast<ssize_t>(size)) {
    ::close(fd);
    return 0;
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    attn::SafetensorsFile f(path);
    for (const auto& [name, e] : f.entries()) {
      attn::Tensor t = f.read(e);
      if (e.shape.size() == 2 && e.shape[0] > 0 && e.shape[1] > 0) f.read_rows(e, 0, 1);
    }
  } catch (const attn::UsageError&) {
  }
  ::close(fd);
  return 0;
}
