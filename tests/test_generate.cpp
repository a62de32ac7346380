// attnlab generate: greedy decoding with a KV cache on the tiny checkpoints, against greedy
// decoding by the independent PyTorch forward with no cache at all (tests/golden/gen_generate.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "generate.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_generate {

using namespace attn;
using namespace ckpt_test;

namespace {

nlohmann::json golden(const std::string& name) {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/generate.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in)[name];
}

// Largest |cached − golden| over every step's logits row.
double max_diff_rows(const Tensor& logits, const nlohmann::json& rows) {
  REQUIRE(rows.size() == logits.dim(0));
  double m = 0;
  for (std::size_t s = 0; s < rows.size(); ++s) {
    REQUIRE(rows[s].size() == logits.dim(1));
    for (std::size_t j = 0; j < logits.dim(1); ++j) m = std::max(m, std::fabs(logits(s, j) - rows[s][j].get<double>()));
  }
  return m;
}

void check_family(const std::string& name, const Gpt2Model* gpt2, const LlamaModel* llama) {
  INFO(name);
  nlohmann::json g = golden(name);
  auto prompt = g["prompt"].get<std::vector<std::int64_t>>();
  auto ids = g["ids"].get<std::vector<std::int64_t>>();
  std::size_t n = ids.size() - prompt.size();
  GenerateRun run = generate_greedy({gpt2, llama}, prompt, n);
  CHECK(run.ids == ids);
  CHECK(max_diff_rows(run.logits, g["logits"]) < 1e-9);
  // The cache holds every token fed: the prompt and all generated tokens but the last.
  CHECK(run.cache.tokens() == ids.size() - 1);
  Tensor full;
  CHECK(cached_vs_full({gpt2, llama}, run, prompt.size(), &full) < 1e-12);
  CHECK(max_diff_rows(full, g["logits"]) < 1e-9);
  // Reading every layer again at each step (a model too large to keep) gives the very same bits.
  GenerateRun reread = generate_greedy({gpt2, llama}, prompt, n, 0.0);
  CHECK(reread.ids == run.ids);
  CHECK(reread.logits.data == run.logits.data);
}

}  // namespace

TEST_CASE("generate with a KV cache equals greedy decoding by the PyTorch forward without one", "[checkpoint][golden][generate]") {
  Gpt2Model gpt2(fixture("tiny-gpt2"));
  check_family("tiny-gpt2", &gpt2, nullptr);
  LlamaModel llama(fixture("tiny-llama"));
  check_family("tiny-llama", nullptr, &llama);
  LlamaModel qwen2(fixture("tiny-qwen2"));
  check_family("tiny-qwen2", nullptr, &qwen2);
}

TEST_CASE("cached attention on one new row equals the last row of causal attention", "[generate]") {
  // Hand-worked: 1 head, Dh = 1, keys 0 and 1, values 10 and 20, query 2 at position 1 of 2.
  // scores 2·0/1 = 0 and 2·1 = 2; weights e^0/(1+e^2), e^2/(1+e^2) = 0.11920, 0.88080;
  // head = 10·0.11920 + 20·0.88080 = 18.8080.
  Tensor Q({1, 1, 1}, {2.0}), K({1, 2, 1}, {0.0, 1.0}), V({1, 2, 1}, {10.0, 20.0});
  Tensor h = cached_attention(Q, K, V, 1);
  CHECK(h(0, 0, 0) == Approx(10.0 / (1 + std::exp(2.0)) + 20.0 * std::exp(2.0) / (1 + std::exp(2.0))).epsilon(1e-15));
  // Two new rows at positions 0, 1: row 0 sees only key 0 (head = 10).
  Tensor Q2({1, 2, 1}, {5.0, 2.0});
  Tensor h2 = cached_attention(Q2, K, V, 0);
  CHECK(h2(0, 0, 0) == 10.0);
  CHECK(h2(0, 1, 0) == Approx(h(0, 0, 0)).epsilon(1e-15));
  CHECK(append_tokens(Tensor(), K).shape == Shape{1, 2, 1});
  CHECK(append_tokens(K, V).data == std::vector<double>{0, 1, 10, 20});
}

TEST_CASE("attnlab generate: tokens, cache sizes, check and bridge, in JSON and text", "[generate][cli]") {
  nlohmann::json g = golden("tiny-gpt2");
  CliResult r = run_cli("generate --weights " + fixture("tiny-gpt2") + " --token-ids 5,17,3,42 --tokens 8 --json -");
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["token_ids"] == g["ids"]);
  REQUIRE(j["steps"].size() == 8);
  // tiny-gpt2: 2 layers, 4 heads of width 4, F32. One token adds 2·4·4 = 32 numbers per layer.
  // Step 1 has the 4 prompt tokens cached: 4·32·4 bytes = 512 per layer, 1024 for 2 layers, 512 at bf16.
  CHECK(j["steps"][0]["cache_tokens"] == 4);
  CHECK(j["steps"][0]["cache_bytes_per_layer"] == 512);
  CHECK(j["steps"][0]["cache_bytes"] == 1024);
  CHECK(j["steps"][0]["cache_bytes_bf16"] == 512);
  CHECK(j["steps"][7]["cache_tokens"] == 11);
  CHECK(j["steps"][0]["logit"].get<double>() == Approx(g["logits"][0][56].get<double>()).epsilon(1e-12));
  // After 8 steps: 4 + 8 − 1 = 11 tokens, 11·32 = 352 numbers per layer, 704 in all, 1408 bytes at bf16.
  CHECK(j["cache"]["tokens"] == 11);
  CHECK(j["cache"]["layers"][1]["K"] == std::vector<int>{4, 11, 4});
  CHECK(j["cache"]["bytes_bf16"] == 1408);
  CHECK(j["kv_cache_bridge"]["bytes"] == 1408);
  CHECK(j["check"]["max_abs_diff_vs_full_forward"].get<double>() < 1e-12);
  CliResult t = run_cli("generate --weights " + fixture("tiny-llama") + " --token-ids 1,7,30,7,12 --tokens 3");
  REQUIRE(t.code == 0);
  CHECK(t.out.find("the same as the table above") != std::string::npos);
  CliResult zh = run_cli("generate --weights " + fixture("tiny-gpt2") + " --token-ids 5,17 --tokens 2 --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(zh.out.find("预填充") != std::string::npos);
}

TEST_CASE("attnlab generate refuses bad input in one line", "[generate][cli]") {
  std::string w = "generate --weights " + fixture("tiny-gpt2");
  for (const char* args : {" --token-ids 5,17 --tokens 0", " --token-ids 5,17 --tokens 257", " --token-ids 5,17 --tokens 40",
                           " --tokens 3", " --token-ids 5,99 --tokens 2"}) {
    INFO(args);
    CliResult r = run_cli(w + args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

}  // namespace file_test_generate
