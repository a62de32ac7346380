// The files of one run: what it reads, what it writes, and the writing itself (see commands.h).
//
// Every output is declared before any work. Declaring checks it (a folder that exists and takes a
// new file, not a folder itself, not an input of the run, not another output) and, for a regular
// file, creates the temporary file it will be written through: mkstemp beside the file the path
// finally names (a symlink is written through, never replaced), so a name that is already there
// (a file, a link planted at a predictable name) is never opened. The run writes into the
// temporary files; commit_outputs() renames them over their targets, one after the other, once
// every one of them is complete, and only then prints what goes to stdout or a device. Any error
// before that removes them all (discard_outputs, also on SIGINT/SIGTERM/SIGHUP): a failed run
// leaves every file as it found it.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fcntl.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "errors.h"
#include "input_file.h"
#include "printable.h"

namespace attn::cli {

namespace fs = std::filesystem;

namespace {

struct Input {
  std::string flag, path;
  bool folder = false;
};

struct Output {
  std::string flag, path;
  std::string target;        // the file the path finally names (links followed)
  bool deferred = false;     // stdout ("-") or a device/FIFO: written in place at commit
  std::string write_path;    // deferred: where commit writes ("-" for stdout named as a file)
  std::string tmp;           // the temporary file beside target (regular files)
  int fd = -1;               // open on tmp until written
  bool written = false;
  std::function<void()> write_later;  // deferred outputs: what commit writes
};

struct SaveFolder {
  std::string flag, path, target, parent, tmp;
  std::vector<std::string> made;  // parent folders this run created (mkdir -p), removed again on failure
  bool replace = false;  // the target exists (empty, or --force)
  mode_t mode = 0;
};

std::vector<Input> g_inputs;
std::vector<Output> g_outputs;
std::optional<SaveFolder> g_save;

// Temporary names for the signal handler: unlinked on SIGINT/SIGTERM/SIGHUP (a fixed table, so
// the handler only reads memory and calls unlink/rmdir).
constexpr int kMaxTemps = 16;
char g_temp_names[kMaxTemps][4096];
volatile sig_atomic_t g_temp_count = 0;
char g_temp_dir[4096];
// the parent folders --save made (mkdir -p), deepest last: removed after the temporary folder
constexpr int kMaxMadeDirs = 16;
char g_made_dirs[kMaxMadeDirs][4096];
volatile sig_atomic_t g_made_count = 0;

void remember_temp(const std::string& name) {
  if (g_temp_count < kMaxTemps && name.size() < sizeof g_temp_names[0]) {
    std::memcpy(g_temp_names[g_temp_count], name.c_str(), name.size() + 1);
    g_temp_count = g_temp_count + 1;
  }
}

void forget_temps() {
  g_temp_count = 0;
  g_made_count = 0;
  g_temp_dir[0] = '\0';
}

void remember_made_dirs(const std::vector<std::string>& dirs) {
  g_made_count = 0;
  for (const std::string& d : dirs)
    if (g_made_count < kMaxMadeDirs && d.size() < sizeof g_made_dirs[0]) {
      std::memcpy(g_made_dirs[g_made_count], d.c_str(), d.size() + 1);
      g_made_count = g_made_count + 1;
    }
}

void remove_tree(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

extern "C" void on_fatal_signal(int sig) {
  for (int i = 0; i < g_temp_count; ++i) ::unlink(g_temp_names[i]);
  if (g_temp_dir[0] != '\0') {  // the checkpoint's temporary folder: its files, then itself
    static const char* const names[] = {"config.json", "model.safetensors", "training.json", "tokenizer.json"};
    char buf[4200];
    for (const char* n : names) {
      std::size_t a = std::strlen(g_temp_dir), b = std::strlen(n);
      if (a + 1 + b < sizeof buf) {
        std::memcpy(buf, g_temp_dir, a);
        buf[a] = '/';
        std::memcpy(buf + a + 1, n, b + 1);
        ::unlink(buf);
      }
    }
    ::rmdir(g_temp_dir);
  }
  for (int i = g_made_count - 1; i >= 0; --i) ::rmdir(g_made_dirs[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_cleanup() {
  static bool done = false;
  if (done) return;
  done = true;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

[[noreturn]] void cannot_write(const std::string& flag, const std::string& path) {
  throw UsageError("cli.err.write_open", {{"flag", flag}, {"path", path}});
}
[[noreturn]] void write_failed(const std::string& flag, const std::string& path, int e) {
  throw WriteError("cli.err.write_failed", {{"flag", flag}, {"path", path}, {"reason", io_reason(e)}, {"errno", e}});
}

bool same_inode(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

fs::path absolute_path(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return ec ? fs::path(p) : a.lexically_normal();
}

std::string folder_of(const std::string& file) {
  fs::path parent = fs::path(file).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// The name a path finally stands for: symbolic links followed one by one (a dangling link gives the
// name it points at, which the run will create). A loop or a chain of more than 40 is refused.
std::string final_target(const std::string& flag, const std::string& path) {
  std::string p = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> buf(4096);
    ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n <= 0) return p;
    std::string link(buf.data(), static_cast<std::size_t>(n));
    p = link[0] == '/' ? link : (fs::path(folder_of(p)) / link).string();
  }
  cannot_write(flag, path);
}

// What the path IS decides how it is written, never how it is spelled: a device, a FIFO or a
// socket that exists is written in place (nothing to replace, no folder for a temporary file); so
// is standard output named as a file (/dev/stdout, /proc/self/fd/1 when stdout is a regular file,
// which the shell holds open). Anything else, a regular file under /dev/shm or reached through
// /proc/self/cwd included, is a file: checked against the inputs and replaced through a temporary.
bool is_stdout(const std::string& path) {
  struct stat st {}, so {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::fstat(STDOUT_FILENO, &so) == 0 && same_inode(st, so);
}
bool written_in_place(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) || is_stdout(path);
}

// The folder of a path as the file system names it (links, "..", /proc/self/cwd resolved) and the
// file's own name: two spellings of one new file compare equal.
std::string resolved(const std::string& path) {
  fs::path p(path);
  std::vector<char> buf(PATH_MAX + 1);
  if (::realpath(folder_of(path).c_str(), buf.data()) == nullptr) return absolute_path(path).string();
  return (fs::path(buf.data()) / p.filename()).string();
}

// An existing file (by inode) or, for a name not yet there, the same absolute path.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return same_inode(sa, sb);
  if (ea != eb) return false;
  return absolute_path(a) == absolute_path(b) || resolved(a) == resolved(b);
}

// Does `folder` hold `file` (one of its entries, by inode)? For an input folder (a checkpoint):
// an output may add a file to it, never replace one it holds.
bool folder_holds(const std::string& folder, const std::string& file) {
  struct stat sf {};
  if (::stat(file.c_str(), &sf) != 0) return false;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    struct stat se {};
    if (::stat(e.path().c_str(), &se) == 0 && same_inode(se, sf)) return true;
  }
  return false;
}

// Is `path` inside `folder` (the folder itself or below it)? By absolute names, and by the inode
// of the path's own folder (a link to the folder).
bool inside(const std::string& path, const std::string& folder) {
  fs::path p = absolute_path(path), f = absolute_path(folder);
  auto [fi, pi] = std::mismatch(f.begin(), f.end(), p.begin(), p.end());
  if (fi == f.end() || (std::next(fi) == f.end() && fi->empty())) return true;
  struct stat sp {}, sf {};
  return ::stat(folder_of(path).c_str(), &sp) == 0 && ::stat(folder.c_str(), &sf) == 0 && same_inode(sp, sf);
}

// The files a checkpoint folder may hold: attnlab's and Hugging Face's own names. --save replaces a
// folder only when it holds these and nothing else (a project folder is never a checkpoint).
bool checkpoint_file_name(const std::string& n) {
  static const char* const names[] = {"config.json", "training.json", "tokenizer.json", "tokenizer_config.json",
                                      "special_tokens_map.json", "generation_config.json", "vocab.json", "merges.txt"};
  for (const char* k : names)
    if (n == k) return true;
  auto ends = [&](const std::string& suffix) { return n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0; };
  return ends(".safetensors") || ends(".safetensors.index.json");
}

// Does the folder hold a checkpoint (config.json and weights) and nothing else? `foreign` names the
// first entry that does not belong to one (or config.json when it is missing).
bool holds_only_checkpoint(const std::string& folder, std::string& foreign) {
  std::error_code ec;
  bool config = false, weights = false;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string n = e.path().filename().string();
    struct stat st {};
    // a file, or a link to one (a Hugging Face cache's snapshot links its files to blobs)
    if (::lstat(e.path().c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) || !checkpoint_file_name(n)) {
      foreign = n;
      return false;
    }
    config = config || n == "config.json";
    weights = weights || n.find(".safetensors") != std::string::npos;
  }
  if (ec) {
    foreign = ".";
    return false;
  }
  if (!config || !weights) foreign = "";  // the message says: no config.json and weights
  return config && weights;
}

// The old checkpoint, swapped out to a temporary name: its own files removed by name, then the
// folder; anything else found there is left where it is (nothing is removed that was not checked).
void remove_checkpoint(const std::string& folder) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
        checkpoint_file_name(e.path().filename().string()))  // a link itself, never what it names
      files.push_back(e.path());
  }
  for (const fs::path& f : files) ::unlink(f.c_str());
  ::rmdir(folder.c_str());
}

// The permissions a file gets: those of the file it replaces, or what a plain open would give.
void set_mode(int fd, const std::string& target) {
#ifdef __EMSCRIPTEN__
  return;  // the book's page: files in its memory, no owners or modes to keep (3.1.6's fchmod left 0)
#endif
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    ::fchmod(fd, st.st_mode & 07777);
    if (::geteuid() == 0 && ::fchown(fd, st.st_uid, st.st_gid) != 0) {
      // keeping the owner is best effort (a filesystem without owners)
    }
    return;
  }
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
}

void check_against_inputs(const std::string& flag, const std::string& path, const std::string& target) {
  for (const Input& in : g_inputs) {
    bool clash = in.folder ? folder_holds(in.path, target) : same_file(in.path, target);
    if (clash) throw UsageError("cli.err.output_is_input", {{"flag", flag}, {"path", path}, {"input_flag", in.flag}, {"input", in.path}});
  }
  if (g_save && inside(target, g_save->target))
    throw UsageError("cli.err.output_in_save", {{"flag", flag}, {"path", path}, {"save_flag", g_save->flag}, {"folder", g_save->path}});
}

Output* find_output(const std::string& flag, const std::string& path) {
  for (Output& o : g_outputs)
    if (o.flag == flag && o.path == path) return &o;
  return nullptr;
}

// Into the temporary file (or, deferred, at commit): write(FILE*) returns false if a write failed.
void write_into(Output& o, const std::function<bool(std::FILE*)>& write) {
  if (o.written) throw std::logic_error("an output written twice: " + o.flag);
  o.written = true;
  std::FILE* f = ::fdopen(o.fd, "wb");
  if (f == nullptr) {
    int e = errno;
    ::close(o.fd);
    o.fd = -1;
    write_failed(o.flag, o.path, e);
  }
  o.fd = -1;
  errno = 0;
  bool ok = write(f);
  int e = errno;
  if (std::fflush(f) != 0 || std::ferror(f)) ok = false, e = e != 0 ? e : errno;
  if (std::fclose(f) != 0) ok = false, e = e != 0 ? e : errno;
  if (!ok) write_failed(o.flag, o.path, e != 0 ? e : EIO);
}

void write_in_place(const std::string& flag, const std::string& path, const std::function<bool(std::FILE*)>& write) {
  if (path == "-") {
    std::fflush(stdout);
    errno = 0;
    if (!write(stdout) || std::fflush(stdout) != 0 || std::ferror(stdout))
      throw WriteError("input.err.stdout_write", {{"reason", io_reason(errno)}, {"errno", errno}});
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) cannot_write(flag, path);
  errno = 0;
  bool ok = write(f);
  int e = errno;
  if (std::fflush(f) != 0 || std::ferror(f)) ok = false, e = e != 0 ? e : errno;
  if (std::fclose(f) != 0) ok = false, e = e != 0 ? e : errno;
  if (!ok) write_failed(flag, path, e != 0 ? e : EIO);
}

}  // namespace

// An input's name reaches the JSON, HTML and terminal outputs (a trace records its sources): UTF-8
// text without control characters, or refused before any work.
void require_clean_name(const std::string& flag, const std::string& path) {
  if (!is_clean_text(path)) throw UsageError("cli.err.path_not_text", {{"flag", flag}, {"path", printable(path)}});
}

void declare_input(const std::string& flag, const std::string& path) {
  if (path.empty() || path == "-") return;
  require_clean_name(flag, path);
  g_inputs.push_back({flag, path, false});
  for (const Output& o : g_outputs)
    if (o.path != "-" && same_file(path, o.target))
      throw UsageError("cli.err.output_is_input", {{"flag", o.flag}, {"path", o.path}, {"input_flag", flag}, {"input", path}});
}

void declare_input_folder(const std::string& flag, const std::string& folder) {
  require_clean_name(flag, folder);
  g_inputs.push_back({flag, folder, true});
  for (const Output& o : g_outputs)
    if (o.path != "-" && folder_holds(folder, o.target))
      throw UsageError("cli.err.output_is_input", {{"flag", o.flag}, {"path", o.path}, {"input_flag", flag}, {"input", folder}});
}

void declare_output(const std::string& flag, const std::string& path) {
  if (find_output(flag, path) != nullptr) return;
  for (const Output& o : g_outputs) require_distinct_outputs(o.flag, o.path, flag, path);
  Output o;
  o.flag = flag, o.path = path;
  if (path == "-" || written_in_place(path)) {
    o.deferred = true;
    o.target = path;
    o.write_path = path == "-" || is_stdout(path) ? "-" : path;  // stdout's own stream, never reopened
    if (path != "-") {
      if (::access(path.c_str(), W_OK) != 0) cannot_write(flag, path);
      check_against_inputs(flag, path, path);  // stdout named as a file may be an input (by inode)
    }
    g_outputs.push_back(std::move(o));
    return;
  }
  o.target = final_target(flag, path);
  if (fs::path(o.target).filename().empty()) cannot_write(flag, path);
  o.target = resolved(o.target);
  check_against_inputs(flag, path, o.target);
  struct stat st {};
  if (::stat(o.target.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw UsageError("cli.err.output_is_folder", {{"flag", flag}, {"path", path}});
  const std::string dir = folder_of(o.target);
  struct stat sd {};
  if (::stat(dir.c_str(), &sd) != 0 || !S_ISDIR(sd.st_mode))
    throw UsageError("cli.err.output_no_folder", {{"flag", flag}, {"path", path}, {"folder", dir}});
  // The temporary file, created now and exclusively: the proof that the folder takes a new file,
  // before any work; a name already there is never opened.
  std::string tmp = (fs::path(dir) / ("." + fs::path(o.target).filename().string() + ".attnlab-XXXXXX")).string();
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  install_signal_cleanup();
  o.fd = ::mkstemp(name.data());
  if (o.fd < 0) cannot_write(flag, path);
  o.tmp = name.data();
  remember_temp(o.tmp);
  set_mode(o.fd, o.target);
  g_outputs.push_back(std::move(o));
}

void declare_save_folder(const std::string& flag, const std::string& path, bool force) {
  SaveFolder s;
  s.flag = flag, s.path = path;
  s.target = final_target(flag, path);
  while (s.target.size() > 1 && s.target.back() == '/') s.target.pop_back();
  struct stat st {};
  if (::stat(s.target.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw UsageError("train.err.save_not_folder", {{"flag", flag}, {"path", path}});
    std::error_code ec;
    bool empty = fs::is_empty(s.target, ec);
    if (ec) cannot_write(flag, path);
    if (!empty) {  // only a checkpoint is ever replaced, and only with --force
      std::string foreign;
      if (!holds_only_checkpoint(s.target, foreign))
        throw UsageError("train.err.save_foreign", {{"flag", flag}, {"path", path}, {"entry", foreign.empty() ? "__none" : foreign}});
      if (!force) throw UsageError("train.err.save_not_empty", {{"flag", flag}, {"path", path}});
    }
    // The folder is renamed at the end: a mount point, the working folder or a folder above it
    // cannot be (EBUSY after the whole training), so they are refused now.
    struct stat up {}, cwd {};
    if (::stat(".", &cwd) == 0 && (same_inode(cwd, st) || inside(fs::current_path(ec).string(), s.target)))
      throw UsageError("train.err.save_cwd", {{"flag", flag}, {"path", path}});
    std::vector<char> real(PATH_MAX + 1);
    const std::string above = ::realpath(s.target.c_str(), real.data()) != nullptr ? folder_of(real.data()) : folder_of(s.target);
    if (::stat(above.c_str(), &up) == 0 && (up.st_dev != st.st_dev || same_inode(up, st)))
      throw UsageError("train.err.save_mount", {{"flag", flag}, {"path", path}});
    s.replace = true;
    s.mode = st.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    s.mode = 0777 & ~mask;
  }
  s.parent = folder_of(s.target);
  // missing parent folders are made now, as mkdir -p would (and removed again if the run fails)
  for (fs::path p = s.parent; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    struct stat sp {};
    if (::stat(p.c_str(), &sp) == 0) break;
    s.made.insert(s.made.begin(), p.string());
  }
  for (const std::string& dir : s.made)
    if (::mkdir(dir.c_str(), 0777) != 0) {
      for (auto it = s.made.rbegin(); it != s.made.rend(); ++it) ::rmdir(it->c_str());
      throw UsageError("cli.err.output_no_folder", {{"flag", flag}, {"path", path}, {"folder", s.parent}});
    }
  struct stat sp {};
  if (::stat(s.parent.c_str(), &sp) != 0 || !S_ISDIR(sp.st_mode))
    throw UsageError("cli.err.output_no_folder", {{"flag", flag}, {"path", path}, {"folder", s.parent}});
  for (const Input& in : g_inputs)
    if (in.folder ? same_file(in.path, s.target) : inside(in.path, s.target))
      throw UsageError("cli.err.output_is_input", {{"flag", flag}, {"path", path}, {"input_flag", in.flag}, {"input", in.path}});
  for (const Output& o : g_outputs)
    if (!o.deferred && inside(o.target, s.target))
      throw UsageError("cli.err.output_in_save", {{"flag", o.flag}, {"path", o.path}, {"save_flag", flag}, {"folder", path}});
  std::string tmp = (fs::path(s.parent) / ("." + fs::path(s.target).filename().string() + ".attnlab-XXXXXX")).string();
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  install_signal_cleanup();
  if (::mkdtemp(name.data()) == nullptr) {
    for (auto it = s.made.rbegin(); it != s.made.rend(); ++it) ::rmdir(it->c_str());
    cannot_write(flag, path);
  }
  s.tmp = name.data();
  if (s.tmp.size() < sizeof g_temp_dir) std::memcpy(g_temp_dir, s.tmp.c_str(), s.tmp.size() + 1);
  remember_made_dirs(s.made);
  g_save = std::move(s);
}

void write_save_file(const std::string& name, const std::string& bytes) {
  if (!g_save) throw std::logic_error("write_save_file without declare_save_folder");
  const std::string file = g_save->tmp + "/" + name;
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) write_failed(g_save->flag, g_save->path, errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      ::close(fd);
      write_failed(g_save->flag, g_save->path, e);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) write_failed(g_save->flag, g_save->path, errno);
}

void write_output_with(const std::string& flag, const std::string& path, const std::function<bool(std::FILE*)>& write) {
  Output* o = find_output(flag, path);
  if (o == nullptr) {  // not declared: checked now (every command declares its outputs first)
    declare_output(flag, path);
    o = find_output(flag, path);
  }
  if (o->deferred) {
    o->write_later = [flag, at = o->write_path, write] { write_in_place(flag, at, write); };
    return;
  }
  write_into(*o, write);
}

void write_output(const std::string& flag, const std::string& path, const std::string& text) {
  Output* o = find_output(flag, path);
  if (o == nullptr) {
    declare_output(flag, path);
    o = find_output(flag, path);
  }
  auto put = [](const std::string& s) {
    return [s](std::FILE* f) { return std::fwrite(s.data(), 1, s.size(), f) == s.size(); };
  };
  if (o->deferred) {
    o->write_later = [flag, at = o->write_path, write = put(text)] { write_in_place(flag, at, write); };
    return;
  }
  write_into(*o, put(text));
}

void write_page(const std::string& flag, const std::string& path, const std::string& page) { write_output(flag, path, page); }

void commit_outputs() {
  // Devices, FIFOs and stdout first, while every file is still as the run found it: a write that
  // fails there (/dev/full, a closed pipe) leaves no file replaced. Then every file (all complete by
  // now), then the checkpoint folder.
  for (Output& o : g_outputs) {
    if (!o.deferred) {
      if (!o.written) throw std::logic_error("an output declared but never written: " + o.flag);
      continue;
    }
    if (!o.write_later) continue;
    auto write = std::move(o.write_later);
    o.write_later = nullptr;
    write();  // throws WriteError: main discards the temporaries
  }
  // the checkpoint folder first: the step most likely to fail (another run, a busy folder)
  if (g_save) {
    SaveFolder& s = *g_save;
    ::chmod(s.tmp.c_str(), s.mode);
    std::error_code ec;
    bool empty = !s.replace || fs::is_empty(s.target, ec);
    // what is there now must still be a checkpoint and nothing else (another program may have
    // written into the folder while this run trained)
    std::string foreign;
    if (!empty && !holds_only_checkpoint(s.target, foreign)) {
      discard_outputs();
      throw WriteError("train.err.save_foreign", {{"flag", s.flag}, {"path", s.path}, {"entry", foreign.empty() ? "__none" : foreign}});
    }
    int rc = 0;
    std::string old;
    if (empty) {
      rc = std::rename(s.tmp.c_str(), s.target.c_str());  // over an empty folder, or a new name
    } else {
      // --force over a checkpoint: swap the two folders in one step, then remove the old one
#ifdef __EMSCRIPTEN__
      rc = -1;  // the book's page saves no checkpoint (train is the CLI's); no renameat2 there
      errno = ENOSYS;
#else
      rc = ::renameat2(AT_FDCWD, s.tmp.c_str(), AT_FDCWD, s.target.c_str(), RENAME_EXCHANGE);
#endif
      if (rc == 0) old = s.tmp;
    }
    if (rc != 0) {
      int e = errno;
      discard_outputs();
      write_failed(s.flag, s.path, e);
    }
    if (!old.empty()) remove_checkpoint(old);
    g_save.reset();
  }
  for (Output& o : g_outputs) {
    if (o.deferred) continue;
    if (std::rename(o.tmp.c_str(), o.target.c_str()) != 0) {
      int e = errno;
      discard_outputs();
      write_failed(o.flag, o.path, e);
    }
    o.tmp.clear();
  }
  forget_temps();
  g_outputs.clear();
  g_inputs.clear();
}

void discard_outputs() {
  for (Output& o : g_outputs) {
    if (o.fd >= 0) ::close(o.fd);
    if (!o.tmp.empty()) ::unlink(o.tmp.c_str());
  }
  g_outputs.clear();
  if (g_save) {
    remove_tree(g_save->tmp);
    for (auto it = g_save->made.rbegin(); it != g_save->made.rend(); ++it) ::rmdir(it->c_str());
  }
  g_save.reset();
  g_inputs.clear();
  forget_temps();
}

void require_distinct_outputs(const std::string& a_flag, const std::string& a, const std::string& b_flag, const std::string& b) {
  if (a == "-" && b == "-") throw UsageError("cli.err.both_stdout", {{"a_flag", a_flag}, {"b_flag", b_flag}});
  if (a == "-" || b == "-") {
    // "-" and a name for stdout itself (/dev/stdout, /proc/self/fd/1, the terminal's own device):
    // the same file as standard output, unless that is /dev/null
    const std::string& path = a == "-" ? b : a;
    struct stat so {}, sp {};
    if (::fstat(STDOUT_FILENO, &so) == 0 && ::stat(path.c_str(), &sp) == 0 && same_inode(so, sp) &&
        !(S_ISCHR(sp.st_mode) && path == "/dev/null"))
      throw UsageError("cli.err.both_stdout", {{"a_flag", a_flag}, {"b_flag", b_flag}});
    return;
  }
  // One file: the same words, the same path once made absolute ("./x" and "/cwd/x"), or, when both
  // exist, the same device and inode (a link). /dev/null twice throws both away, which is harmless.
  struct stat sa {};
  bool a_exists = ::stat(a.c_str(), &sa) == 0;
  bool same = a == b || same_file(a, b) || (final_target(a_flag, a) == final_target(b_flag, b));
  if (same && a_exists && S_ISCHR(sa.st_mode) && a == "/dev/null") return;
  if (same) throw UsageError("cli.err.same_output", {{"a_flag", a_flag}, {"b_flag", b_flag}, {"path", a}});
}

}  // namespace attn::cli
