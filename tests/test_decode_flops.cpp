// flops: the per-layer multiply-add formulas worked by hand, checked against the decode
// lesson's own counted kernel, the "one big head" claim, and the CLI.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "decode.h"
#include "decode_flops.h"
#include "random.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_decode_flops {

using namespace attn;

TEST_CASE("flops: prefill multiply-adds of a small layer worked by hand", "[flops]") {
  // D 8, h 2, g 1, d_h 4, d_c 6, d_R 2, no query latent, FFN 16 not gated; T = 3 -> 6 pairs per head.
  FlopDims d{8, 2, 1, 4, 6, 2, 0, 16, false};
  std::vector<LayerFlops> f = prefill_flops(d, 3);
  REQUIRE(f.size() == 6);
  const LayerFlops& mha = f[0];
  CHECK(mha.q_proj == 192);       // 3 rows · 8 · 2·4
  CHECK(mha.kv_proj == 384);      // 3 · 8 · 2·2·4
  CHECK(mha.scores == 48);        // 6 pairs · 2 heads · 4
  CHECK(mha.softmax_exp == 12);   // 6 · 2
  CHECK(mha.weighted_sum == 48);
  CHECK(mha.out_proj == 192);     // 3 · 8 · 8
  CHECK(mha.ffn == 768);          // 3 · 2 · 8 · 16
  CHECK(mha.macs() == 192 + 384 + 48 + 48 + 192 + 768);
  CHECK(f[2].kv_proj == 192);     // MQA: 3 · 8 · 2·1·4
  const LayerFlops& naive = f[3];
  CHECK(naive.q_proj == 288);     // 3 · 8 · 2·(4+2)
  CHECK(naive.kv_proj == 480);    // 3 · (8·(6+2) + 6·2·2·4) = 3 · (64 + 96)
  CHECK(naive.scores == 72);      // 6 · 2 · 6
  const LayerFlops& abs = f[4];
  CHECK(abs.q_proj == 288 + 144); // + 3 · 2·4·6 (W_UK folded)
  CHECK(abs.kv_proj == 192);      // 3 · 8 · 8
  CHECK(abs.scores == 96);        // 6 · 2 · (6+2)
  CHECK(abs.weighted_sum == 72);  // 6 · 2 · 6
  CHECK(abs.out_proj == 144 + 192);  // 3 · (2·6·4 + 2·4·8)
}

TEST_CASE("flops: h heads cost the matmuls of one big head and h times the exponentials", "[flops]") {
  FlopDims d{4096, 32, 8, 128, 512, 64, 0, 14336, true};
  for (std::uint64_t T : {1u, 17u, 4096u}) {
    std::vector<LayerFlops> f = prefill_flops(d, T);
    const LayerFlops &mha = f[0], &one = f[5];
    CHECK(mha.macs() == one.macs());
    CHECK(mha.softmax_exp == 32 * one.softmax_exp);
    CHECK(one.softmax_exp == T * (T + 1) / 2);
  }
}

TEST_CASE("flops: the decode step's scores and sums equal the lesson kernel's counted multiply-adds", "[flops]") {
  DecodeDims dd{12, 16, 4, 2, 4, 2, 6};
  Rng rng(9);
  DecodeModel m = init_decode_model(rng, dd);
  DecodeRun run = decode_greedy(m, dd, {1});
  FlopDims d{16, 4, 2, 4, 8, 2, 0, 64, true};
  for (std::uint64_t n = 1; n <= dd.T; ++n) {
    LayerFlops gqa = decode_flops(d, n)[1];
    CHECK((gqa.scores + gqa.weighted_sum) * dd.L == run.macs[n - 1]);
    CHECK(gqa.scores + gqa.weighted_sum == decode_variant_costs(VariantDims{4, 2, 4, 8, 2}, n)[1].macs);
  }
}

TEST_CASE("flops: the CLI with JSON and bad input", "[flops][cli]") {
  CliResult r = run_cli("flops --model llama-3-8b --seq-len 4096 --context 4096");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("identical") != std::string::npos);
  CliResult z = run_cli("flops --model deepseek-v3 --lang zh");
  CHECK(z.code == 0);
  CHECK(z.out.find("预填充") != std::string::npos);
  CliResult j = run_cli("flops --model llama-3-8b --seq-len 2 --context 10 --json -");
  REQUIRE(j.code == 0);
  nlohmann::json doc = nlohmann::json::parse(j.out);
  // llama-3-8b decode at n = 10, GQA (its own g = 8): scores 10 · 32 · 128 = 40,960
  CHECK(doc["decode"]["variants"][1]["scores"] == 40960);
  CHECK(doc["prefill"]["variants"][0]["softmax_exp"] == 3 * 32);  // T = 2: 3 pairs · 32 heads
  // Concurrency at 4,096 tokens in 80 GiB: weights 8,030,261,248 · 2 = 16,060,522,496 bytes, free
  // 85,899,345,920 − 16,060,522,496 = 69,838,823,424. Per sequence (32 layers, bf16, 4,096 tokens):
  // MHA 2·32·128 · 32 · 2 · 4096 = 2 GiB -> 32; GQA g 8 -> 512 MiB -> 130; MQA 64 MiB -> 1,040;
  // MLA (512 + 64) · 32 · 2 · 4096 = 150,994,944 -> 462, 3.55 times GQA.
  CliResult c = run_cli("flops --model llama-3-8b --json -");
  REQUIRE(c.code == 0);
  nlohmann::json fits = nlohmann::json::parse(c.out)["concurrency"]["variants"];
  REQUIRE(fits.size() == 4);
  CHECK(fits[0]["sequences"] == 32);
  CHECK(fits[1]["sequences"] == 130);
  CHECK(fits[2]["sequences"] == 1040);
  CHECK(fits[3]["sequences"] == 462);
  CHECK(fits[3]["bytes_per_sequence"] == 150994944);
  for (const char* bad : {"flops --model gpt2 --seq-len 0", "flops --model gpt2 --memory lots", "flops --model nosuch", "flops --model gpt2 --context 0"}) {
    CliResult e = run_cli(bad);
    INFO(bad << "\n" << e.err);
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
}

TEST_CASE("flops: counts that would pass 2^64 are refused, never printed wrapped", "[flops][cli]") {
  // DeepSeek-V3 at T = 2^24: the absorbed MLA's scores alone are T(T+1)/2 · 128 · 576 ≈ 1.04e19
  // multiply-adds, so its FLOP (about 3.9e19 in all) pass 2^64 ≈ 1.84e19.
  for (const char* bad : {"flops --model deepseek-v3 --seq-len 16777216", "flops --d-model 131072 --heads 128 --seq-len 16777216",
                          "flops --d-model 4096 --heads 32 --head-dim 1000000000000 --json -"}) {
    CliResult e = run_cli(bad);
    INFO(bad << "\n" << e.err);
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(e.err.find("overflow 64 bits") != std::string::npos);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
  // The largest that fits still prints: 2^24 tokens of Llama 3 8B.
  CliResult ok = run_cli("flops --model llama-3-8b --seq-len 16777216 --json -");
  REQUIRE(ok.code == 0);
  nlohmann::json j = nlohmann::json::parse(ok.out);
  for (const auto& v : j["prefill"]["variants"]) {
    std::uint64_t parts = 0;
    for (const char* k : {"q_proj", "kv_proj", "scores", "weighted_sum", "out_proj", "ffn"}) parts += v[k].get<std::uint64_t>();
    CHECK(v["macs"].get<std::uint64_t>() == parts);
    CHECK(v["flops"].get<std::uint64_t>() == 2 * parts);
  }
}

TEST_CASE("flops: layer_flops throws instead of wrapping", "[flops]") {
  FlopDims d{1u << 20, 1u << 10, 1u << 10, 1u << 10, 512, 64, 0, 1u << 20, true};
  CHECK_NOTHROW(layer_flops(d, 1, 1));
  CHECK_THROWS_AS(layer_flops(d, std::uint64_t{1} << 30, 1), std::overflow_error);   // rows · D · H · Dh = 2^70
  // With every width 1 only T(T+1) itself passes 2^64 (T = 2^33): an unchecked product would wrap
  // to a small count and throw nothing.
  FlopDims one{1, 1, 1, 1, 0, 0, 0, 1, false};
  CHECK_NOTHROW(prefill_flops(one, std::uint64_t{1} << 30));
  CHECK_THROWS_AS(prefill_flops(one, std::uint64_t{1} << 33), std::overflow_error);
}

}  // namespace file_test_decode_flops
