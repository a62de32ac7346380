// The progress file (see progress.h).
#include "progress.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "errors.h"
#include "input_file.h"

namespace attn::cli {

namespace {

constexpr std::size_t kMaxProgressBytes = 64 * 1024;

[[noreturn]] void refuse_progress(const std::string& path, const std::string& why_key, Args args = {}) {
  throw UsageError("course.err.progress", {{"path", path}, {"why", text()(why_key, args)}});
}

// "attention.1", "kv-memory.12": a lesson name (a-z, '-') and an exercise number.
bool is_exercise_id(const std::string& s) {
  std::size_t dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot > 32 || s.size() - dot - 1 == 0 || s.size() - dot - 1 > 3) return false;
  for (std::size_t i = 0; i < dot; ++i)
    if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '-')) return false;
  for (std::size_t i = dot + 1; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return s[dot + 1] != '0';
}

std::string state_folder() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/attnlab";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && home[0] != '\0' ? home : ".") + "/.local/state/attnlab";
}

}  // namespace

std::string progress_path() { return state_folder() + "/progress.json"; }

Progress read_progress() {
  const std::string path = progress_path();
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    refuse_progress(path, "course.why.unreadable");
  }
  if (!S_ISREG(st.st_mode)) refuse_progress(path, "course.why.not_regular");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxProgressBytes)
    refuse_progress(path, "course.why.too_large", {{"max", kMaxProgressBytes}});
  std::string bytes;
  try {
    bytes = read_regular_file(path, kMaxProgressBytes, "progress");
  } catch (const UsageError&) {
    refuse_progress(path, "course.why.unreadable");
  }
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, false);  // no exceptions: discarded on error
  if (j.is_discarded()) refuse_progress(path, "course.why.json");
  if (!j.is_object() || j.size() != 2 || !j.contains("schema") || j["schema"] != "attnlab.progress/1" ||
      !j.contains("done") || !j["done"].is_array())
    refuse_progress(path, "course.why.schema");
  Progress p;
  for (const auto& e : j["done"]) {
    if (!e.is_string() || !is_exercise_id(e.get<std::string>())) refuse_progress(path, "course.why.entry");
    p.done.insert(e.get<std::string>());
  }
  return p;
}

void record_exercise_done(const std::string& id) {
  Progress p = read_progress();  // a damaged file is refused here, before anything is written
  if (!p.done.insert(id).second) return;
  const std::string folder = state_folder(), path = progress_path();
  nlohmann::ordered_json j;
  j["schema"] = "attnlab.progress/1";
  j["done"] = std::vector<std::string>(p.done.begin(), p.done.end());
  const std::string doc = j.dump(2) + "\n";
  auto fail = [&](int e) { throw WriteError("course.err.progress_write", {{"path", path}, {"reason", io_reason(e)}}); };
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) fail(ec.value());
  const std::string tmp = folder + "/.progress.json." + std::to_string(::getpid()) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail(errno);
  std::size_t at = 0;
  while (at < doc.size()) {
    ssize_t n = ::write(fd, doc.data() + at, doc.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(e);
    }
    at += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    fail(e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    fail(e);
  }
}

bool reset_progress() {
  const std::string path = progress_path();
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;
  // Only a file or a link is removed (a folder of that name is refused, never emptied).
  if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) refuse_progress(path, "course.why.not_regular");
  if (::unlink(path.c_str()) != 0)
    throw WriteError("course.err.progress_write", {{"path", path}, {"reason", io_reason(errno)}});
  return true;
}

}  // namespace attn::cli
