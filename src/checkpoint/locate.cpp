// --weights resolution: a folder, or a model id in the local Hugging Face cache. See locate.h.
#include "locate.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "errors.h"
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

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// The snapshot of one cache repo folder, or "".
std::string snapshot_of(const std::string& repo) {
  std::ifstream ref(repo + "/refs/main");
  std::string rev;
  if (ref && std::getline(ref, rev)) {
    rev = trim(rev);
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

}  // namespace

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
  throw UsageError("checkpoint.err.not_cached", {{"id", spec}, {"looked", looked}});
}

}  // namespace attn
