// kv-cache --memory per variant: how many sequences fit next to the weights, MHA vs GQA vs MQA vs
// MLA on the same weights, counted by hand for Llama 3 8B; en, zh, JSON, and weights that do not fit.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_kv_memory_fit {

// Llama 3 8B in 80 GiB at 4,096 tokens: weights 8,030,261,248 · 2 = 16,060,522,496 bytes, free
// 85,899,345,920 − 16,060,522,496 = 69,838,823,424. One sequence's cache (32 layers, bf16):
//   MHA 2·32·128 · 32 · 2 · 4096 = 2,147,483,648 -> 32 sequences
//   GQA g 8: 536,870,912 -> 130;  MQA: 67,108,864 -> 1,040
//   MLA (d_c 512 + d_R 64) · 32 · 2 · 4096 = 150,994,944 -> 462: 14.4× MHA, 3.6× GQA.
TEST_CASE("kv-cache --memory: sequences per variant worked by hand", "[kv_memory_fit][cli]") {
  CliResult j = run_cli("kv-cache --model llama-3-8b --memory 80GiB --json -");
  REQUIRE(j.code == 0);
  nlohmann::json mem = nlohmann::json::parse(j.out)["memory"];
  CHECK(mem["weights_bytes"] == 16060522496u);
  CHECK(mem["free_bytes"] == 69838823424u);
  CHECK(mem["sequences"] == 130);  // the model's own cache is GQA
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> want = {
      {"mha", {2147483648u, 32}}, {"gqa", {536870912u, 130}}, {"mqa", {67108864u, 1040}}, {"mla", {150994944u, 462}}};
  std::size_t seen = 0;
  for (const auto& v : mem["variants"]) {
    auto it = want.find(v["name"].get<std::string>());
    if (it == want.end()) continue;
    ++seen;
    INFO(it->first);
    CHECK(v["bytes_per_sequence"] == it->second.first);
    CHECK(v["sequences"] == it->second.second);
  }
  CHECK(seen == 4);

  CliResult en = run_cli("kv-cache --model llama-3-8b --memory 80GiB --lang en");
  REQUIRE(en.code == 0);
  CHECK(en.out.find("462 sequences fit where MHA fits 32: 14.4× the concurrency, and 3.6× GQA's 130") != std::string::npos);
  CliResult zh = run_cli("kv-cache --model llama-3-8b --memory 80GiB --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(zh.out.find("并发量是 14.4 倍") != std::string::npos);
}

TEST_CASE("kv-cache --memory: weights that do not fit leave no sequences", "[kv_memory_fit][cli]") {
  CliResult j = run_cli("kv-cache --model llama-3-8b --memory 8GiB --json -");
  REQUIRE(j.code == 0);
  nlohmann::json mem = nlohmann::json::parse(j.out)["memory"];
  CHECK(mem["free_bytes"] == 0);
  for (const auto& v : mem["variants"]) CHECK(v["sequences"] == 0);
  CliResult en = run_cli("kv-cache --model llama-3-8b --memory 8GiB --lang en");
  REQUIRE(en.code == 0);
  CHECK(en.out.find("do not fit") != std::string::npos);
  CliResult bad = run_cli("kv-cache --model llama-3-8b --memory lots --json -");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
}

// With --tp 2 each GPU holds half the weights (8,030,261,248 B; free 77,869,084,672) and its share of
// the cache: MHA's and GQA's heads split (1 GiB -> 72, 256 MiB -> 290), MQA's one KV head and MLA's
// latent replicated on both GPUs (64 MiB -> 1,160; 150,994,944 B -> 515). Under tensor parallelism
// MLA's lead over GQA shrinks from 3.6× to 1.8×.
TEST_CASE("kv-cache --memory with --tp 2: per-GPU caches worked by hand", "[kv_memory_fit][cli]") {
  CliResult j = run_cli("kv-cache --model llama-3-8b --memory 80GiB --tp 2 --json -");
  REQUIRE(j.code == 0);
  nlohmann::json mem = nlohmann::json::parse(j.out)["memory"];
  CHECK(mem["weights_bytes"] == 8030261248u);
  CHECK(mem["free_bytes"] == 77869084672u);
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> want = {
      {"mha", {1073741824u, 72}}, {"gqa", {268435456u, 290}}, {"mqa", {67108864u, 1160}}, {"mla", {150994944u, 515}}};
  std::size_t seen = 0;
  for (const auto& v : mem["variants"]) {
    auto it = want.find(v["name"].get<std::string>());
    if (it == want.end()) continue;
    ++seen;
    INFO(it->first);
    CHECK(v["bytes_per_sequence"] == it->second.first);
    CHECK(v["sequences"] == it->second.second);
  }
  CHECK(seen == 4);
}

}  // namespace file_test_kv_memory_fit
