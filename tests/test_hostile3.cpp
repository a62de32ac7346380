// Hostile input, third pass (issue 53, the tester's note D13-D24): each defect's reproduction, which
// failed before the fix. An output is compared with the inputs by what its path is (device and
// inode, after resolving), never by its spelling; a regular file is always replaced through a
// temporary; devices and stdout are written before any file is replaced; --save replaces only a
// checkpoint; every train flag is used by the run or refused.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include "catalog.h"
#include "commands.h"
#include "input_file.h"
#include "lesson_options.h"
#include "run_cli.h"
#include "text_task.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_hostile3 {

namespace fs = std::filesystem;

namespace {

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

struct Folder {
  std::string path;
  explicit Folder(const std::string& tag) {
    static int n = 0;
    path = "/tmp/attnlab_h3_" + std::to_string(::getpid()) + "_" + tag + "_" + std::to_string(n++);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  std::vector<std::string> entries(const std::string& sub = "") const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(sub.empty() ? path : path + "/" + sub)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A copy of the test checkpoint (tiny GPT-2 with a tokenizer) in the folder.
std::string checkpoint_copy(const Folder& f, const std::string& name) {
  std::string dir = f / name;
  fs::copy(std::string(ATTNLAB_TEST_DIR) + "/fixtures/checkpoints/tiny-gpt2", dir, fs::copy_options::recursive);
  return dir;
}

// Every file of a folder, name -> bytes: what "byte-identical" compares.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().string()] = slurp(e.path().string());
  return out;
}

CliResult refused_in(const std::string& cwd, const std::string& args, const std::string& needle) {
  auto start = std::chrono::steady_clock::now();
  CliResult r = run_cli(args + " --lang en", "cd '" + cwd + "' && ");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("attnlab " << args << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines_of(r.err) == 1);
  CHECK(r.err.find(needle) != std::string::npos);
  CHECK(seconds < 10.0);  // refused before the work
  return r;
}

const char* kTinyTrain = "train --steps 3 --layers 1 --d-model 8 --heads 2 --batch 2";

}  // namespace

TEST_CASE("hostile 3 D13: an output naming an input through /proc/self/cwd, /proc/self/root or /dev/shm is refused", "[hostile3]") {
  Folder f("d13");
  std::string ck = checkpoint_copy(f, "ck");
  auto before = snapshot(f.path);
  refused_in(f.path, "lesson mha --weights ck --token-ids 1,2,3 --json /proc/self/cwd/ck/config.json", "is a file this run reads");
  refused_in(f.path, "lesson mha --weights ck --token-ids 1,2,3 --npz /proc/self/root" + ck + "/model.safetensors",
             "is a file this run reads");
  refused_in(f.path, "lesson mha --weights ck --token-ids 1,2,3 --html /proc/self/fd/../cwd/ck/config.json",
             "is a file this run reads");
  CHECK(snapshot(f.path) == before);

  REQUIRE(run_cli("lesson mha --json " + (f / "t.json")).code == 0);
  before = snapshot(f.path);
  refused_in(f.path, "render t.json --html /proc/self/cwd/t.json", "is a file this run reads");
  refused_in(f.path, "render /proc/self/cwd/t.json --html t.json", "is a file this run reads");
  put(f / "c.txt", std::string(4000, 'a') + "bcd");
  before = snapshot(f.path);
  refused_in(f.path, "train --task text --corpus c.txt --steps 1 --batch 1 --seq-len 8 --json /proc/self/cwd/c.txt",
             "is a file this run reads");
  CHECK(snapshot(f.path) == before);
  CHECK(f.entries() == std::vector<std::string>{"c.txt", "ck", "t.json"});  // no temporary left

  if (fs::is_directory("/dev/shm")) {
    const std::string shm = "/dev/shm/attnlab_h3_" + std::to_string(::getpid()) + ".json";
    fs::copy_file(f / "t.json", shm, fs::copy_options::overwrite_existing);
    const std::string old = slurp(shm);
    refused_in(f.path, "render " + shm + " --html " + shm, "is a file this run reads");
    CHECK(slurp(shm) == old);
    // a new file under /dev/shm is a file like any other: written through a temporary, renamed
    const std::string fresh = "/dev/shm/attnlab_h3_new_" + std::to_string(::getpid()) + ".json";
    CliResult r = run_cli("lesson gelu --json " + fresh);
    CHECK(r.code == 0);
    CHECK(slurp(fresh).find("attnlab.trace") != std::string::npos);
    fs::remove(shm);
    fs::remove(fresh);
  }
}

TEST_CASE("hostile 3 D13: a legitimate output through /proc/self/cwd is written, and /dev/stdout writes to stdout", "[hostile3]") {
  Folder f("d13ok");
  CliResult r = run_cli("lesson gelu --json /proc/self/cwd/new.json", "cd '" + f.path + "' && ");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(slurp(f / "new.json").find("attnlab.trace") != std::string::npos);
  CHECK(f.entries() == std::vector<std::string>{"new.json"});
  // stdout is a regular file here (run_cli redirects it): /dev/stdout is written through stdout
  r = run_cli("lesson gelu --json /dev/stdout");
  CHECK(r.code == 0);
  CHECK(r.out.rfind("{", 0) == 0);
  CHECK(r.out.find("attnlab.trace") != std::string::npos);
}

TEST_CASE("hostile 3 D14: an existing file reached through /proc is replaced atomically: a failed write keeps it whole", "[hostile3]") {
  Folder f("d14");
  put(f / "old.json", "{\"old\":1}\n");
  CliResult r = run_cli("lesson mha --seq-len 200 --lang en --json /proc/self/cwd/old.json", "cd '" + f.path + "' && ulimit -f 8; ");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(lines_of(r.err) == 1);
  CHECK(r.err.find("file too large") != std::string::npos);
  CHECK(slurp(f / "old.json") == "{\"old\":1}\n");
  CHECK(f.entries() == std::vector<std::string>{"old.json"});
}

TEST_CASE("hostile 3 D15: --save replaces only a folder holding a checkpoint and nothing else, whatever the flags", "[hostile3]") {
  Folder f("d15");
  fs::create_directories(f / "proj/src");
  put(f / "proj/src/main.c", "code");
  for (const char* force : {"", " --force"}) {
    CliResult r = refused_in(f.path, std::string(kTinyTrain) + " --save proj" + force, "not only a checkpoint");
    CHECK(r.err.find("--force") == std::string::npos);  // never suggested over a folder that is not a checkpoint
    CHECK(slurp(f / "proj/src/main.c") == "code");
  }
  // a real checkpoint: refused without --force (which is named), replaced with it
  REQUIRE(run_cli(std::string(kTinyTrain) + " --save " + (f / "ck")).code == 0);
  refused_in(f.path, std::string(kTinyTrain) + " --save ck", "holds a checkpoint; --force replaces it");
  CliResult r = run_cli(std::string(kTinyTrain) + " --seed 9 --save ck --force", "cd '" + f.path + "' && ");
  CHECK(r.code == 0);
  CHECK(f.entries("ck") == std::vector<std::string>{"config.json", "model.safetensors", "training.json"});
  // a checkpoint with a file of the user's beside it is not only a checkpoint
  put(f / "ck/notes.txt", "mine");
  auto before = snapshot(f / "ck");
  refused_in(f.path, std::string(kTinyTrain) + " --save ck --force", "'notes.txt' is not a checkpoint file");
  CHECK(snapshot(f / "ck") == before);
  // a folder inside a checkpoint folder is not a checkpoint file either
  fs::remove(f / "ck/notes.txt");
  fs::create_directories(f / "ck/sub");
  refused_in(f.path, std::string(kTinyTrain) + " --save ck --force", "'sub' is not a checkpoint file");
  CHECK(f.entries() == std::vector<std::string>{"ck", "proj"});
}

TEST_CASE("hostile 3 D16: a failing device or stdout output leaves every file as it was", "[hostile3]") {
  Folder f("d16");
  put(f / "ex.json", "{\"precious\":1}");
  put(f / "ex.html", "<p>precious</p>");
  CliResult r = run_cli("lesson mha --lang en --json ex.json --html /dev/full", "cd '" + f.path + "' && ");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(lines_of(r.err) == 1);
  CHECK(slurp(f / "ex.json") == "{\"precious\":1}");
  std::string err = f / "stderr.txt";
  int status = std::system(("cd '" + f.path + "' && '" + ATTNLAB_BIN + "' lesson gelu --lang en --npz ex.npz --html - >/dev/full 2>" + err).c_str());
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(!fs::exists(f / "ex.npz"));
  r = run_cli("lesson mqa --lang en --json /dev/full --html ex.html", "cd '" + f.path + "' && ");
  CHECK(r.code == 1);
  CHECK(slurp(f / "ex.html") == "<p>precious</p>");
  fs::remove(err);
  CHECK(f.entries() == std::vector<std::string>{"ex.html", "ex.json"});
}

TEST_CASE("hostile 3 D17: --save of the working folder or a folder holding it is refused before training", "[hostile3]") {
  Folder f("d17");
  fs::create_directories(f / "w");
  REQUIRE(run_cli(std::string(kTinyTrain) + " --save " + (f / "w/ck")).code == 0);
  refused_in(f / "w/ck", std::string(kTinyTrain) + " --save . --force", "is the working folder or holds it");
  refused_in(f / "w/ck", std::string(kTinyTrain) + " --save " + (f / "w/ck") + " --force", "is the working folder or holds it");
  CHECK(f.entries("w/ck") == std::vector<std::string>{"config.json", "model.safetensors", "training.json"});
}

TEST_CASE("hostile 3 D17: every errno a write can meet has words, in English and Chinese", "[hostile3]") {
  for (const char* lang : {"en", "zh"}) {
    attn::Text t(attn::parse_lang(lang));
    for (int e : {EBUSY, ENOTEMPTY, EEXIST, EROFS, EXDEV, EPERM, ENOSPC, EACCES, EINVAL, ETXTBSY, ENOMEM}) {
      std::string m = t("cli.err.write_failed", {{"flag", "--save"}, {"path", "ck"}, {"reason", attn::io_reason(e)}, {"errno", e}});
      INFO(lang << " errno " << e << ": " << m);
      CHECK(m.find(std::to_string(e)) == std::string::npos);  // words, not "error 16"
    }
  }
}

TEST_CASE("hostile 3 D18: every train flag has a row in the table of the runs that use it", "[hostile3]") {
  CLI::App app{"attnlab"};
  attn::cli::setup_train(app);
  CLI::App* train = app.get_subcommand("train");
  std::set<std::string> parsed, table;
  for (const CLI::Option* o : train->get_options())
    if (!o->get_lnames().empty() && o->get_lnames()[0] != "help") parsed.insert("--" + o->get_lnames()[0]);
  for (const attn::cli::FlagUse& u : attn::cli::train_flag_uses()) table.insert(u.flag);
  CHECK(parsed == table);
  CHECK(parsed.size() > 30);
}

TEST_CASE("hostile 3 D18: a train flag given to a run that does not use it is refused, for every flag and run", "[hostile3]") {
  // A value each flag accepts (a flag added to train needs one here, or this test fails).
  const std::map<std::string, std::string> value = {
      {"--task", "induction"}, {"--layers", "1"},        {"--heads", "2"},          {"--d-model", "8"},   {"--vocab", "32"},
      {"--seq-len", "16"},     {"--mlp", ""},            {"--no-mlp", ""},          {"--batch", "2"},     {"--steps", "2"},
      {"--lr", "0.001"},       {"--warmup", "1"},        {"--seed", "3"},           {"--threads", "1"},   {"--save", "/tmp/attnlab_h3_never"},
      {"--force", ""},         {"--corpus", "en"},       {"--min-count", "2"},      {"--repeat-share", "0.5"},
      {"--allow-long", ""},    {"--quiet", ""},          {"--dtype", "f64"},        {"--init", "symmetric"},
      {"--json", "/tmp/attnlab_h3_never.json"},          {"--html", "/tmp/attnlab_h3_never.html"},
      {"--study", "tradeoffs"}, {"--attention", "gqa"},  {"--kv-heads", "2"},       {"--latent", "4"},    {"--rope-dim", "2"},
      {"--pos", "rope"},       {"--ffn", "gelu"},        {"--norm", "layernorm"},   {"--d-ff", "16"},     {"--lang", "en"}};
  // Each run, chosen by its own flags.
  const std::vector<std::pair<unsigned, std::string>> runs = {
      {attn::cli::kStudy, "train --study tradeoffs"},
      {attn::cli::kSynthetic, "train --task induction"},
      {attn::cli::kTextRun, "train --task text"},
      {attn::cli::kVariant, "train --task text --attention mha"}};
  std::size_t refusals = 0;
  for (const attn::cli::FlagUse& u : attn::cli::train_flag_uses()) {
    INFO(u.flag);
    REQUIRE(value.count(u.flag) == 1);
    const std::string flag = u.flag;
    if (flag == "--lang" || flag == "--task" || flag == "--study") continue;  // they choose the run
    for (const auto& [mode, base] : runs) {
      if ((u.modes & mode) != 0) continue;
      const bool chooses_variant = flag == "--attention" || flag == "--pos" || flag == "--ffn" || flag == "--norm";
      if ((mode == attn::cli::kVariant || mode == attn::cli::kTextRun) && chooses_variant) continue;
      const std::string v = value.at(flag);
      refused_in("/tmp", base + " " + flag + (v.empty() ? "" : " " + v), flag + ": ");
      ++refusals;
    }
  }
  CHECK(refusals > 25);
  CHECK(!fs::exists("/tmp/attnlab_h3_never"));
  // --force without --save, and the wording names the flag given (was "--attention : …")
  refused_in("/tmp", std::string(kTinyTrain) + " --force", "--force replaces an existing checkpoint folder");
  refused_in("/tmp", "train --norm rmsnorm --steps 2", "--norm: a run on the synthetic task 'induction' does not use this flag");
}

TEST_CASE("hostile 3 D19: the bigram baseline counts pairs sparsely, with the dense table's numbers", "[hostile3]") {
  std::mt19937 gen(5);
  const std::size_t V = 37;
  std::vector<int> tr(3000), ho(400);
  for (int& x : tr) x = static_cast<int>(gen() % V);
  for (int& x : ho) x = static_cast<int>(gen() % V);
  // the dense definition, computed here: add-one unigram, Witten-Bell-style interpolated bigram
  std::vector<double> uni(V), first(V), followers(V), pair(V * V);
  for (int id : tr) uni[id] += 1;
  for (std::size_t i = 0; i + 1 < tr.size(); ++i) {
    if (pair[tr[i] * V + tr[i + 1]] == 0) followers[tr[i]] += 1;
    pair[tr[i] * V + tr[i + 1]] += 1;
    first[tr[i]] += 1;
  }
  const double N = static_cast<double>(tr.size());
  double unigram = 0, bigram = 0;
  for (std::size_t i = 0; i < ho.size(); ++i) {
    const double pu = (uni[ho[i]] + 1) / (N + V);
    double p = pu;
    if (i > 0 && first[ho[i - 1]] > 0) p = (pair[ho[i - 1] * V + ho[i]] + followers[ho[i - 1]] * pu) / (first[ho[i - 1]] + followers[ho[i - 1]]);
    unigram -= std::log(pu), bigram -= std::log(p);
  }
  attn::train::NgramLoss g = attn::train::ngram_loss(tr, ho, V);
  CHECK(g.unigram == Approx(unigram / 400).epsilon(1e-12));
  CHECK(g.bigram == Approx(bigram / 400).epsilon(1e-12));
  // a vocabulary of 200,000 over a short text: a dense table would be 320 GB
  std::vector<int> wide(5000);
  for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<int>((i * 7919) % 200000);
  attn::train::NgramLoss w = attn::train::ngram_loss(wide, wide, 200000);
  CHECK(std::isfinite(w.bigram));
  CHECK(w.bigram < w.unigram);  // every held-out pair was seen
}

TEST_CASE("hostile 3 D20: a signal during train --save removes the parent folders it made", "[hostile3]") {
  Folder f("d20");
  const std::string cmd = "cd '" + f.path + "' && ('" + ATTNLAB_BIN + "' train --steps 3000 --batch 8 --quiet --save a/b/ck --json t.json & pid=$!; "
                          "for i in $(seq 1 50); do [ -d a/b ] && break; sleep 0.1; done; sleep 0.3; kill -TERM $pid; wait $pid) >/dev/null 2>&1";
  int status = std::system(cmd.c_str());
  (void)status;
  CHECK(f.entries().empty());
}

TEST_CASE("hostile 3 D22: the --d-model suggestion never overflows", "[hostile3]") {
  CHECK(attn::divisible_suggestion(10, 4) == 12);
  CHECK(attn::divisible_suggestion(3, 4) == 4);
  CHECK(attn::divisible_suggestion(9223372036854775807ull, 4) == 9223372036854775804ull);
  CHECK(attn::divisible_suggestion(9223372036854775807ull, 2) == 9223372036854775806ull);
  refused_in("/tmp", "train --d-model 9223372036854775807 --steps 3", "try --d-model 9223372036854775804");
  refused_in("/tmp", "lesson mha --d-model 9223372036854775807 --heads 2", "--d-model");
}

TEST_CASE("hostile 3 D23: a user catalog that is not UTF-8 is refused at load, with its line", "[hostile3]") {
  Folder f("d23");
  fs::create_directories(f / "c/mha");
  for (const std::string& bad : {std::string("\xff"), std::string("\xed\xa0\x80"), std::string("\xc0\xaf")}) {
    put(f / "c/mha/en.cat", "# a comment\ninput.title = The input X" + bad + "\n");
    for (const char* out : {"--json -", "--html -", ""}) {
      CliResult r = run_cli(std::string("lesson mha --lang en ") + out, "ATTNLAB_CATALOG_PATH='" + (f / "c") + "' ");
      INFO(out << ": " << r.err);
      CHECK(r.code == 2);
      CHECK(r.out.empty());
      CHECK(lines_of(r.err) == 1);
      CHECK(r.err.find("line 2 is not valid UTF-8") != std::string::npos);
    }
  }
}

TEST_CASE("hostile 3 D24: an input whose name is not UTF-8 is refused before any work", "[hostile3]") {
  Folder f("d24");
  fs::copy_file(std::string(ATTNLAB_TEST_DIR) + "/../data/models/gpt2.json", f / "g\xff.json");
  put(f / "c\xff.txt", std::string(3000, 'a'));
  for (const std::string args : {"params --config 'g\xff.json' --json -", "kv-cache --config 'g\xff.json' --html -",
                                 "flops --config 'g\xff.json' --json -",
                                 "train --task text --corpus 'c\xff.txt' --steps 2 --batch 1 --seq-len 8 --save sv"})
    refused_in(f.path, args, "is not valid UTF-8 text or holds control characters");
  CHECK(!fs::exists(f / "sv"));
}

TEST_CASE("hostile 3: the small wordings name the flag and the file", "[hostile3]") {
  Folder f("words");
  put(f / "bad.txt", std::string(3000, 'a') + "\xff" + std::string(3000, 'b'));
  refused_in(f.path, "train --task text --corpus bad.txt --steps 1", "--corpus: 'bad.txt' is not UTF-8 text (byte 3000");
  put(f / "one.txt", "a");
  refused_in(f.path, "train --task text --corpus one.txt --steps 1", "has 1 character:");
}

}  // namespace file_test_hostile3

namespace file_test_hostile3 {

// A generator: every spelling of an input this run reads, for every output flag of the command.
// Spellings: relative, ./, a/../, //, absolute, /proc/self/cwd, /proc/self/root + absolute,
// /dev/fd/../cwd (/dev/fd is a link to /proc/self/fd), a symlink to the file, a symlink to its
// folder, a hard link. Every one is refused, and every file stays byte-identical.
TEST_CASE("hostile 3: an output is refused under every spelling of an input, for every output flag", "[hostile3]") {
  Folder f("spell");
  checkpoint_copy(f, "ck");
  REQUIRE(run_cli("lesson gelu --json " + (f / "t.json")).code == 0);
  put(f / "c.txt", std::string(4000, 'a') + "bcd");
  fs::create_directory_symlink(f / "ck", f / "cklink");
  fs::create_symlink(f / "t.json", f / "tlink.json");
  fs::create_hard_link(f / "t.json", f / "thard.json");
  fs::create_directories(f / "sub");
  auto spellings = [&](const std::string& rel) {
    return std::vector<std::string>{rel, "./" + rel, "sub/../" + rel, "." + std::string("//") + rel, f / rel,
                                    "/proc/self/cwd/" + rel, "/proc/self/root" + (f / rel),
                                    "/dev/fd/../cwd/" + rel};
  };
  struct Case {
    std::string command;
    std::vector<std::string> outputs;
    std::vector<std::string> inputs;  // files of the input, as relative names
  };
  const std::vector<Case> cases = {
      {"lesson mha --weights ck --token-ids 1,2,3", {"--json", "--html", "--npz"}, {"ck/config.json", "ck/model.safetensors", "cklink/config.json"}},
      {"render t.json", {"--html"}, {"t.json", "tlink.json", "thard.json"}},
      {"train --task text --corpus c.txt --steps 1 --batch 1 --seq-len 8", {"--json", "--html"}, {"c.txt"}}};
  const auto before = snapshot(f.path);
  std::size_t runs = 0;
  for (const Case& c : cases)
    for (const std::string& out : c.outputs)
      for (const std::string& in : c.inputs)
        for (const std::string& spelled : spellings(in)) {
          refused_in(f.path, c.command + " " + out + " " + spelled, "is a file this run reads");
          ++runs;
        }
  CHECK(runs == 8 * (3 * 3 + 3 + 2));
  CHECK(snapshot(f.path) == before);
  CHECK(f.entries() == std::vector<std::string>{"c.txt", "ck", "cklink", "sub", "t.json", "thard.json", "tlink.json"});
}

// A generator over catalog bytes: every byte that cannot stand alone in UTF-8, and the classic
// bad sequences (overlong, surrogate, past U+10FFFF, truncated), in a user catalog's message.
TEST_CASE("hostile 3: every kind of bad byte in a user catalog is refused at load", "[hostile3]") {
  Folder f("catbytes");
  fs::create_directories(f / "c/gelu");
  std::vector<std::string> bad;
  for (int b = 0x80; b <= 0xFF; ++b) bad.push_back(std::string(1, static_cast<char>(b)));
  for (const char* s : {"\xc0\x80", "\xe0\x80\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf0\x80\x80\x80", "\xe4\xb8"}) bad.push_back(s);
  std::size_t refused = 0;
  for (const std::string& b : bad) {
    put(f / "c/gelu/en.cat", "values.title = Four activations" + b + "\n");
    CliResult r = run_cli("lesson gelu --lang en --json -", "ATTNLAB_CATALOG_PATH='" + (f / "c") + "' ");
    if (r.code == 2 && r.out.empty() && r.err.find("is not valid UTF-8") != std::string::npos) ++refused;
  }
  CHECK(refused == bad.size());
}

}  // namespace file_test_hostile3
