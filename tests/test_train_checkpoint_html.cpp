// Where the round's commands meet: a model `attnlab train --save` wrote loads in `attnlab heads`
// like any GPT-2 checkpoint, and train and heads write pages with --html.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_train_checkpoint_html {

namespace {

const std::string kTiny = "train --layers 2 --heads 2 --d-model 8 --vocab 12 --seq-len 10 --batch 4 --steps 6";

bool is_page(const CliResult& r) {
  return r.code == 0 && r.out.rfind("<!DOCTYPE html>", 0) == 0 && r.out.find("Content-Security-Policy") != std::string::npos &&
         r.out.find("http://") == std::string::npos && r.out.find("https://") == std::string::npos;
}

}  // namespace

TEST_CASE("a checkpoint written by train --mlp --save loads in heads like any GPT-2", "[train][checkpoint]") {
  // With the MLP the model is a complete GPT-2 (an attention-only one is tested below).
  for (const char* dtype : {"f32", "f64"}) {
    std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_trained_" + dtype;
    std::filesystem::remove_all(dir);
    CliResult t = run_cli(kTiny + " --mlp --dtype " + dtype + " --save " + dir);
    INFO(dtype << ": " << t.err);
    REQUIRE(t.code == 0);
    CliResult h = run_cli("heads --weights " + dir + " --token-ids 1,2,3,4,1,2,3,4 --json -");
    INFO(h.err);
    CHECK(h.code == 0);
    CHECK(h.out.find("\"scores\"") != std::string::npos);
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("an attention-only checkpoint written by train --save loads in heads and lesson mha", "[train][checkpoint]") {
  // config.json says "attnlab_attention_only": true and the file has no ln_2 / mlp tensors: each block
  // is x += attn(ln_1(x)). The reader's forward (src/checkpoint/gpt2.cpp, one layer at a time) must
  // give the attention that training's own forward (src/math/gpt.cpp) recorded: train --json holds the
  // final weights on the first evaluation sequence; lesson mha --weights --layer 2 recomputes them
  // from the f64 checkpoint, through layer 0 with no MLP.
  std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_trained_attn_only";
  std::filesystem::remove_all(dir);
  CliResult t = run_cli(kTiny + " --dtype f64 --save " + dir + " --json -");
  REQUIRE(t.code == 0);
  nlohmann::json tj = nlohmann::json::parse(t.out);
  std::string ids;
  for (const auto& id : tj["pattern_tokens"]) ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  CliResult h = run_cli("heads --weights " + dir + " --token-ids " + ids + " --json -");
  INFO(h.err);
  CHECK(h.code == 0);
  CHECK(h.out.find("\"scores\"") != std::string::npos);
  CliResult m = run_cli("lesson mha --weights " + dir + " --layer 2 --token-ids " + ids + " --json -");
  INFO(m.err);
  REQUIRE(m.code == 0);
  nlohmann::json mj = nlohmann::json::parse(m.out);
  const auto& w = mj["tensors"]["weights"];  // (H, T, T) of layer 1
  const auto& a = tj["attention_final"];     // (L, H, T, T)
  REQUIRE(w["shape"] == nlohmann::json::array({2, 10, 10}));
  const std::size_t HTT = 2 * 10 * 10;
  double worst = 0;
  for (std::size_t i = 0; i < HTT; ++i) {
    double x = w["data"][i].is_null() ? 0.0 : w["data"][i].get<double>();  // masked: null in the trace, 0 in training
    worst = std::max(worst, std::abs(x - a["data"][HTT + i].get<double>()));
  }
  CHECK(worst < 1e-12);
  // The MLP lesson has nothing to show on it: refused by name.
  CliResult f = run_cli("lesson ffn --weights " + dir + " --token-ids " + ids);
  CHECK(f.code == 2);
  CHECK(f.out.empty());
  CHECK(f.err.find("attnlab_attention_only") != std::string::npos);
  // A full GPT-2 config.json without the MLP tensors is still refused, naming ln_2.
  std::string cfg = slurp(dir + "/config.json");
  const std::string key = "\"attnlab_attention_only\": true";
  REQUIRE(cfg.find(key) != std::string::npos);
  cfg.replace(cfg.find(key), key.size(), "\"attnlab_attention_only\": false");
  { std::ofstream(dir + "/config.json", std::ios::binary) << cfg; }
  CliResult bad = run_cli("heads --weights " + dir + " --token-ids 1,2,3,4");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("ln_2") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("train and heads write self-contained pages with --html", "[train][checkpoint][html]") {
  CliResult t = run_cli(kTiny + " --html -");
  INFO(t.err);
  CHECK(is_page(t));
  std::string w = std::string(ATTNLAB_TEST_DIR) + "/fixtures/checkpoints/tiny-gpt2";
  CliResult h = run_cli("heads --weights " + w + " --token-ids 1,2,3,4 --html - --lang zh");
  INFO(h.err);
  CHECK(is_page(h));
  CHECK(h.out.find("lang=\"zh\"") != std::string::npos);
}

}  // namespace file_test_train_checkpoint_html
