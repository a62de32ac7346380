// --weights resolution: a folder, or a model id in the local Hugging Face cache. See locate.h.
#include "locate.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "errors.h"
#include "input_file.h"
#include "printable.h"

namespace attn {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : std::string(v);
}

bool is_dir(const std::string& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
bool is_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool has_weights(const std::string& dir) {
  return is_file(dir + "/model.safetensors") || is_file(dir + "/model.safetensors.index.json");
}

// A model id: ORG/NAME or NAME, letters, digits, '-', '_', '.'; not a path.
bool looks_like_id(const std::string& s) {
  if (s.empty() || s[0] == '.' || s[0] == '/' || s[0] == '~') return false;
  int slashes = 0;
  for (char c : s) {
    if (c == '/') ++slashes;
    else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  }
  return slashes <= 1 && s.back() != '/';
}

std::string fmt_hex(std::uint64_t h) {
  static const char* digits = "0123456789abcdef";
  std::string s(12, '0');
  for (int i = 11; i >= 0; --i, h >>= 4) s[static_cast<std::size_t>(i)] = digits[h & 15];
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// The snapshot of one cache repo folder, or "".
std::string snapshot_of(const std::string& repo) {
  // refs/main holds one commit hash: a regular file of at most 1 KiB (a FIFO or a link to /dev/zero
  // there is refused, not waited on or read without end); anything else falls back to the scan
  std::string rev;
  if (is_file(repo + "/refs/main")) {
    try {
      rev = read_regular_file(repo + "/refs/main", 1024, "--weights");
    } catch (const UsageError&) {
      rev.clear();
    }
    rev = trim(rev.substr(0, rev.find('\n')));
    std::string dir = repo + "/snapshots/" + rev;
    if (!rev.empty() && rev.find('/') == std::string::npos && is_file(dir + "/config.json")) return dir;
  }
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(repo + "/snapshots", ec))
    if (is_file(e.path().string() + "/config.json")) found.push_back(e.path().string());
  if (found.empty()) return "";
  std::sort(found.begin(), found.end());
  return found.back();
}

// FNV-1a over the files' names and bytes: the cache folder's name changes when the model does.
std::uint64_t fnv1a(std::uint64_t h, std::string_view s) {
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

std::vector<EmbeddedFile> builtin_files(const std::string& name) {
  std::vector<EmbeddedFile> out;
  const std::string prefix = "trained/" + name + "/";
  for (const EmbeddedFile& f : embedded_files())
    if (f.path.substr(0, prefix.size()) == prefix && f.path.find('/', prefix.size()) == std::string_view::npos) out.push_back(f);
  return out;
}

bool same_bytes(const std::string& path, std::string_view bytes) {
  try {
    return read_regular_file(path, bytes.size(), "--weights") == bytes;
  } catch (const UsageError&) {
    return false;
  }
}

// Where built-in models are written: attnlab's own cache folder (made if missing), else "".
std::string attnlab_cache() {
  std::string base = !env("XDG_CACHE_HOME").empty() ? env("XDG_CACHE_HOME") : env("HOME").empty() ? "" : env("HOME") + "/.cache";
  if (base.empty()) return "";
  std::error_code ec;
  fs::create_directories(base + "/attnlab", ec);
  return is_dir(base + "/attnlab") && ::access((base + "/attnlab").c_str(), W_OK | X_OK) == 0 ? base + "/attnlab" : "";
}

std::vector<std::pair<std::string, std::string>>& labels() {  // folder -> name
  static std::vector<std::pair<std::string, std::string>> l;
  return l;
}

// Write the files into a new private folder beside `dir` and rename it to `dir` (another run that
// got there first wins; its files are the same bytes).
bool write_model_folder(const std::string& parent, const std::string& dir, const std::vector<EmbeddedFile>& files) {
  std::string tmpl = parent + "/.tmp-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) return false;
  const std::string tmp = name.data();
  bool ok = true;
  for (const EmbeddedFile& f : files) {
    std::string file = tmp + "/" + std::string(f.path.substr(f.path.rfind('/') + 1));
    std::FILE* out = std::fopen(file.c_str(), "wbx");
    ok = ok && out != nullptr && std::fwrite(f.contents.data(), 1, f.contents.size(), out) == f.contents.size();
    if (out != nullptr) ok = std::fclose(out) == 0 && ok;
  }
  ::chmod(tmp.c_str(), 0755);
  std::error_code ec;
  if (!ok || std::rename(tmp.c_str(), dir.c_str()) != 0) fs::remove_all(tmp, ec);
  return ok && is_dir(dir);
}

// The folder holding a built-in model's files, written there first if it is not yet; "" if `name`
// is not a built-in model.
std::string builtin_folder(const std::string& name) {
  std::vector<EmbeddedFile> files = builtin_files(name);
  if (files.empty()) return "";
  std::uint64_t h = 1469598103934665603ULL;
  for (const EmbeddedFile& f : files) h = fnv1a(fnv1a(h, f.path), f.contents);
  const std::string leaf = name + "-" + fmt_hex(h);
  auto complete = [&](const std::string& dir) {
    for (const EmbeddedFile& f : files)
      if (!same_bytes(dir + "/" + std::string(f.path.substr(f.path.rfind('/') + 1)), f.contents)) return false;
    return true;
  };
  std::string cache = attnlab_cache();
  std::string dir;
  if (!cache.empty()) {
    dir = cache + "/" + leaf;
    if (!(is_dir(dir) && complete(dir)) && !(write_model_folder(cache, dir, files) && complete(dir))) dir.clear();
  }
  if (dir.empty()) {  // no cache to write to: a private folder for this run, removed at exit
    static std::vector<std::string> temps;
    std::string base = env("TMPDIR").empty() ? "/tmp" : env("TMPDIR");
    std::string tmpl = base + "/attnlab-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) throw UsageError("checkpoint.err.builtin_write", {{"name", name}, {"folder", base}});
    if (temps.empty()) std::atexit([] {
      std::error_code ec;
      for (const std::string& t : temps) fs::remove_all(t, ec);
    });
    temps.push_back(buf.data());
    dir = std::string(buf.data()) + "/" + leaf;
    if (!write_model_folder(buf.data(), dir, files)) throw UsageError("checkpoint.err.builtin_write", {{"name", name}, {"folder", base}});
  }
  labels().push_back({dir, name});
  return dir;
}

}  // namespace

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path.substr(0, 8) != "trained/") continue;
    std::size_t slash = f.path.find('/', 8);
    if (slash == std::string_view::npos || f.path.substr(slash + 1) != "config.json") continue;
    names.emplace_back(f.path.substr(8, slash - 8));
  }
  return names;
}

std::optional<std::string> builtin_sample_text(const std::string& name) {
  const auto names = builtin_model_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) return std::nullopt;
  auto file = embedded_file("trained/samples.json");
  if (!file) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*file);  // our own file, compiled in
  if (!j.contains(name) || !j[name].is_string()) return std::nullopt;
  return j[name].get<std::string>();
}

std::string weights_label(const std::string& folder) {
  for (const auto& [dir, name] : labels())
    if (dir == folder) return name;
  return folder;
}

std::string hf_hub_cache() {
  if (!env("HF_HUB_CACHE").empty()) return env("HF_HUB_CACHE");
  if (!env("HF_HOME").empty()) return env("HF_HOME") + "/hub";
  if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/huggingface/hub";
  return env("HOME") + "/.cache/huggingface/hub";
}

std::string resolve_weights(const std::string& spec) {
  // the folder is shown in the lessons' text and traces: no escape sequence may ride along
  if (!is_clean_text(spec)) throw UsageError("checkpoint.err.path_control", {{"path", spec}});
  if (is_dir(spec)) {
    if (!is_file(spec + "/config.json")) throw UsageError("checkpoint.err.no_config", {{"folder", spec}});
    if (!has_weights(spec)) throw UsageError("checkpoint.err.no_weights", {{"folder", spec}});
    return spec;
  }
  if (std::error_code ec; fs::exists(spec, ec) && !is_dir(spec)) throw UsageError("checkpoint.err.weights_file", {{"path", spec}});
  if (std::string dir = builtin_folder(spec); !dir.empty()) return dir;
  if (!looks_like_id(spec)) throw UsageError("checkpoint.err.no_folder", {{"path", spec}});
  std::string cache = hf_hub_cache();
  // "gpt2" is also published as "openai-community/gpt2": either cache folder will do.
  std::vector<std::string> ids{spec};
  if (spec.find('/') == std::string::npos) ids.push_back("openai-community/" + spec);
  else if (spec.rfind("openai-community/", 0) == 0) ids.push_back(spec.substr(17));
  std::string looked;
  for (const std::string& id : ids) {
    // models--ORG--NAME: the id's '/' becomes "--".
    std::string name = "models--";
    for (char c : id) name += c == '/' ? std::string("--") : std::string(1, c);
    std::string repo = cache + "/" + name;
    looked += (looked.empty() ? "" : ", ") + repo;
    if (!is_dir(repo)) continue;
    std::string snap = snapshot_of(repo);
    if (snap.empty()) continue;
    if (!has_weights(snap)) throw UsageError("checkpoint.err.no_weights", {{"folder", snap}});
    return snap;
  }
  std::string builtins;
  for (const std::string& n : builtin_model_names()) builtins += (builtins.empty() ? "" : ", ") + n;
  throw UsageError("checkpoint.err.not_cached", {{"id", spec}, {"looked", looked}, {"builtins", builtins}});
}

}  // namespace attn
