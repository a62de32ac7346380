// Issue "One tool, not ten": labels with units, subtotals, the chapter's no-bias count, help texts
// that describe the lesson's own options, and lesson texts that give formulas instead of source paths.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_one_tool_labels {

namespace {
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("kv-cache: the model's own cache block labels its columns with their units", "[one-tool][kv-cache]") {
  CliResult en = run_cli("kv-cache --model llama-3-8b --lang en");
  REQUIRE(en.code == 0);
  CHECK(has(en.out, "elements (numbers)"));
  CHECK(has(en.out, "size as bf16"));
  CliResult zh = run_cli("kv-cache --model llama-3-8b --lang zh");
  CHECK(has(zh.out, "元素个数（数）"));
}

TEST_CASE("flops: attention subtotals apart from the FFN, and the layer total says what it holds", "[one-tool][flops]") {
  CliResult r = run_cli("flops --model gpt2 --seq-len 16 --context 16 --json -");
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // gpt2 prefill of 16 tokens, MHA, by hand: q, k, v, o projections 4 · 16 · 768 · 768 = 37,748,736;
  // scores and weighted sum 2 · 136 pairs · 12 heads · 64 = 208,896 (136 = 16·17/2); FFN 2 · 16 · 768 · 3072.
  bool found = false;
  for (const auto& v : j["prefill"]["variants"]) {
    if (v["name"] != "mha") continue;
    found = true;
    CHECK(v["attention_macs"] == 37748736u + 208896u);
    CHECK(v["attention_flops"] == 2u * (37748736u + 208896u));
    CHECK(v["macs"] == 37748736u + 208896u + 2u * 16u * 768u * 3072u);
  }
  CHECK(found);
  CliResult t = run_cli("flops --model gpt2 --lang en");
  CHECK(has(t.out, "attention, multiply-adds"));
  CHECK(has(t.out, "the exponentials counted apart"));
  CHECK(has(run_cli("flops --model gpt2 --lang zh").out, "注意力，乘加次数"));
}

TEST_CASE("params --no-bias gives the chapter's count, --vocab 0 prints no rows of size 0", "[one-tool][params]") {
  CliResult r = run_cli("params --d-model 768 --heads 12 --no-bias --lang en");
  REQUIRE(r.code == 0);
  // 4 · 768² + 2 · 768 · 3072 = 7,077,888 weights, plus two LayerNorms (2 · 2 · 768 = 3,072) per layer
  CHECK(has(r.out, "7,080,960 per layer"));
  CHECK(!has(r.out, "b_Q"));
  CHECK(has(r.out, "no bias on any matrix"));
  CHECK(!has(r.out, "[0, 768]"));
  CHECK(!has(r.out, "[768, 0]"));
  CHECK(has(r.out, "--vocab 0"));
  CliResult with_vocab = run_cli("params --d-model 768 --heads 12 --vocab 50257 --lang en");
  CHECK(has(with_vocab.out, "[50257, 768]"));
  CliResult bad = run_cli("params --model gpt2 --no-bias");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(has(bad.err, "--no-bias"));
}

TEST_CASE("lesson help: --d-model of a lesson without heads does not mention --heads", "[one-tool][help]") {
  for (const char* lesson : {"swiglu", "ffn", "attention"}) {
    INFO(lesson);
    CliResult r = run_cli(std::string("lesson ") + lesson + " --help --lang en");
    REQUIRE(r.code == 0);
    const std::size_t at = r.out.find("--d-model");
    REQUIRE(at != std::string::npos);
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    CHECK(!has(line, "--heads"));
  }
  CHECK(has(run_cli("lesson mha --help --lang en").out, "multiple of --heads"));
}

TEST_CASE("lesson texts give formulas, not source files a learner with the binary cannot open", "[one-tool][wording]") {
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/lessons")) {
    if (e.path().extension() != ".cat") continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;  // comments are for developers
      INFO(e.path().string() << ": " << line);
      CHECK(!has(line, "src/math/"));
      CHECK(!has(line, ".cpp)"));
    }
  }
  CHECK(has(run_cli("lesson symmetry --step setup --lang en").out, "∂S = A ⊙"));
}

TEST_CASE("a derived d_model is announced in the header, so --step keeps it, in the text, the JSON and the page", "[one-tool][step]") {
  CliResult r = run_cli("lesson mha --heads 12 --step 3 --lang en --color never");
  REQUIRE(r.code == 0);
  const std::size_t note = r.out.find("d_model 24 is derived");
  REQUIRE(note != std::string::npos);
  CHECK(note < r.out.find("Step 3/9"));  // above the step, not inside a hidden one
  CliResult j = run_cli("lesson mha --heads 12 --step 3 --json -");
  REQUIRE(j.code == 0);
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  REQUIRE(doc.contains("header_notes"));
  CHECK(has(doc["header_notes"][0].get<std::string>(), "d_model 24 is derived"));
  CliResult plain = run_cli("lesson mha --d-model 24 --heads 12 --json -");
  CHECK(!nlohmann::json::parse(plain.out).contains("header_notes"));  // given, not derived: no note
  CliResult zh = run_cli("lesson mha --heads 12 --step 3 --lang zh --color never");
  CHECK(zh.out.find("d_model 24") < zh.out.find("3/9"));
}

TEST_CASE("train --help shows its defaults, as every lesson's help does", "[one-tool][help]") {
  CliResult r = run_cli("train --help --lang en");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "--steps INT=4000"));
  CHECK(has(r.out, "--batch INT=64"));
  CHECK(has(r.out, "--lr FLOAT=0.001"));
  CHECK(has(r.out, "--task TEXT=induction"));
}

}  // namespace file_test_one_tool_labels
