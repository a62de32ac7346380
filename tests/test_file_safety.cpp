// A user's files are sacred (issue 31): every output is checked before any work, written through
// a temporary file made exclusively beside its target and renamed into place only when every
// output of the run is complete; a symlink is written through, a mode is kept, an input is never
// an output, train --save refuses a non-empty folder without --force and replaces it as a whole.
// The disk-full cases use a file-size limit (ulimit -f): a write past it fails with EFBIG, as on
// a full disk, without root.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_file_safety {

namespace fs = std::filesystem;

namespace {

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

struct Folder {
  std::string path;
  explicit Folder(const std::string& tag) {
    static int n = 0;
    path = "/tmp/attnlab_safety_" + std::to_string(::getpid()) + "_" + tag + "_" + std::to_string(n++);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  // every entry but those named: what a run left behind
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string checkpoint_copy(const Folder& f, const std::string& name) {
  std::string dir = f / name;
  fs::copy(std::string(ATTNLAB_TEST_DIR) + "/fixtures/checkpoints/tiny-gpt2", dir, fs::copy_options::recursive);
  return dir;
}

CliResult refused_fast(const std::string& args, const std::string& needle) {
  auto start = std::chrono::steady_clock::now();
  CliResult r = run_cli(args + " --lang en");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("attnlab " << args << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines_of(r.err) == 1);
  CHECK(r.err.find(needle) != std::string::npos);
  CHECK(seconds < 5.0);
  return r;
}

const char* kTinyTrain = "train --steps 3 --layers 1 --d-model 8 --heads 2 --batch 2";

}  // namespace

TEST_CASE("file safety: a link planted at a temporary-looking name is never followed", "[file-safety]") {
  Folder f("link");
  put(f / "victim", "victim's text");
  fs::create_symlink(f / "victim", f / "out.json.attnlab-tmp");
  CliResult r = run_cli("lesson mha --json " + (f / "out.json"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(f / "victim") == "victim's text");
  CHECK(slurp(f / "out.json").rfind("{", 0) == 0);
  // nothing else left beside the output (no temporary file)
  CHECK(f.entries() == std::vector<std::string>{"out.json", "out.json.attnlab-tmp", "victim"});
}

TEST_CASE("file safety: a replaced file keeps its mode, a symlinked output is written through", "[file-safety]") {
  Folder f("mode");
  put(f / "private.json", "old");
  ::chmod((f / "private.json").c_str(), 0600);
  REQUIRE(run_cli("lesson mha --json " + (f / "private.json")).code == 0);
  struct stat st {};
  REQUIRE(::stat((f / "private.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(slurp(f / "private.json") != "old");

  put(f / "real.html", "old page");
  fs::create_symlink("real.html", f / "link.html");  // relative, as ln -s makes it
  REQUIRE(run_cli("lesson mha --html " + (f / "link.html")).code == 0);
  CHECK(fs::is_symlink(f / "link.html"));
  CHECK(slurp(f / "real.html").find("<html") != std::string::npos);
  // a dangling link: the file it names is created
  fs::create_symlink("made.json", f / "dangling.json");
  REQUIRE(run_cli("lesson mha --json " + (f / "dangling.json")).code == 0);
  CHECK(fs::is_symlink(f / "dangling.json"));
  CHECK(fs::is_regular_file(f / "made.json"));
}

TEST_CASE("file safety: two outputs are both checked before any work, and neither is written when one cannot be", "[file-safety]") {
  Folder f("two");
  put(f / "ex.json", "keep me");
  refused_fast("lesson mha --html " + (f / "ex.json") + " --json /nonexistent/x.json", "--json: cannot write '/nonexistent/x.json'");
  CHECK(slurp(f / "ex.json") == "keep me");
  // --html - and a folder as --json: nothing printed (it was 52 KB of HTML, then exit 2)
  refused_fast("lesson mha --html - --json " + f.path, "--json: '" + f.path + "' is a folder");
  // train refuses before the first step (it trained to the end, then failed)
  refused_fast("train --steps 50000 --layers 1 --d-model 8 --heads 2 --batch 2 --json " + (f / "ex.json") + " --html /nonexistent/x.html",
               "--html: cannot write '/nonexistent/x.html'");
  CHECK(slurp(f / "ex.json") == "keep me");
  CHECK(f.entries() == std::vector<std::string>{"ex.json"});
}

TEST_CASE("file safety: an output that is an input of the same run is refused", "[file-safety]") {
  Folder f("inputs");
  std::string c = checkpoint_copy(f, "c");
  std::string config = slurp(c + "/config.json"), weights = slurp(c + "/model.safetensors");
  refused_fast("lesson mha --weights " + c + " --token-ids 1,2,3 --json " + c + "/config.json", "is a file this run reads (--weights");
  refused_fast("heads --weights " + c + " --token-ids 1,2,3 --html " + c + "/model.safetensors", "is a file this run reads (--weights");
  refused_fast("params --weights " + c + " --html " + c + "/config.json", "is a file this run reads");
  // through a link to the file: the same inode
  fs::create_symlink(c + "/config.json", f / "alias.json");
  refused_fast("lesson mha --weights " + c + " --token-ids 1,2,3 --json " + (f / "alias.json"), "is a file this run reads");
  CHECK(slurp(c + "/config.json") == config);
  CHECK(slurp(c + "/model.safetensors") == weights);
  // a new file inside the checkpoint folder is fine (it replaces nothing the run reads)
  CHECK(run_cli("lesson mha --weights " + c + " --token-ids 1,2,3 --json " + c + "/trace.json").code == 0);

  REQUIRE(run_cli("lesson attention --json " + (f / "t.json")).code == 0);
  std::string trace = slurp(f / "t.json");
  refused_fast("render " + (f / "t.json") + " --html " + (f / "t.json"), "is a file this run reads (render");
  CHECK(slurp(f / "t.json") == trace);
  refused_fast("kv-cache --config " + c + "/config.json --html " + c + "/config.json", "is a file this run reads (--config");

  std::string d = f / "d";
  refused_fast(std::string(kTinyTrain) + " --save " + d + " --json " + d + "/config.json", "is inside the folder --save writes");
  CHECK(!fs::exists(d));
}

TEST_CASE("file safety: train --save refuses a non-empty folder without --force and replaces it whole with it", "[file-safety]") {
  Folder f("save");
  std::string d = f / "ck";
  // files that are not a checkpoint (no config.json and weights): refused, with --force too
  fs::create_directories(d);
  put(d + "/vocab.json", "{}");
  put(d + "/merges.txt", "#");
  for (const char* force : {"", " --force"})
    refused_fast(std::string(kTinyTrain) + " --save " + d + force, "it has no config.json beside *.safetensors weights");
  CHECK(fs::exists(d + "/vocab.json"));
  // a checkpoint (with an old vocab.json of its own): refused without --force, replaced whole with it
  REQUIRE(run_cli(std::string(kTinyTrain) + " --save " + (f / "first")).code == 0);
  fs::remove_all(d);
  fs::rename(f / "first", d);
  put(d + "/vocab.json", "{}");
  refused_fast(std::string(kTinyTrain) + " --save " + d, "--save: the folder '" + d + "' holds a checkpoint; --force replaces it");
  CHECK(fs::exists(d + "/vocab.json"));
  CliResult r = run_cli(std::string(kTinyTrain) + " --save " + d + " --force");
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(d)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"config.json", "model.safetensors", "training.json"});  // no old vocab.json
  CHECK(f.entries() == std::vector<std::string>{"ck"});  // no temporary folder left
  // an empty folder, or a new one, needs no --force
  fs::create_directories(f / "empty");
  CHECK(run_cli(std::string(kTinyTrain) + " --save " + (f / "empty")).code == 0);
  CHECK(fs::exists(f / "empty/model.safetensors"));
  // a file where the folder should be
  put(f / "afile", "x");
  refused_fast(std::string(kTinyTrain) + " --save " + (f / "afile"), "is a file, not a folder");
}

TEST_CASE("file safety: a full disk mid-write leaves the old file or checkpoint whole and no temporary behind", "[file-safety]") {
  Folder f("full");
  // --json: the trace is far larger than 8 blocks; out.json keeps its old bytes
  put(f / "out.json", "old trace");
  CliResult r = run_cli("lesson mha --lang en --json " + (f / "out.json"), "ulimit -f 8; ");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(lines_of(r.err) == 1);
  CHECK(r.err.find("--json: cannot write to '" + (f / "out.json") + "': file too large") != std::string::npos);
  CHECK(slurp(f / "out.json") == "old trace");
  CHECK(f.entries() == std::vector<std::string>{"out.json"});

  // --save --force over an old checkpoint: the new weights do not fit, the old folder is untouched
  std::string d = f / "ck";
  REQUIRE(run_cli(std::string(kTinyTrain) + " --save " + d).code == 0);
  std::string old_weights = slurp(d + "/model.safetensors"), old_config = slurp(d + "/config.json");
  r = run_cli("train --steps 3 --layers 1 --d-model 64 --heads 2 --batch 2 --seed 7 --lang en --save " + d + " --force", "ulimit -f 40; ");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("--save: cannot write to '" + d + "': file too large") != std::string::npos);
  CHECK(slurp(d + "/model.safetensors") == old_weights);
  CHECK(slurp(d + "/config.json") == old_config);
  CHECK(f.entries() == std::vector<std::string>{"ck", "out.json"});
}

TEST_CASE("file safety: a FIFO as a tokenizer file or the cache's refs/main is refused, not waited on", "[file-safety]") {
  Folder f("fifo");
  std::string c = checkpoint_copy(f, "c");
  for (const char* name : {"vocab.json", "tokenizer.json"}) {
    std::string fifo = c + "/" + name;
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    if (std::string(name) == "vocab.json") put(c + "/merges.txt", "#version: 0.2\n");
    for (const std::string& cmd : {"heads --weights " + c + " --text hello", "generate --weights " + c + " --text hello",
                                   "lesson mha --weights " + c + " --text hello"})
      refused_fast(cmd, "is not a regular file");
    fs::remove(fifo);
    fs::remove(c + "/merges.txt");
  }
  // the Hugging Face cache: refs/main a FIFO, or a link to /dev/zero; the snapshot is found by scanning
  std::string repo = f / "hub/models--tiny";
  fs::create_directories(repo + "/refs");
  fs::create_directories(repo + "/snapshots");
  fs::copy(c, repo + "/snapshots/abc", fs::copy_options::recursive);
  REQUIRE(::mkfifo((repo + "/refs/main").c_str(), 0600) == 0);
  auto start = std::chrono::steady_clock::now();
  CliResult r = run_cli("params --weights tiny", "HF_HUB_CACHE=" + (f / "hub") + " ");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  fs::remove(repo + "/refs/main");
  fs::create_symlink("/dev/zero", repo + "/refs/main");
  r = run_cli("params --weights tiny", "HF_HUB_CACHE=" + (f / "hub") + " ");
  CHECK(r.code == 0);
}

}  // namespace file_test_file_safety
