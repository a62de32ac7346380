#include "input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

#include "errors.h"

namespace attn {

namespace {
// A short code for the catalog's {reason, select, …}: the words are the catalog's.
std::string errno_code(int e) {
  switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EISDIR: return "EISDIR";
    case EIO: return "EIO";
    case ENOSPC: return "ENOSPC";
    case EDQUOT: return "EDQUOT";
    case EFBIG: return "EFBIG";
    case EPIPE: return "EPIPE";
    case ENOTDIR: return "ENOTDIR";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ELOOP: return "ELOOP";
    default: return "other";
  }
}
}  // namespace

std::string io_reason(int e) { return errno_code(e); }

std::uint64_t require_regular_file(const std::string& path, const std::string& flag) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int e = errno;
    throw UsageError("input.err.file_open", {{"flag", flag}, {"path", path}, {"reason", errno_code(e)}, {"errno", e}});
  }
  if (S_ISDIR(st.st_mode)) throw UsageError("input.err.file_directory", {{"flag", flag}, {"path", path}});
  if (!S_ISREG(st.st_mode)) throw UsageError("input.err.file_not_regular", {{"flag", flag}, {"path", path}});
  return static_cast<std::uint64_t>(st.st_size);
}

std::string read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& flag) {
  std::uint64_t size = require_regular_file(path, flag);
  if (size > max_bytes)
    throw UsageError("input.err.file_too_large", {{"flag", flag}, {"path", path}, {"size", size}, {"max", max_bytes}});
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    int e = errno;
    throw UsageError("input.err.file_open", {{"flag", flag}, {"path", path}, {"reason", errno_code(e)}, {"errno", e}});
  }
  std::string text;
  char buf[65536];
  bool failed = false, too_large = false;
  int e = 0;
  for (;;) {
    std::size_t n = std::fread(buf, 1, sizeof buf, f);
    if (n > 0) {
      if (text.size() + n > max_bytes) {  // the file grew since stat
        too_large = true;
        break;
      }
      text.append(buf, n);
    }
    if (n < sizeof buf) {
      if (std::ferror(f)) {
        failed = true;
        e = errno;
      }
      break;
    }
  }
  std::fclose(f);
  if (too_large)
    throw UsageError("input.err.file_too_large", {{"flag", flag}, {"path", path}, {"size", text.size()}, {"max", max_bytes}});
  if (failed)
    throw UsageError("input.err.file_read", {{"flag", flag}, {"path", path}, {"reason", errno_code(e)}, {"errno", e}});
  return text;
}

}  // namespace attn
