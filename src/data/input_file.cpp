#include "input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"

namespace attn {

namespace {
// A short code for the catalog's {reason, select, …}: the words are the catalog's.
std::string errno_code(int e) {
  switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EISDIR: return "EISDIR";
    case ENOTDIR: return "ENOTDIR";
    case EIO: return "EIO";
    case ENOSPC: return "ENOSPC";
    case EDQUOT: return "EDQUOT";
    case EFBIG: return "EFBIG";
    case EPIPE: return "EPIPE";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ELOOP: return "ELOOP";
    case EBUSY: return "EBUSY";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EEXIST: return "EEXIST";
    case EROFS: return "EROFS";
    case EXDEV: return "EXDEV";
    case ETXTBSY: return "ETXTBSY";
    case ENOMEM: return "ENOMEM";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENXIO: return "ENXIO";
    case ENODEV: return "ENODEV";
    case EAGAIN: return "EAGAIN";
    case EINTR: return "EINTR";
    case ESTALE: return "ESTALE";
    case ENOSYS: return "ENOSYS";
    default: return "other";
  }
}
}  // namespace

std::string io_reason(int e) { return errno_code(e); }

namespace {
[[noreturn]] void open_failed(const std::string& path, const std::string& flag, int e) {
  throw UsageError("input.err.file_open", {{"flag", flag}, {"path", path}, {"reason", errno_code(e)}, {"errno", e}});
}
void require_regular(const struct stat& st, const std::string& path, const std::string& flag) {
  if (S_ISDIR(st.st_mode)) throw UsageError("input.err.file_directory", {{"flag", flag}, {"path", path}});
  if (!S_ISREG(st.st_mode)) throw UsageError("input.err.file_not_regular", {{"flag", flag}, {"path", path}});
}
}  // namespace

std::uint64_t require_regular_file(const std::string& path, const std::string& flag) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) open_failed(path, flag, errno);
  require_regular(st, path, flag);
  return static_cast<std::uint64_t>(st.st_size);
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& flag) {
  // Opened without waiting (a FIFO put there would block a plain open until a writer came), then
  // checked on the open file itself: what is read is what was checked, whatever was there before.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) open_failed(path, flag, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    ::close(fd);
    if (e != 0 && st.st_mode == 0) open_failed(path, flag, e);
    require_regular(st, path, flag);
  }
  auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    ::close(fd);
    throw UsageError("input.err.file_too_large", {{"flag", flag}, {"path", path}, {"size", size}, {"max", max_bytes}});
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(size));  // read whole into one allocation, not doubled as it grows
  char buf[65536];
  bool failed = false, too_large = false;
  int e = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      failed = true;
      e = errno;
      break;
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {  // the file grew since fstat
      too_large = true;
      break;
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (too_large)
    throw UsageError("input.err.file_too_large", {{"flag", flag}, {"path", path}, {"size", text.size()}, {"max", max_bytes}});
  if (failed)
    throw UsageError("input.err.file_read", {{"flag", flag}, {"path", path}, {"reason", errno_code(e)}, {"errno", e}});
  return text;
}

}  // namespace attn
