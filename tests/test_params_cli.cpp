// The params, kv-cache and models commands run as a user would: exact strings, JSON schema,
// exit codes, one-line errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_params_cli {

namespace {
std::string fixture(const std::string& name) { return std::string(ATTNLAB_TEST_DIR) + "/fixtures/configs/" + name; }
int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST_CASE("params --model gpt2 prints 124,439,808 with its breakdown", "[params_cli]") {
  CliResult r = run_cli("params --model gpt2 --lang en");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("124,439,808"));
  CHECK_THAT(r.out, Catch::Contains("W_Q     [768, 768]     589,824"));
  CHECK_THAT(r.out, Catch::Contains("attention 33.3%, FFN 66.7%"));
  CHECK_THAT(r.out, Catch::Contains("matches"));
  CHECK(r.err.empty());
}

TEST_CASE("params --json has the issue's schema", "[params_cli]") {
  CliResult r = run_cli("params --model deepseek-v3 --json -");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"] == "deepseek-v3");
  CHECK(j["total_params"] == 671026419200u);
  CHECK(j["active_params"] == 37552297472u);
  CHECK(j["breakdown"]["layers"].size() == 2);
}

TEST_CASE("params --config reads a published config.json", "[params_cli]") {
  CliResult r = run_cli("params --config '" + fixture("qwen2.5-7b.json") + "' --json -");
  REQUIRE(r.code == 0);
  CHECK(nlohmann::json::parse(r.out)["total_params"] == 7615616512u);
}

TEST_CASE("kv-cache --model deepseek-v3 --seq-len 32768", "[params_cli]") {
  CliResult r = run_cli("kv-cache --model deepseek-v3 --seq-len 32768 --lang en");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("68.6 KiB (70,272 B)"));
  CHECK_THAT(r.out, Catch::Contains("2.1 GiB (2,302,672,896 B)"));
  CHECK_THAT(r.out, Catch::Contains("<- this model"));
  CHECK_THAT(r.out, Catch::Contains("93.3% less"));
  CHECK_THAT(r.out, Catch::Contains("MHA   ████"));
}

TEST_CASE("kv-cache --json has exactly the issue's schema", "[params_cli]") {
  CliResult r = run_cli("kv-cache --model llama-3-8b --seq-len 8192 --batch 2 --tp 2 --json -");
  REQUIRE(r.code == 0);
  auto j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"schema", "model", "dtype", "bytes_per_element", "seq_len", "batch", "tp", "actual", "variants"});
  CHECK(j["bytes_per_element"] == 2);
  CHECK(j["actual"]["bytes_per_token"] == 131072);
  CHECK(j["actual"]["total_bytes"] == 131072ull * 8192 * 2);
  CHECK(j["actual"]["per_gpu_bytes"] == 131072ull * 8192);
  CHECK(j["variants"].size() == 4);
  CHECK(j["variants"][0]["name"] == "mha");
  CHECK(j["variants"][0]["ratio_to_mha"] == 1.0);
  CHECK(j["variants"][1]["ratio_to_mha"] == 0.25);
}

TEST_CASE("kv-cache: an MLA cache larger than MHA's is 'N× as much', never 1/0.0", "[params_cli]") {
  // Before: --latent-dim 1000000000000 printed "MLA caches 1/0.0 of the first and 1/0.0 of the second".
  CliResult big = run_cli("kv-cache --model deepseek-v3 --latent-dim 1000000000000 --lang en");
  REQUIRE(big.code == 0);
  CHECK(big.out.find("1/0.0") == std::string::npos);
  CHECK_THAT(big.out, Catch::Contains("MLA caches 30517578.1× as much as the first and 24414062.5× as much as the second."));
  CliResult mixed = run_cli("kv-cache --model deepseek-v3 --latent-dim 40000 --lang zh");
  REQUIRE(mixed.code == 0);
  CHECK_THAT(mixed.out, Catch::Contains("MLA 的缓存是前者的 1.2 倍，后者的 1/1.0。"));
  CliResult usual = run_cli("kv-cache --model deepseek-v3 --lang en");
  CHECK_THAT(usual.out, Catch::Contains("MLA caches 1/56.9 of the first and 1/71.1 of the second."));
}

TEST_CASE("kv-cache --compare and --memory", "[params_cli]") {
  CliResult r = run_cli("kv-cache --compare llama-2-7b,llama-3-8b,falcon-7b,deepseek-v3 --seq-len 4096 --lang en");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("falcon-7b    MQA 1 x 64"));
  CHECK_THAT(r.out, Catch::Contains("2.0 GiB (2,147,483,648 B)"));  // llama-2-7b: 524,288 x 4,096
  CliResult m = run_cli("kv-cache --model llama-3-8b --memory 80GiB --lang en");
  REQUIRE(m.code == 0);
  // 80 GiB - 8,030,261,248 x 2 bytes = 69,838,823,424 bytes; / 131,072 = 532,827.5 -> 532,827 tokens;
  // / (131,072 x 4,096) = 130.1 -> 130 sequences.
  CHECK_THAT(m.out, Catch::Contains("tokens that fit: 532,827"));
  CHECK_THAT(m.out, Catch::Contains("sequences of 4,096 tokens that fit: 130"));
}

TEST_CASE("the chapter's 12 heads, 4 groups: 24 / 8 / 2 cached vectors per layer", "[params_cli]") {
  CliResult r = run_cli("kv-cache --d-model 768 --heads 12 --kv-heads 4 --lang en");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("2·n_h·d_h·l                    1,536             24"));
  CHECK_THAT(r.out, Catch::Contains("2·n_g·d_h·l (n_g=4)              512              8"));
  CHECK_THAT(r.out, Catch::Contains("2·d_h·l                          128              2"));
}

TEST_CASE("models lists every preset", "[params_cli]") {
  CliResult r = run_cli("models --lang en");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("deepseek-v3       MLA (d_c 512 + d_R 64)  671,026,419,200  37,552,297,472                 70,272  = exact"));
  CHECK_THAT(r.out, Catch::Contains("falcon-7b         MQA (1 KV head / 71)"));
  CliResult z = run_cli("models --lang zh");
  CHECK_THAT(z.out, Catch::Contains("总参数量"));
}

TEST_CASE("bad input: one line on stderr, nothing on stdout, exit 2", "[params_cli]") {
  for (const std::string& args :
       {std::string("params --model gpt5"), "params --config '" + fixture("bad-not-json.json") + "'",
        "params --config '" + fixture("bad-model-type.json") + "'", "params --config '" + fixture("bad-kv-heads.json") + "'",
        "params --config '" + fixture("bad-overflow.json") + "'", std::string("params"),
        std::string("kv-cache --model llama-3-8b --dtype fp64"), std::string("kv-cache --model falcon-7b --tp 8"),
        std::string("kv-cache --model llama-3-8b --memory lots"), std::string("kv-cache --model gpt2 --config x.json"),
        std::string("kv-cache --d-model 768 --heads 12 --kv-heads 5"),
        std::string("kv-cache --model llama-3-8b --seq-len 1152921504606846976 --batch 1048576")}) {
    INFO(args);
    CliResult r = run_cli(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
  }
  CHECK_THAT(run_cli("params --model gpt5").err, Catch::Contains("presets: deepseek-llm-67b, deepseek-v2"));
}

}  // namespace file_test_params_cli
