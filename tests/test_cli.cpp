// The CLI as a process, as a user meets it: exit codes, stdout/stderr, JSON, determinism.
#include <regex>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_cli {

namespace {

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Bad input: exit 2, nothing on stdout, exactly one line on stderr containing `needle`.
void expect_usage_error(const std::string& args, const std::string& needle) {
  CliResult r = run_cli(args);
  INFO("attnlab " << args << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("version, help and list", "[cli]") {
  CliResult v = run_cli("--version");
  CHECK(v.code == 0);
  CHECK(v.out.find("attnlab ") == 0);
  CHECK(run_cli("--help").code == 0);
  CliResult help = run_cli("lesson mha --help");
  CHECK(help.out.find("--heads") != std::string::npos);
  CHECK(help.out.find("Defaults: causal=false  seq_len=4  d_model=8  n_heads=2  d_k=4") != std::string::npos);
  CHECK(help.out.find("Trace tensors (--json): X, W_Q, W_K, W_V, Q, K, V, Q_heads") != std::string::npos);
  CliResult list = run_cli("list --lang en");
  CHECK(list.code == 0);
  CHECK(list.out.find("attention") != std::string::npos);
  CHECK(list.out.find("mha") != std::string::npos);
}

TEST_CASE("lesson mha runs the whole walk-through", "[cli][mha]") {
  CliResult r = run_cli("lesson mha --lang en --color never");
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  for (const char* needle : {"split_heads", "Q_heads  [2, 4, 4]", "weights  [2, 4, 4]", "concat  [4, 8]",
                             "2,359,296", "Xiaoming"})
    CHECK(r.out.find(needle) != std::string::npos);
  CHECK(r.out.find("\x1b[") == std::string::npos);  // no colour when asked for none
}

TEST_CASE("the same flags print the same bytes, another seed prints others", "[cli]") {
  CliResult a = run_cli("lesson mha --seed 5 --lang en");
  CliResult b = run_cli("lesson mha --seed 5 --lang en");
  CliResult c = run_cli("lesson mha --seed 6 --lang en");
  CHECK(a.out == b.out);
  CHECK(a.out != c.out);
  CHECK(run_cli("lesson mha --seed 5 --json -").out == run_cli("lesson mha --seed 5 --json -").out);
}

TEST_CASE("json to stdout: a complete trace and nothing else", "[cli][json]") {
  CliResult r = run_cli("lesson mha --json - --causal");
  REQUIRE(r.code == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);  // throws (fails the test) if stdout is not pure JSON
  CHECK(doc["schema"] == "attnlab.trace/2");
  CHECK(doc["lesson"] == "mha");
  CHECK(doc["config"]["n_heads"] == 2);
  CHECK(doc["config"]["causal"] == true);
  const auto& t = doc["tensors"];
  std::vector<std::pair<std::string, std::vector<int>>> expected = {
      {"X", {4, 8}},          {"W_Q", {8, 8}},        {"W_K", {8, 8}},          {"W_V", {8, 8}},
      {"W_O", {8, 8}},        {"Q", {4, 8}},          {"K", {4, 8}},            {"V", {4, 8}},
      {"Q_heads", {2, 4, 4}}, {"K_heads", {2, 4, 4}}, {"V_heads", {2, 4, 4}},   {"scores", {2, 4, 4}},
      {"weights", {2, 4, 4}}, {"heads", {2, 4, 4}},   {"concat", {4, 8}},       {"output", {4, 8}}};
  for (const auto& [name, shape] : expected) {
    INFO(name);
    REQUIRE(t.contains(name));
    CHECK(t[name]["shape"].get<std::vector<int>>() == shape);
  }
  CHECK(t["scores"]["data"][1].is_null());  // masked -inf is null
  CHECK(t["weights"]["data"][1] == 0.0);    // and its weight exactly 0
  for (const auto& step : doc["steps"])
    for (const auto& name : step["tensors"]) CHECK(t.contains(name.get<std::string>()));
}

TEST_CASE("json to a file: the trace is written there", "[cli][json]") {
  std::string path = "/tmp/attnlab_cli_test_trace.json";
  CliResult r = run_cli("lesson attention --json " + path);
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  nlohmann::json doc = nlohmann::json::parse(slurp(path));
  CHECK(doc["lesson"] == "attention");
  std::remove(path.c_str());
}

TEST_CASE("bad input: exit 2, one line naming the flag, nothing on stdout", "[cli][errors]") {
  expect_usage_error("lesson nosuch", "unknown lesson 'nosuch'");
  expect_usage_error("lesson", "name a lesson");
  expect_usage_error("lesson mha --d-model 8 --heads 3", "--heads");
  expect_usage_error("lesson mha --d-model abc", "--d-model");
  expect_usage_error("lesson mha --d-model 0", "--d-model must be a positive integer");
  expect_usage_error("lesson mha --d-model -8", "--d-model");
  expect_usage_error("lesson mha --seq-len 0", "--seq-len");
  expect_usage_error("lesson mha --seq-len 1000000 --heads 1", "--seq-len");
  expect_usage_error("lesson mha --d-model 999999999999", "--d-model");
  expect_usage_error("lesson mha --tokens 'a b' --seq-len 3", "--seq-len 3 disagrees");
  expect_usage_error("lesson mha --lang fr", "--lang: unknown language 'fr'");
  expect_usage_error("lesson mha --color sometimes", "--color");
  expect_usage_error("lesson mha --precision 99", "--precision");
  expect_usage_error("lesson mha --seed -1", "--seed");
  expect_usage_error("lesson mha --json /nonexistent/dir/trace.json", "--json");
  expect_usage_error("lesson mha --bogus", "--bogus");
  expect_usage_error("frobnicate", "frobnicate");
}

TEST_CASE("language: --lang zh and LANG=zh_CN both speak Chinese", "[cli][lang]") {
  CliResult zh = run_cli("lesson mha --lang zh");
  CHECK(zh.out.find("拆成多个头") != std::string::npos);
  CHECK(zh.out.find("小明") != std::string::npos);
  CliResult env = run_cli("lesson mha", "LC_ALL= LC_MESSAGES= LANG=zh_CN.UTF-8 ");
  CHECK(env.out == zh.out);
  CliResult en = run_cli("lesson mha", "LC_ALL= LC_MESSAGES= LANG=C.UTF-8 ");
  CHECK(en.out.find("Split into heads") != std::string::npos);
}

TEST_CASE("colour: --color always colours, NO_COLOR and pipes do not", "[cli][color]") {
  CHECK(run_cli("lesson mha --color always").out.find("\x1b[") != std::string::npos);
  CHECK(run_cli("lesson mha").out.find("\x1b[") == std::string::npos);  // stdout is a file here
  CHECK(run_cli("lesson mha --color auto", "NO_COLOR=1 ").out.find("\x1b[") == std::string::npos);
}

TEST_CASE("real sizes run and print summarized", "[cli][mha]") {
  CliResult r = run_cli("lesson mha --d-model 768 --heads 12 --seq-len 16 --lang en");
  CHECK(r.code == 0);
  CHECK(r.out.find("…") != std::string::npos);
  CHECK(r.out.size() < 200000);
}

TEST_CASE("kv-cache with heads alone gives the chapter's 24, 8 and 2 cached vectors", "[cli][kv]") {
  // 12 query heads of 64 (d_model 768), GQA with 4 groups: 2·12 = 24, 2·4 = 8, MQA 2 vectors per layer
  CliResult r = run_cli("kv-cache --heads 12 --kv-heads 4 --lang en");
  REQUIRE(r.code == 0);
  auto line_of = [&](const std::string& kind) {
    std::size_t at = r.out.find("\n  " + kind + "   2·");
    REQUIRE(at != std::string::npos);
    return r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  };
  CHECK(line_of("MHA").find(" 24 ") != std::string::npos);
  CHECK(line_of("GQA").find(" 8 ") != std::string::npos);
  CHECK(line_of("GQA").find("33.3%") != std::string::npos);  // "2/3 less"
  CHECK(line_of("MQA").find(" 2 ") != std::string::npos);
}

TEST_CASE("tokens with control characters and tensors past the cap are refused by flag", "[cli][errors]") {
  expect_usage_error("lesson mha --tokens \"$(printf 'a\\033[31mred b')\"", "--tokens: control characters");
  // a 20000 x 20000 attention matrix is 4e8 numbers, past the 2^27 cap
  expect_usage_error("lesson attention --seq-len 20000", "--seq-len");
  expect_usage_error("lesson mha --d-model 16384 --heads 128", "--d-model");
  // gqa keeps about eight (h, T, T) tensors: 8 x 32 x 2000² = 1.0e9 numbers, past the 2^29 lesson budget
  expect_usage_error("lesson gqa --seq-len 2000 --heads 32 --d-model 64", "up to 1396 is accepted");
}

namespace {
// A Chinese character (CJK Unified Ideographs, U+4E00…U+9FFF: UTF-8 lead byte E4…E9).
bool has_cjk(const std::string& s) {
  for (std::size_t i = 0; i + 2 < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("language: errors and --help speak the run's language, flags stay as typed", "[cli][lang][errors]") {
  CliResult bad = run_cli("lesson mha --d-model 8 --heads 3 --lang zh");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(count_lines(bad.err) == 1);
  CHECK(has_cjk(bad.err));
  CHECK(bad.err.find("--heads") != std::string::npos);
  CHECK(bad.err.rfind("attnlab: ", 0) == 0);
  CliResult help = run_cli("lesson mha --help --lang zh");
  CHECK(help.code == 0);
  CHECK(has_cjk(help.out));
  CHECK(help.out.find("Options") == std::string::npos);  // CLI11's own words too
  CHECK(help.out.find("Print this help") == std::string::npos);
  CHECK(help.out.find("Defaults:") == std::string::npos);
  CHECK(help.out.find("--heads") != std::string::npos);
  CHECK(has_cjk(run_cli("--help --lang zh").out));
  CHECK(has_cjk(run_cli("kv-cache --help", "LC_ALL= LC_MESSAGES= LANG=zh_CN.UTF-8 ").out));
  CliResult list = run_cli("list", "LC_ALL= LC_MESSAGES= LANG=zh_CN.UTF-8 ");
  CHECK(list.code == 0);
  CHECK(has_cjk(list.out));
  CHECK(list.out.find("Run one") == std::string::npos);
  // A CLI11 parse error, in Chinese and in the order typed (CLI11 prints "b a").
  CliResult extras = run_cli("lesson mha a b --lang zh");
  CHECK(extras.code == 2);
  CHECK(has_cjk(extras.err));
  CHECK(extras.err.find("a b") != std::string::npos);
  CHECK(run_cli("lesson mha --seed x --lang zh").err.find("--seed") != std::string::npos);
  CHECK(has_cjk(run_cli("lesson mha --seed x --lang zh").err));
  CHECK(has_cjk(run_cli("params --model nosuch --lang zh").err));
}

TEST_CASE("language: an unknown --lang lists the languages", "[cli][lang][errors]") {
  CliResult r = run_cli("list --lang fr");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("--lang") != std::string::npos);
  CHECK(r.err.find("'fr'") != std::string::npos);
  CHECK(r.err.find("en, zh") != std::string::npos);
  CHECK(run_cli("list --lang ''").err.find("--lang") != std::string::npos);
}

TEST_CASE("global --lang: accepted wherever it is typed", "[cli][lang]") {
  // Issue 15: "attnlab lesson --lang zh mha" was "The following arguments were not expected: zh --lang".
  CliResult before = run_cli("lesson --lang zh mha --color never");
  CliResult after = run_cli("lesson mha --lang zh --color never");
  CHECK(before.code == 0);
  CHECK(before.out == after.out);
  CHECK(has_cjk(before.out));
  CHECK(run_cli("--lang zh list").out == run_cli("list --lang=zh").out);
  CHECK(run_cli("--lang=en models").out.find("official") != std::string::npos);
}

TEST_CASE("pseudo-locale: the calculators, list, --help and errors come through the catalogs", "[cli][lang][qps]") {
  // Under qps every catalog word is accented; a plain English word here bypassed the catalogs
  // (identifiers such as --layers or q_a_layernorm are not words).
  const std::regex english(R"((^|[\s(:,⟦])(tokens?|layers?|parameters|Usage|Options|error|heads?|GPU|official|Exit|)"
                           R"(unknown|the|Run|Print|expected|languages?|command)\b)");
  for (const char* args : {"list", "models", "params --model deepseek-v3", "params --d-model 64 --heads 4",
                           "kv-cache --model gpt2 --tp 4 --memory 80GiB", "kv-cache --compare gpt2,deepseek-v3",
                           "--help", "lesson --help", "kv-cache --help", "params --help", "lesson mha --d-model 8 --heads 3",
                           "lesson nosuch", "frobnicate", "lesson mha x y"}) {
    CliResult r = run_cli(std::string(args) + " --lang qps");
    CHECK(std::regex_search(run_cli(std::string(args) + " --lang en").out + run_cli(std::string(args) + " --lang en").err, english));
    INFO("attnlab " << args << " --lang qps\n" << r.out << r.err);
    std::smatch m;
    // The subcommand `heads` is a name, not the word: blank it where the help and the command list show it.
    std::string all = std::regex_replace(r.out + r.err, std::regex("(\n  |, )heads(,| {2,}|⟧)"), "$1$2");
    bool found = std::regex_search(all, m, english);
    INFO("plain English: " << (found ? m.str() : std::string()));
    CHECK_FALSE(found);
  }
}

}  // namespace file_test_cli
