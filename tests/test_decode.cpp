// decode: token-by-token generation with a KV cache equals a full causal forward (and a numpy
// reference that has no cache at all), the multiply-adds counted in the kernel equal the
// formula, the per-variant bytes and multiply-adds worked by hand, the roofline, and the CLI.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

#include "decode.h"
#include "golden.h"
#include "lesson_args.h"
#include "random.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_decode {

using namespace attn;

namespace {

Trace run_decode(const std::vector<std::pair<std::string, std::string>>& flags, std::int64_t seed = 42) {
  std::unique_ptr<LessonRun> run = find_lesson("decode")->make();
  ArgsBinder b;
  run->bind(b);
  for (const auto& [flag, value] : flags) b.set(flag, value);
  return run->run(RunContext{Lang::En, seed});
}

double value(const Trace& t, const std::string& name) {
  for (const Step& s : t.steps)
    for (const Value& v : s.values)
      if (v.name == name) return std::holds_alternative<double>(v.value) ? std::get<double>(v.value)
                                                                         : static_cast<double>(std::get<std::int64_t>(v.value));
  FAIL("no value " << name);
  return 0;
}

}  // namespace

TEST_CASE("decode: golden fixture from numpy for the default run", "[decode][golden]") {
  Trace t = run_decode({});
  check_golden(t, "decode_default");
}

TEST_CASE("decode: golden fixture from numpy for MHA with 3 layers and 12 tokens", "[decode][golden]") {
  Trace t = run_decode({{"--generate", "11"}, {"--vocab", "24"}, {"--d-model", "24"}, {"--heads", "4"},
                        {"--kv-heads", "4"}, {"--layers", "3"}}, 7);
  check_golden(t, "decode_mha_3layers");
}

TEST_CASE("decode: the cached run equals the full causal forward within 1e-12", "[decode]") {
  for (auto [H, G, L] : {std::tuple<std::size_t, std::size_t, std::size_t>{4, 4, 1}, {4, 2, 2}, {6, 1, 3}}) {
    DecodeDims d{20, 24, H, G, 24 / H, L, 30};
    Rng rng(3);
    DecodeModel m = init_decode_model(rng, d);
    DecodeRun run = decode_greedy(m, d, {5, 2, 7});
    REQUIRE(run.tokens.size() == 30);
    CHECK(run.tokens[0] == 5);
    CHECK(run.tokens[2] == 7);
    DecodeFull f = decode_full_forward(m, d, run.tokens);
    CHECK(max_abs_diff(run.logits, f.logits) <= 1e-12);
    CHECK(max_abs_diff(run.hidden, f.hidden) <= 1e-12);
    for (std::size_t l = 0; l < L; ++l) {
      CHECK(max_abs_diff(run.K_cache[l], f.K[l]) <= 1e-12);
      CHECK(max_abs_diff(run.V_cache[l], f.V[l]) <= 1e-12);
    }
    // each generated token is the argmax of the previous step's logits
    for (std::size_t t = 3; t < 30; ++t) {
      std::size_t best = 0;
      for (std::size_t j = 1; j < d.V; ++j)
        if (run.logits(t - 1, j) > run.logits(t - 1, best)) best = j;
      CHECK(run.tokens[t] == best);
    }
  }
  Trace t = run_decode({});
  CHECK(value(t, "logits_diff") <= 1e-12);
  CHECK(value(t, "cache_diff") <= 1e-12);
}

TEST_CASE("decode: multiply-adds counted in the kernel equal 2 h n d_h per layer", "[decode]") {
  DecodeDims d{10, 24, 6, 2, 4, 3, 9};
  Rng rng(1);
  DecodeModel m = init_decode_model(rng, d);
  DecodeRun run = decode_greedy(m, d, {0});
  for (std::size_t t = 0; t < d.T; ++t) {
    std::uint64_t n = t + 1;
    // by hand: 2 · 6 heads · n · 4 · 3 layers = 144 n
    CHECK(run.macs[t] == 144 * n);
    CHECK(run.macs[t] == decode_variant_costs(VariantDims{6, 2, 4, 0, 0}, n)[1].macs * 3);
  }
}

TEST_CASE("decode: per-variant bytes and multiply-adds worked by hand", "[decode]") {
  // h = 8, g = 2, d_h = 4, d_c = 8, d_R = 2, n = 10 cached tokens.
  std::vector<VariantCost> c = decode_variant_costs(VariantDims{8, 2, 4, 8, 2}, 10);
  REQUIRE(c.size() == 5);
  CHECK(c[0].id == "mha");
  CHECK(c[0].per_token == 64);       // 2·8·4
  CHECK(c[0].cache_read == 640);
  CHECK(c[0].macs == 640);           // 2·8·10·4
  CHECK(c[1].per_token == 16);       // 2·2·4
  CHECK(c[1].macs == 640);           // the same arithmetic as MHA
  CHECK(c[2].per_token == 8);        // 2·4
  CHECK(c[3].id == "mla_naive");
  CHECK(c[3].per_token == 80);       // 8·(4+2) + 8·4 = 48 + 32
  CHECK(c[3].macs == 800);           // 8·10·6 + 8·10·4 = 480 + 320
  CHECK(c[4].id == "mla_absorbed");
  CHECK(c[4].per_token == 10);       // 8 + 2
  CHECK(c[4].cache_read == 100);
  CHECK(c[4].macs == 1952);          // 8·4·8 + 8·10·10 + 8·10·8 + 8·8·4 = 256 + 800 + 640 + 256
  // intensity at 2 bytes per number: MHA 2·640/(640·2) = 1; absorbed 2·1952/(100·2) = 19.52
  CHECK(arithmetic_intensity(c[0], 2.0) == Approx(1.0));
  CHECK(arithmetic_intensity(c[1], 2.0) == Approx(4.0));
  CHECK(arithmetic_intensity(c[4], 2.0) == Approx(19.52));
  CHECK(roofline(1.0, 20.0, 100.0) == Approx(20.0));
  CHECK(roofline(19.52, 20.0, 100.0) == Approx(100.0));
  // DeepSeek-V3's sizes (h 128, d_h 128, d_c 512, d_R 64): the latent is 576 numbers per token
  // against MHA's 32,768 and the naive cache's 40,960.
  std::vector<VariantCost> v3 = decode_variant_costs(VariantDims{128, 8, 128, 512, 64}, 1);
  CHECK(v3[0].per_token == 32768);
  CHECK(v3[3].per_token == 40960);
  CHECK(v3[4].per_token == 576);
}

TEST_CASE("decode: the lesson's tables and roofline", "[decode]") {
  Trace t = run_decode({{"--bandwidth", "10"}, {"--peak", "50"}});
  CHECK(value(t, "balance_point") == Approx(5.0));
  CHECK(value(t, "macs_counted") == value(t, "macs_formula"));
  // the roofline tensor is log10 min(50, 10 I): flat at log10 50 on the right
  const Tensor& roof = t.at("roof").tensor;
  CHECK(roof.data.back() == Approx(std::log10(50.0)));
  CHECK(roof.data.front() < roof.data.back());
  // each variant's point is drawn at its intensity on the roof
  const Tensor& x = t.at("log10_intensity").tensor;
  const Tensor& mha = t.at("at_mha").tensor;
  std::size_t finite = 0;
  for (std::size_t i = 0; i < mha.numel(); ++i)
    if (std::isfinite(mha.data[i])) {
      ++finite;
      CHECK(std::fabs(x.data[i] - std::log10(1.0)) < 0.2);  // MHA: 1 FLOP per byte at bf16
    }
  CHECK(finite >= 2);
}

TEST_CASE("decode: the CLI in en and zh with JSON and bad input", "[decode][cli]") {
  CliResult en = run_cli("lesson decode");
  CHECK(en.code == 0);
  CHECK(en.out.find("MLA, absorbed") != std::string::npos);
  CliResult zh = run_cli("lesson decode --lang zh");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("屋顶线") != std::string::npos);
  CliResult j = run_cli("lesson decode --json - --generate 3");
  CHECK(j.code == 0);
  CHECK(nlohmann::json::parse(j.out)["lesson"] == "decode");
  for (const char* bad : {"lesson decode --kv-heads 3", "lesson decode --generate 0", "lesson decode --bandwidth -1",
                          "lesson decode --rope-dim 3", "lesson decode --generate 100000", "lesson decode --layers 65",
                          "lesson decode --bytes-per-number 9", "lesson decode --rope-dim 1152921504606846976",
                          "lesson decode --rope-dim 2097152", "lesson decode --latent-dim 2097152"}) {
    CliResult r = run_cli(bad);
    INFO(bad << "\n" << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

}  // namespace file_test_decode
