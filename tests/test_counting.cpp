// Issue "One tool, not ten": one way of counting. Layers, heads and positions count from 1 in what
// every command prints and in the flags a learner types (as the chapter and the lessons count);
// where a checkpoint is involved, the tensor names' index (from 0) stands beside it:
// "layer 1 head 4 (L0H3)". Before: heads and generate printed L0H3 alone, train printed "L1 H1"
// (from 1, in TransformerLens's notation that counts from 0), --layer counted from 0 while
// --ablate counted from 1, and train's pattern rows numbered positions from 0.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_counting {

using ckpt_test::fixture;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Every "layer A head B (LcHd)" in `text`: A = c + 1 and B = d + 1. Returns how many there were.
int check_head_refs(const std::string& text) {
  static const std::regex ref(R"(layer (\d+) head (\d+) \(L(\d+)H(\d+)\))");
  int n = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), ref); it != std::sregex_iterator(); ++it, ++n) {
    INFO((*it)[0].str());
    CHECK(std::stoi((*it)[1].str()) == std::stoi((*it)[3].str()) + 1);
    CHECK(std::stoi((*it)[2].str()) == std::stoi((*it)[4].str()) + 1);
  }
  return n;
}

// A tensor-name head ("L0H3") that is not inside the brackets of a head reference (the counting
// sentence's "L5H1 as TransformerLens writes it" aside).
bool has_bare_tensor_name(const std::string& text) {
  static const std::regex bare(R"((^|[^(])\bL\d+H\d+\b(?! as TransformerLens))");
  return std::regex_search(text, bare);
}

}  // namespace

TEST_CASE("heads counts layers and heads from 1 with the tensor names' index beside", "[one-tool][counting]") {
  CliResult r = run_cli("heads --weights " + fixture("tiny-gpt2") + " --token-ids 5,17,3,42,17,3,9 --lang en");
  REQUIRE(r.code == 0);
  CHECK(check_head_refs(r.out) >= 20);  // the top lists of four roles, five heads each
  CHECK_FALSE(has_bare_tensor_name(r.out));
  CHECK(has(r.out, "head 1"));    // the grids' columns
  CHECK(has(r.out, "1 (L0)"));    // and rows
  CHECK(has(r.out, "count from 1"));
  // The JSON keeps numpy's indices, from 0 (README states it): a layer index is below the layer count.
  CliResult j = run_cli("heads --weights " + fixture("tiny-gpt2") + " --token-ids 5,17,3,42,17,3,9 --json -");
  REQUIRE(j.code == 0);
  const nlohmann::json doc = nlohmann::json::parse(j.out);  // named: a temporary would die before the loop
  REQUIRE(doc["top"]["previous"].size() >= 1);
  for (const auto& h : doc["top"]["previous"]) CHECK(h["layer"].get<int>() < 2);
  CliResult zh = run_cli("heads --weights " + fixture("tiny-gpt2") + " --token-ids 5,17,3,42,17,3,9 --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(std::regex_search(zh.out, std::regex(R"(第 \d+ 层第 \d+ 头（L\d+H\d+）)")));
  CHECK(has(zh.out, "、"));  // a Chinese list
}

TEST_CASE("a lesson's --layer and --head count from 1: 0 is refused and 1 is the tensors numbered 0", "[one-tool][counting]") {
  const std::string ids = " --token-ids 5,17,3,42";
  for (const char* lesson : {"mha", "attention", "block", "ffn", "kv-memory"}) {
    INFO(lesson);
    CliResult zero = run_cli(std::string("lesson ") + lesson + " --weights " + fixture("tiny-gpt2") + " --layer 0" + ids + " --lang en");
    CHECK(zero.code == 2);
    CHECK(has(zero.err, "--layer: layer 0 does not exist"));
    CHECK(has(zero.err, "counting from 1"));
    CliResult one = run_cli(std::string("lesson ") + lesson + " --weights " + fixture("tiny-gpt2") + " --layer 2" + ids + " --lang en");
    CHECK(one.code == 0);
    CHECK(has(one.out, std::string(lesson) == "attention" ? "L1H0" : "h.1."));  // layer 2 holds the tensors h.1.…
  }
  CliResult a = run_cli("lesson attention --weights " + fixture("tiny-gpt2") + " --layer 2 --head 1" + ids + " --lang en");
  REQUIRE(a.code == 0);
  CHECK(has(a.out, "head 1 of layer 2"));
  CHECK(has(a.out, "L1H0"));
  CHECK(run_cli("lesson attention --weights " + fixture("tiny-gpt2") + " --head 0" + ids).code == 2);
}

TEST_CASE("a checkpoint's heads and groups count from 1 in the lessons, as the random runs do", "[one-tool][counting]") {
  CliResult m = run_cli("lesson mha --weights " + fixture("tiny-gpt2") + " --token-ids 5,17,3,42 --lang en");
  REQUIRE(m.code == 0);
  CHECK(has(m.out, "head 1 (H0):"));
  CHECK_FALSE(has(m.out, "head 0"));
  CliResult g = run_cli("lesson gqa --weights " + fixture("tiny-llama") + " --token-ids 3,39,11 --lang en");
  REQUIRE(g.code == 0);
  CHECK(has(g.out, "head 1 (group 1)"));
  CHECK_FALSE(has(g.out, "head 0"));
  CHECK_FALSE(has(g.out, "group 0"));
}

TEST_CASE("train names heads as every command does and numbers pattern positions from 1", "[one-tool][counting][train]") {
  CliResult r = run_cli("train --layers 2 --heads 2 --d-model 8 --vocab 12 --seq-len 10 --batch 4 --steps 6 --warmup 2 --lang en");
  REQUIRE(r.code == 0);
  CHECK(check_head_refs(r.out) >= 3);
  CHECK_FALSE(has_bare_tensor_name(r.out));
  CHECK_FALSE(std::regex_search(r.out, std::regex(R"(\bL\d+ H\d+\b)")));  // the old "L1 H1"
  // The pattern rows: positions 1 … 10, none numbered 0.
  CHECK(std::regex_search(r.out, std::regex(R"(\n +1 +\d+  )")));
  CHECK(std::regex_search(r.out, std::regex(R"(\n +10 +\d+  )")));
  CHECK_FALSE(std::regex_search(r.out, std::regex(R"(\n +0 +\d+  [ ·░▒▓█])")));
}

TEST_CASE("generate's cache table numbers layers from 1 with the tensor index beside", "[one-tool][counting]") {
  CliResult r = run_cli("generate --weights " + fixture("tiny-gpt2") + " --token-ids 5,17,3 --tokens 2 --lang en");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "1 (L0)"));
  CHECK(has(r.out, "2 (L1)"));
}

}  // namespace file_test_counting
