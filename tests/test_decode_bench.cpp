// bench: the byte and FLOP counts of the benchmark path worked by hand (never its timings), the
// JSON keys the issue names, and bad input. The timed runs use --min-time 0 and tiny sizes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

#include "decode.h"
#include "decode_bench.h"
#include "parallel.h"
#include "run_cli.h"

using namespace attn;

TEST_CASE("bench: cache bytes and FLOP per variant worked by hand", "[bench]") {
  // llama-3-8b: h 32, g 8, d_h 128; MLA what-if d_c = 4·128 = 512, d_R = 64.
  std::vector<BenchVariant> v = bench_variants(32, 8, 128, 512, 64);
  REQUIRE(v.size() == 5);
  // MHA, one sequence, 16,384 tokens: 16384 · 32 · (128 + 128) = 134,217,728 numbers (512 MiB in f32)
  CHECK(bench_cache_numbers(v[0], 1, 16384) == 134217728);
  // FLOP: 2 · 16384 · 32 · 256 = 268,435,456 — 2 FLOP per 4-byte number: 0.5 FLOP/byte
  CHECK(bench_flops(v[0], 1, 16384) == 268435456);
  // GQA g = 8: a quarter of MHA's numbers, the same FLOP
  CHECK(bench_cache_numbers(v[1], 1, 16384) == 33554432);
  CHECK(bench_flops(v[1], 1, 16384) == 268435456);
  // MQA: 16384 · 256 = 4,194,304
  CHECK(bench_cache_numbers(v[2], 1, 16384) == 4194304);
  // MLA naive: keys 128 + 64 and values 128 per head: 16384 · 32 · 320 = 167,772,160
  CHECK(bench_cache_numbers(v[3], 1, 16384) == 167772160);
  // MLA absorbed: one latent row of 512 + 64 per token, batch 2: 2 · 16384 · 576 = 18,874,368
  CHECK(bench_cache_numbers(v[4], 2, 16384) == 18874368);
  // FLOP: 2 · 2 · 16384 · 32 · (576 + 512) = 2,281,701,376
  CHECK(bench_flops(v[4], 2, 16384) == 2281701376ULL);
}

TEST_CASE("bench: the benchmark's counts agree with the lesson's per-variant formulas", "[bench]") {
  // h 8, g 2, d_h 16, d_c 32, d_R 8, n = 100: numbers read are the lesson's cache_read; the
  // FLOP are twice the lesson's multiply-adds over the cache (the absorbed path's fixed
  // W_UK / W_UV work, h·d_h·d_c each, is not part of the benchmark kernel).
  std::vector<BenchVariant> b = bench_variants(8, 2, 16, 32, 8);
  std::vector<VariantCost> l = decode_variant_costs(VariantDims{8, 2, 16, 32, 8}, 100);
  for (std::size_t k = 0; k < 5; ++k) {
    INFO(b[k].id);
    CHECK(b[k].id == l[k].id);
    CHECK(bench_cache_numbers(b[k], 1, 100) == l[k].cache_read);
  }
  for (std::size_t k = 0; k < 4; ++k) CHECK(bench_flops(b[k], 1, 100) == 2 * l[k].macs);
  CHECK(bench_flops(b[4], 1, 100) == 2 * (l[4].macs - 2 * 8 * 16 * 32));
}

TEST_CASE("bench: every variant's kernel runs in f32 and bf16 and reports the formula's bytes", "[bench]") {
  // Every variant runs; the checksum is finite and the byte count is the formula's.
  for (const BenchVariant& v : bench_variants(4, 2, 8, 16, 8)) {
    DecodeBenchResult r = bench_decode_variant(v, 2, 300, 4, 1, 0.0);
    INFO(v.id);
    CHECK(r.bytes == bench_cache_numbers(v, 2, 300) * 4);
    CHECK(r.flops == bench_flops(v, 2, 300));
    CHECK(std::isfinite(r.checksum));
    DecodeBenchResult h = bench_decode_variant(v, 2, 300, 2, 1, 0.0);
    CHECK(h.bytes == bench_cache_numbers(v, 2, 300) * 2);
  }
}

TEST_CASE("bench: sysfs cache sizes are read in bytes, anything else is 0", "[bench]") {
  CHECK(parse_cache_size("32768K\n") == 32ull << 20);
  CHECK(parse_cache_size("2M") == 2ull << 20);
  CHECK(parse_cache_size("1G") == 1ull << 30);
  CHECK(parse_cache_size("512") == 512);
  CHECK(parse_cache_size("") == 0);
  CHECK(parse_cache_size("K") == 0);
  CHECK(parse_cache_size("12X") == 0);
  CHECK(parse_cache_size("99999999999999999999K") == 0);  // past 64 bits: not wrapped around
  CHECK(parse_cache_size("18014398509481984K") == 0);     // 2^54 KiB = 2^64 bytes
}

TEST_CASE("bench: every kernel's decode step is attention over the whole cache, as a plain double loop computes it", "[bench]") {
  // The kernels are compared with each other below; this compares them all with softmax over all
  // N scores at once, so a row skipped or summed twice by the blocked, threaded path fails.
  // 501 rows: blocks of 64 and a last one of odd length; 449: a last block of one row. Three
  // threads: MQA's one cache is split in three pieces, GQA's two in two, and the pieces' softmaxes
  // are combined. 10 heads in 2 groups: 5 query heads a KV head, two pairs and a lone head.
  struct ThreadsGuard {
    ~ThreadsGuard() { set_threads(0); }
  } guard;
  set_threads(3);
  std::vector<BenchVariant> variants = bench_variants(8, 2, 24, 16, 8), wide = bench_variants(8, 2, 136, 144, 8),
                            odd = bench_variants(10, 2, 24, 16, 8);
  variants.insert(variants.end(), wide.begin(), wide.end());
  variants.insert(variants.end(), odd.begin(), odd.end());
  for (const BenchVariant& v : variants)
    for (std::uint64_t N : {501, 449})
      for (int bytes : {4, 2}) {
        BenchReference ref = bench_decode_reference(v, 1, N, bytes);
        REQUIRE(ref.magnitude > 0);
        for (DecodeKernel k : {DecodeKernel::Portable, DecodeKernel::Avx2, DecodeKernel::Avx512}) {
          DecodeBenchResult r = bench_decode_variant(v, 1, N, bytes, 1, 0.0, k);
          INFO(v.id << " H " << v.H << " G " << v.G << ", " << N << " rows, " << bytes << " bytes, " << r.kernel << ": "
                    << r.checksum << " vs " << ref.checksum);
          // float32 scores, exp and sums: within 5e-7 of the scale here (measured), 1e-5 allowed
          CHECK(std::fabs(r.checksum - ref.checksum) <= 1e-5 * ref.magnitude);
        }
      }
}

TEST_CASE("bench: the AVX-512 and AVX2 kernels, where the CPU has them, compute what the portable one does", "[bench]") {
  // d_h 24: the 8-wide tails only (and AVX-512's 16 + 8); d_h 72 with 8 heads in 2 groups: the
  // 4-head dot, the 16-wide steps, the 64-column weighted sum and their tails; d_h 136 with 8
  // heads: AVX-512's 128-column weighted sums and a tail of 8 after them
  std::vector<BenchVariant> variants = bench_variants(4, 2, 24, 16, 8), wide = bench_variants(8, 2, 72, 80, 8),
                            wider = bench_variants(8, 2, 136, 144, 8);
  variants.insert(variants.end(), wide.begin(), wide.end());
  variants.insert(variants.end(), wider.begin(), wider.end());
  for (const BenchVariant& v : variants)
    for (int bytes : {4, 2}) {
      INFO(v.id << " " << bytes << " bytes");
      // 501 rows: a last block of odd length, its last key row scored alone
      DecodeBenchResult p = bench_decode_variant(v, 2, 501, bytes, 1, 0.0, DecodeKernel::Portable);
      CHECK(p.kernel == "portable");
      for (DecodeKernel k : {DecodeKernel::Automatic, DecodeKernel::Avx512, DecodeKernel::Avx2}) {
        DecodeBenchResult a = bench_decode_variant(v, 2, 501, bytes, 1, 0.0, k);
        INFO(a.kernel);
        // the kernel asked for ran wherever this CPU has it (so on an AVX-512 machine both fast
        // kernels are compared with the portable one here)
        CHECK(a.kernel == decode_kernel_name(k));
        if (k == DecodeKernel::Avx2 && decode_kernel_available(DecodeKernel::Avx2)) CHECK(a.kernel == "avx2");
        if (k == DecodeKernel::Avx512 && decode_kernel_available(DecodeKernel::Avx512)) CHECK(a.kernel == "avx512");
        // float32 sums in a different order (and fused): equal to a few units in the last place of
        // each output; the checksum weights each output by its position, so misplaced ones count
        CHECK(std::fabs(a.checksum - p.checksum) <= 1e-4 * (1.0 + std::fabs(p.checksum)));
        CHECK(a.bytes == p.bytes);
      }
    }
}

TEST_CASE("bench: JSON keys and bad input", "[bench][cli]") {
  CliResult r = run_cli("bench decode --model llama-3-8b --seq-len 64 --min-time 0 --json -");
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["memory_gb_per_s"].get<double>() > 0);
  CHECK((j["kernel"] == "avx512" || j["kernel"] == "avx2" || j["kernel"] == "portable"));
  REQUIRE(j["variants"].size() == 5);
  for (const auto& v : j["variants"])
    for (const char* key : {"name", "bytes_per_token", "seconds_per_token", "gb_per_s", "gflop_per_s"}) CHECK(v.contains(key));
  CHECK(j["variants"][0]["bytes_per_token"] == 64 * 32 * 256 * 4);  // 64 tokens · h 32 · (128 + 128) · 4 bytes
  CliResult m = run_cli("bench memory --size-mib 64 --min-time 0 --json -");
  REQUIRE(m.code == 0);
  CHECK(nlohmann::json::parse(m.out)["memory_gb_per_s"].get<double>() > 0);
  for (const char* bad : {"bench decode", "bench decode --model gpt2 --config x.json", "bench decode --model nosuch",
                          "bench decode --model gpt2 --seq-len 0", "bench decode --model gpt2 --dtype fp8",
                          "bench memory --size-mib 1", "bench memory --min-time -1", "bench decode --model gpt2 --threads 0"}) {
    CliResult e = run_cli(bad);
    INFO(bad << "\n" << e.err);
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
  // --kernel: a name that is not a kernel, and each kernel by name where this CPU runs it (the
  // output then names that kernel) or its one-line refusal where it does not
  CliResult k = run_cli("bench decode --model gpt2 --seq-len 64 --min-time 0 --kernel sse9");
  CHECK(k.code == 2);
  CHECK(k.err.find("--kernel must be auto, avx512, avx2 or portable (got sse9)") != std::string::npos);
  const std::pair<const char*, DecodeKernel> kernels[] = {
      {"avx512", DecodeKernel::Avx512}, {"avx2", DecodeKernel::Avx2}, {"portable", DecodeKernel::Portable}};
  for (auto [name, kind] : kernels) {
    INFO(name);
    CliResult e = run_cli(std::string("bench decode --model gpt2 --seq-len 64 --min-time 0 --json - --kernel ") + name);
    CHECK(e.code == (decode_kernel_available(kind) ? 0 : 2));  // portable runs everywhere
    if (e.code == 0) {
      CHECK(nlohmann::json::parse(e.out)["kernel"] == name);
    } else {
      CHECK(e.code == 2);
      CHECK(e.out.empty());
      CHECK(e.err.find(std::string("--kernel ") + name + ": this CPU cannot run that kernel") != std::string::npos);
    }
  }
}
