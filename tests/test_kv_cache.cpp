// KV-cache arithmetic: hand-checked bytes per token, sliding windows, tensor parallelism,
// the MHA/GQA/MQA/MLA what-ifs and sizes.
#include <catch2/catch.hpp>

#include "errors.h"
#include "models.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_kv_cache {

using namespace attn;

namespace {
const Dtype bf16{"bf16", 16};
std::string fixture(const std::string& name) { return std::string(ATTNLAB_TEST_DIR) + "/fixtures/configs/" + name; }
}  // namespace

TEST_CASE("bytes per token, worked by hand", "[kv]") {
  // Llama-3-8B: 2 (K,V) x 8 KV heads x 128 x 32 layers x 2 bytes = 131,072.
  CHECK(kv_usage(load_preset("llama-3-8b"), 1, 1, bf16, 1).bytes_per_token == 131072u);
  // DeepSeek-V3: (512 + 64) x 61 layers x 2 bytes = 70,272.
  CHECK(kv_usage(load_preset("deepseek-v3"), 1, 1, bf16, 1).bytes_per_token == 70272u);
  // Llama-2-7B (MHA): 2 x 32 x 128 x 32 x 2 = 524,288. Falcon-7B (MQA): 2 x 1 x 64 x 32 x 2 = 8,192.
  CHECK(kv_usage(load_preset("llama-2-7b"), 1, 1, bf16, 1).bytes_per_token == 524288u);
  CHECK(kv_usage(load_preset("falcon-7b"), 1, 1, bf16, 1).bytes_per_token == 8192u);
  // int4: half a byte per element; fp32: four.
  CHECK(kv_usage(load_preset("llama-3-8b"), 1, 1, parse_dtype("int4", "--dtype"), 1).bytes_per_token == 32768u);
  CHECK(kv_usage(load_preset("llama-3-8b"), 1, 1, parse_dtype("fp32", "--dtype"), 1).bytes_per_token == 262144u);
}

TEST_CASE("sequence and batch totals", "[kv]") {
  // Llama-3-8B at 8,192 tokens x batch 4: 131,072 x 8,192 x 4 = 4 GiB.
  KvUsage u = kv_usage(load_preset("llama-3-8b"), 8192, 4, bf16, 1);
  CHECK(u.total_bytes == 4294967296u);
  CHECK(u.per_gpu_bytes == u.total_bytes);
}

TEST_CASE("sliding windows hold at most the window", "[kv]") {
  ModelConfig mistral = load_preset("mistral-7b-v0.1");
  // All 32 layers slide with window 4096: 32,768 tokens cost what 4,096 do.
  CHECK(kv_usage(mistral, 32768, 1, bf16, 1).total_bytes == 131072u * 4096);
  CHECK(kv_usage(mistral, 1000, 1, bf16, 1).total_bytes == 131072u * 1000);
  // Gemma 2 9B: 21 even layers local (window 4096), 21 odd layers global; per layer 2 x 8 x 256 x 2 bytes = 8,192.
  ModelConfig g = load_config_file(fixture("gemma-2-9b.json"));
  CHECK(kv_usage(g, 8192, 1, bf16, 1).total_bytes == 8192u * (21 * 4096 + 21 * 8192));
  CHECK(kv_usage(g, 8192, 1, bf16, 1).sliding_layers == 21);
  // tiny mistral, window 4, 2 layers of 16 elements: 10 tokens -> 2 x 4 x 16 x 2 bytes = 256.
  CHECK(kv_usage(load_config_file(fixture("tiny-mistral.json")), 10, 1, bf16, 1).total_bytes == 256u);
}

TEST_CASE("tensor parallelism: split, replicate, MLA replicated", "[kv]") {
  ModelConfig llama = load_preset("llama-3-8b");  // 8 KV heads
  // tp 2: 4 heads per GPU -> half the cache per GPU.
  CHECK(kv_usage(llama, 1024, 1, bf16, 2).per_gpu_bytes == 131072u * 1024 / 2);
  // tp 8: one head each; tp 16 (> 8): still one head each, replicated twice.
  CHECK(kv_usage(llama, 1024, 1, bf16, 8).per_gpu_bytes == 131072u * 1024 / 8);
  CHECK(kv_usage(llama, 1024, 1, bf16, 16).per_gpu_bytes == 131072u * 1024 / 8);
  // MLA: the latent is on every rank.
  ModelConfig v3 = load_preset("deepseek-v3");
  CHECK(kv_usage(v3, 1024, 1, bf16, 8).per_gpu_bytes == 70272u * 1024);
  // tp must divide the heads; and divide or be a multiple of the KV heads.
  CHECK(usage_error([] { kv_usage(load_preset("falcon-7b"), 1, 1, bf16, 2); }) == "calc.err.tp_heads tp=2 n_h=71");
  CHECK(usage_error([&] { kv_usage(llama, 1, 1, bf16, 3); }) == "calc.err.tp_heads tp=3 n_h=32");
  CHECK_THROWS_AS(kv_usage(llama, 1, 1, bf16, 0), UsageError);
}

TEST_CASE("what-ifs: the chapter's 24 / 8 / 2 vectors, ratios, DeepSeek-V2's MLA rule", "[kv]") {
  ModelDims d;
  d.d_model = 768;
  d.heads = 12;
  d.kv_heads = 4;
  ModelConfig m = model_from_dims(d);
  auto v = kv_variants(m, whatif_dims(m, 0, 0, 0), 1, 1, bf16);
  REQUIRE(v.size() == 4);
  CHECK(v[0].vectors_per_layer == 24);
  CHECK(v[1].vectors_per_layer == 8);
  CHECK(v[1].actual);
  CHECK(v[2].vectors_per_layer == 2);
  CHECK(v[1].ratio_to_mha == Approx(1.0 / 3));
  // MLA by the rule d_c = 4 x 64 = 256, d_R = 32: 288 elements vs MHA 2 x 12 x 64 = 1,536.
  CHECK(v[3].elements_per_layer == 288u);
  CHECK(v[3].ratio_to_mha == Approx(288.0 / 1536));
}

TEST_CASE("what-ifs for DeepSeek-V3 use its own latent", "[kv]") {
  ModelConfig m = load_preset("deepseek-v3");
  auto v = kv_variants(m, whatif_dims(m, 0, 0, 0), 32768, 1, bf16);
  REQUIRE(v.back().name == "mla");
  CHECK(v.back().actual);
  CHECK(v.back().bytes_per_token == 70272u);
  // MHA on the same dims: 2 x 128 x 128 x 61 x 2 bytes = 3,997,696.
  CHECK(v.front().bytes_per_token == 3997696u);
  CHECK(v.back().ratio_to_mha == Approx(576.0 / 32768));
  CHECK(usage_error([&] { whatif_dims(m, 5, 0, 0); }) == "calc.err.kv_heads_divide kv_heads=5 n_h=128");
}

TEST_CASE("sizes and dtypes", "[kv]") {
  CHECK(parse_size("80GiB", "--memory") == 85899345920u);
  CHECK(parse_size("40GB", "--memory") == 40000000000u);
  CHECK(parse_size("1.5KiB", "--memory") == 1536u);
  CHECK(usage_error([] { parse_size("80 gigs", "--memory"); }) == "calc.err.size_bad flag=--memory value=80 gigs");
  CHECK(usage_error([] { parse_dtype("fp64", "--dtype"); }) == "calc.err.dtype_unknown flag=--dtype value=fp64");
  // 2^40 tokens of Llama-3-8B overflow nothing; 2^60 x 2^40 would: an error, never wrapped.
  CHECK_THAT(usage_error([] { kv_usage(load_preset("llama-3-8b"), u64{1} << 60, u64{1} << 20, bf16, 1); }),
             Catch::StartsWith("calc.err.overflow_mul"));
}

}  // namespace file_test_kv_cache
