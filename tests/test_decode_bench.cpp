// bench: the byte and FLOP counts of the benchmark path worked by hand (never its timings), the
// JSON keys the issue names, and bad input. The timed runs use --min-time 0 and tiny sizes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "decode.h"
#include "decode_bench.h"
#include "decode_rounds.h"
#include "machine.h"
#include "parallel.h"
#include "roofline.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_decode_bench {

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
  // 501 rows: blocks of 64 and a last one of odd length; 449: a last block of one row; 2,500 rows:
  // each cache in three pieces of at most 1,024 rows, whose softmaxes are combined, taken by three
  // threads. 10 heads in 2 groups: 5 query heads a KV head, two pairs and a lone head.
  struct ThreadsGuard {
    ~ThreadsGuard() { set_threads(0); }
  } guard;
  set_threads(3);
  std::vector<BenchVariant> variants = bench_variants(8, 2, 24, 16, 8), wide = bench_variants(8, 2, 136, 144, 8),
                            odd = bench_variants(10, 2, 24, 16, 8);
  variants.insert(variants.end(), wide.begin(), wide.end());
  variants.insert(variants.end(), odd.begin(), odd.end());
  for (const BenchVariant& v : variants)
    for (std::uint64_t N : {501, 449, 2500})
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

TEST_CASE("bench: every kernel's block max is the largest score, wherever it sits in the block", "[bench]") {
  // Softmax is the same for any shift, so the decode tests above pass with a wrong max; only the
  // range (overflow, underflow) depends on it. Blocks of 1 to 70 scores: the 8- and 16-wide steps
  // and every tail length; the largest score at each position, the rest below it (negative, as
  // scaled scores often are).
  // Largest positive, or every score negative (a running max started at 0 instead of −∞ fails
  // there), or every score −∞ (a block the mask took whole).
  for (DecodeKernel k : {DecodeKernel::Portable, DecodeKernel::Avx2, DecodeKernel::Avx512})
    for (float top : {0.5f, -0.75f})
      for (std::size_t n = 1; n <= 70; ++n) {
        for (std::size_t at = 0; at < n; ++at) {
          std::vector<float> s(n);
          for (std::size_t j = 0; j < n; ++j) s[j] = -1.0f - static_cast<float>((j * 7) % 13);
          s[at] = top > 0 ? top + static_cast<float>(n) : top;
          INFO(decode_kernel_name(k) << ": " << n << " scores, the largest " << s[at] << " at " << at);
          REQUIRE(bench_block_max(k, s.data(), n) == *std::max_element(s.begin(), s.end()));
        }
        std::vector<float> none(n, -INFINITY);
        INFO(decode_kernel_name(k) << ": " << n << " scores, all −∞");
        REQUIRE(bench_block_max(k, none.data(), n) == -INFINITY);
      }
}

TEST_CASE("bench: the stream read adds every word once, at any thread count", "[bench]") {
  // Words 1, 2, 3, … (no wrap at these sizes): the sum is n(n + 1)/2 only if no word is skipped
  // or read twice. 16 words: one thread's tail; 48 and 4,112: chunks whose four streams leave a
  // tail; 65,552: long streams with the 2 KiB prefetch (a sum still below 2^32).
  struct ThreadsGuard {
    ~ThreadsGuard() { set_threads(0); }
  } guard;
  for (std::size_t threads : {1, 2, 3})
    for (std::size_t n : {16, 48, 4112, 65552}) {
      set_threads(threads);
      std::vector<std::uint32_t> w(n);
      for (std::size_t i = 0; i < n; ++i) w[i] = static_cast<std::uint32_t>(i + 1);
      INFO(n << " words, " << threads << " threads");
      CHECK(bench_stream_read(w.data(), n) == static_cast<double>(n) * static_cast<double>(n + 1) / 2);
    }
  // A decode step's own cache: every word of its keys and of its values, the numbers it stores
  // (MHA at 100 rows, 4 heads of 8 + 8 floats: 25,600 bytes; bf16: half, two numbers a word, the
  // first in the low half). On one thread: the sum of each array's words, modulo 2^32.
  set_threads(1);
  for (int bytes : {4, 2}) {
    DecodeStep step(bench_variants(4, 2, 8, 16, 8).front(), 1, 100, bytes);
    CHECK(step.read_cache_bytes() == step.bytes());
    double want = 0;
    for (std::uint32_t salt : {1u, 2u}) {
      std::uint32_t sum = 0;
      for (std::size_t i = 0; i < 4 * 100 * 8; i += (bytes == 4 ? 1 : 2)) {
        std::uint32_t a, b;
        const float x = bench_cache_number(i, salt, bytes), y = bench_cache_number(i + 1, salt, bytes);
        std::memcpy(&a, &x, 4), std::memcpy(&b, &y, 4);
        sum += bytes == 4 ? a : (a >> 16) | (b & 0xFFFF0000u);
      }
      want += static_cast<double>(sum);
    }
    INFO(bytes << " bytes a number");
    CHECK(step.read_cache() == want);
  }
}

TEST_CASE("bench: a decode step's result has the same bits at 1, 2 and 3 threads", "[bench]") {
  // The cache is cut in pieces of 1,024 rows whatever the thread count, threads take pieces from a
  // shared counter, and the pieces are combined in a fixed order: the bits cannot depend on who
  // took which piece. 5,000 rows: five pieces, the last one short.
  struct ThreadsGuard {
    ~ThreadsGuard() { set_threads(0); }
  } guard;
  for (const BenchVariant& v : bench_variants(8, 2, 24, 16, 8)) {
    set_threads(1);
    const double one = bench_decode_variant(v, 2, 5000, 4, 1, 0.0, DecodeKernel::Automatic).checksum;
    REQUIRE(one != 0.0);
    for (std::size_t threads : {2, 3}) {
      set_threads(threads);
      const double many = bench_decode_variant(v, 2, 5000, 4, 1, 0.0, DecodeKernel::Automatic).checksum;
      INFO(v.id << " at " << threads << " threads: " << many << " vs " << one);
      CHECK(std::memcmp(&many, &one, sizeof one) == 0);
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
  CHECK(j["schema"] == "attnlab.bench-decode/2");
  for (const auto& v : j["variants"])
    for (const char* key : {"name", "bytes_per_step", "flops_per_step", "flop_per_byte", "bound", "seconds_median", "seconds_min",
                            "seconds_max", "gb_per_s", "gflop_per_s", "ratio_to_memory", "mark"})
      CHECK(v.contains(key));
  CHECK(j["variants"][0]["bytes_per_step"] == 64 * 32 * 256 * 4);  // 64 tokens · h 32 · (128 + 128) · 4 bytes
  CliResult m = run_cli("bench memory --size-mib 64 --min-time 0 --json -");
  REQUIRE(m.code == 0);
  CHECK(nlohmann::json::parse(m.out)["memory_gb_per_s"].get<double>() > 0);
  for (const char* bad : {"bench decode", "bench decode --model gpt2 --config x.json", "bench decode --model nosuch",
                          "bench decode --model gpt2 --seq-len 0", "bench decode --model gpt2 --dtype fp8",
                          "bench memory --size-mib 1", "bench memory --min-time -1", "bench decode --model gpt2 --threads 0",
                          "bench decode --model gpt2 --rounds 0", "bench decode --model gpt2 --rounds 51"}) {
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

TEST_CASE("bench decode: MHA is measured by default for deepseek-v3, at the longest context that fits, and the output says which", "[bench][cli]") {
  // Before: the default 16,384 tokens put MHA's cache (2 GiB) past the cap and MHA was skipped.
  // deepseek-v3: h 128, d_h 128, d_R 64, d_c 512; the largest cache is naive MLA's, 128 · (192 + 128)
  // numbers a token = 160 KiB in f32. 64 MiB / 160 KiB = 409.6 -> 384 (a multiple of 64 below 1,024).
  const std::string json = "bench_decode_deepseek.json";
  CliResult r = run_cli("bench decode --model deepseek-v3 --max-cache-mib 64 --min-time 0 --rounds 1 --lang en --json " + json);
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream f(json);
  nlohmann::json j = nlohmann::json::parse(f);
  std::remove(json.c_str());
  CHECK(j["seq_len"] == 384);
  CHECK(j["context"]["chosen_by"] == "cap");
  CHECK(j["context"]["largest_variant"] == "mla_naive");
  CHECK(j["context"]["largest_bytes"] == 384ull * 128 * 320 * 4);
  bool mha = false;
  for (const auto& v : j["variants"])
    if (v["name"] == "mha") {
      mha = true;
      CHECK(v["skipped"] == false);
      CHECK(v["bytes_per_step"] == 384ull * 128 * 256 * 4);
    }
  CHECK(mha);
  // the text (with --json FILE only the file is written): the same run, on stdout
  r = run_cli("bench decode --model deepseek-v3 --max-cache-mib 64 --min-time 0 --rounds 1 --lang en");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Context: 384 cached tokens per sequence — the longest up to 16,384 (a multiple of 1,024) at which every "
                   "variant's cache fits --max-cache-mib 64, so MHA is measured too: the largest, MLA, naive (expanded cache), "
                   "is 60.0 MiB.") != std::string::npos);
  CHECK(r.out.find("skipped") == std::string::npos);
  // The default cap, 1,024 MiB: 6,553 tokens fit, 6,144 (a multiple of 1,024) is the context.
  std::vector<BenchVariant> vs = bench_variants(128, 1, 128, 512, 64);
  vs.erase(vs.begin() + 1);  // no GQA row for an MLA model
  CHECK(longest_context_within(vs, 1, 4, 1024ull << 20, 16384) == 6144);
  CHECK(longest_context_within(vs, 1, 2, 1024ull << 20, 16384) == 12288);  // bf16: 13,107 fit
  CHECK(longest_context_within(vs, 1, 4, 64ull << 20, 16384) == 384);
  CHECK(longest_context_within(vs, 1, 4, 1ull << 20, 16384) == 0);  // 6 tokens fit: not even 64
  CHECK(longest_context_within(bench_variants(32, 8, 128, 512, 64), 1, 4, 1024ull << 20, 16384) == 16384);  // llama: all fit
  // --seq-len: the flag's context, and a variant past the cap skipped as before, with the note
  CliResult s = run_cli("bench decode --model deepseek-v3 --seq-len 512 --max-cache-mib 64 --min-time 0 --rounds 1 --lang en");
  REQUIRE(s.code == 0);
  CHECK(s.out.find("Context: 512 cached tokens per sequence, set by --seq-len.") != std::string::npos);
  CHECK(s.out.find("A skipped cache is larger than --max-cache-mib 64 MiB") != std::string::npos);
}

TEST_CASE("bench decode: the cache column is read per decode step", "[bench][cli]") {
  CliResult en = run_cli("bench decode --model gpt2 --seq-len 64 --min-time 0 --rounds 1 --lang en");
  REQUIRE(en.code == 0);
  CHECK(en.out.find("cache read per decode step") != std::string::npos);
  CHECK(en.out.find("per token") == std::string::npos);
  CliResult zh = run_cli("bench decode --model gpt2 --seq-len 64 --min-time 0 --rounds 1 --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(zh.out.find("每个解码步读取的缓存") != std::string::npos);
  CHECK(zh.out.find("每个词元读取") == std::string::npos);
}

TEST_CASE("bench decode: the roofline's bytes and FLOP per byte worked by hand for a small model", "[bench][cli]") {
  // gpt2: h 12, d_h 64, the what-if GQA g = 6; the MLA what-if d_c = 4 · 64 = 256, d_R = 32. 64 tokens, f32:
  //   MHA        64 · 12 · (64 + 64) · 4       = 393,216 bytes, 2 · 64 · 12 · 128       = 196,608 FLOP: 0.5
  //   GQA        64 · 6 · (64 + 64) · 4        = 196,608 bytes, the same FLOP                        : 1
  //   MQA        64 · (64 + 64) · 4            =  32,768 bytes, the same FLOP                        : 6
  //   MLA naive  64 · 12 · (96 + 64) · 4       = 491,520 bytes, 2 · 64 · 12 · 160       = 245,760 FLOP: 0.5
  //   MLA absorbed 64 · (256 + 32) · 4         =  73,728 bytes, 2 · 64 · 12 · (288 + 256) = 835,584 FLOP: 11.33
  CliResult r = run_cli("bench decode --model gpt2 --seq-len 64 --min-time 0 --rounds 2 --json -");
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  struct Want {
    const char* name;
    std::uint64_t bytes, flops;
    double fpb;
  };
  const Want want[] = {{"mha", 393216, 196608, 0.5}, {"gqa", 196608, 196608, 1.0}, {"mqa", 32768, 196608, 6.0}, {"mla_naive", 491520, 245760, 0.5},
                       {"mla_absorbed", 73728, 835584, 835584.0 / 73728.0}};
  REQUIRE(j["variants"].size() == 5);
  const double balance = j["balance_flop_per_byte"].get<double>(), W_ = j["memory"]["gb_per_s"].get<double>();
  CHECK(balance == Approx(j["compute"]["gflop_per_s"].get<double>() / W_));
  for (std::size_t k = 0; k < 5; ++k) {
    const auto& v = j["variants"][k];
    INFO(want[k].name);
    CHECK(v["name"] == want[k].name);
    CHECK(v["bytes_per_step"] == want[k].bytes);
    CHECK(v["flops_per_step"] == want[k].flops);
    CHECK(v["flop_per_byte"].get<double>() == Approx(want[k].fpb));
    // the bound is computed from the balance point measured in the same run
    CHECK(v["bound"] == bound_name(bound_of(want[k].fpb, balance)));
  }
  // the rounds: 2, each with a stream read of the separate array before the 5 variants and one
  // after them, and each variant's own cache read right after it
  CHECK(j["rounds"] == 2);
  CHECK(j["memory"]["samples"] == 2 * 2);
  for (std::size_t k = 0; k < 5; ++k) {
    const auto& v = j["variants"][k];
    INFO(want[k].name);
    // its own cache, every byte (the sizes here are multiples of 64 bytes)
    CHECK(v["own_read"]["bytes"] == want[k].bytes);
    CHECK(v["own_read"]["samples"] == 2);
    CHECK(v["ratio_to_own_read"].get<double>() == Approx(v["gb_per_s"].get<double>() / v["own_read"]["gb_per_s"].get<double>()));
    CHECK(v["ratio_to_memory"].get<double>() == Approx(v["gb_per_s"].get<double>() / W_));
  }
  CHECK(j["compute"]["samples"] == 2);
  CHECK(j["compute"]["width"] == 256 + 32);
  // why a cache N× smaller buys only M×: N from the byte counts, M from the roofline at the
  // bandwidth and compute peak measured in this run
  const double W = j["memory"]["gb_per_s"].get<double>(), P = j["compute"]["gflop_per_s"].get<double>();
  CHECK(j["mha_vs_absorbed"]["cache_ratio"].get<double>() == Approx(393216.0 / 73728.0));
  CHECK(j["mha_vs_absorbed"]["roofline_speedup"].get<double>() ==
        Approx(roofline_seconds(393216, 196608, W, P) / roofline_seconds(73728, 835584, W, P)));
  CliResult t = run_cli("bench decode --model gpt2 --seq-len 64 --min-time 0 --rounds 1 --lang en");
  REQUIRE(t.code == 0);
  CHECK(t.out.find("MHA's cache is 5.3× absorbed MLA's, but absorbed MLA does 11.3 FLOP per byte") != std::string::npos);
}

TEST_CASE("bench: the bound is computed from a given balance point, the least step time from the roofline", "[bench]") {
  CHECK(flop_per_byte(196608, 393216) == 0.5);
  CHECK(flop_per_byte(1, 0) == 0.0);
  // balance 2 FLOP/byte (e.g. 90 GFLOP/s over 45 GB/s)
  CHECK(bound_of(0.5, 2.0) == Bound::Memory);
  CHECK(bound_of(1.99, 2.0) == Bound::Memory);
  CHECK(bound_of(2.0, 2.0) == Bound::Compute);
  CHECK(bound_of(120.9, 2.0) == Bound::Compute);
  // a GPU's balance point, 295 FLOP/byte: absorbed MLA's 120.9 is memory-bound there
  CHECK(bound_of(120.9, 295.0) == Bound::Memory);
  CHECK(std::string(bound_name(Bound::Memory)) == "memory");
  CHECK(std::string(bound_name(Bound::Compute)) == "compute");
  // 1 GB and 1 GFLOP at 50 GB/s and 100 GFLOP/s: memory's 20 ms; at 25 GFLOP/s compute's 40 ms
  CHECK(roofline_seconds(1000000000, 1000000000, 50.0, 100.0) == Approx(0.02));
  CHECK(roofline_seconds(1000000000, 1000000000, 50.0, 25.0) == Approx(0.04));
}

TEST_CASE("bench: a row above 100% of the measured bandwidth is flagged", "[bench]") {
  // synthetic numbers: measured bandwidth 45 GB/s
  CHECK(bandwidth_mark(40.0, 45.0, false) == BandwidthMark::None);
  CHECK(bandwidth_mark(45.0, 45.0, false) == BandwidthMark::None);  // exactly 100%: not above
  CHECK(bandwidth_mark(45.1, 45.0, false) == BandwidthMark::Over);
  CHECK(bandwidth_mark(90.0, 45.0, true) == BandwidthMark::InCache);  // the cache fits twice the LLC: starred
  CHECK(bandwidth_mark(10.0, 45.0, true) == BandwidthMark::InCache);
  // both marks have their note in both languages
  CHECK(Text(Lang::En)("bench.decode.note_over").rfind("† ", 0) == 0);
  CHECK(Text(Lang{"zh"})("bench.decode.note_over").rfind("† ", 0) == 0);
}

TEST_CASE("bench: the rounds interleave every variant in a rotating order", "[bench]") {
  CHECK(round_order(5, 0) == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(round_order(5, 2) == std::vector<std::size_t>{2, 3, 4, 0, 1});
  CHECK(round_order(5, 7) == round_order(5, 2));
  // over n rounds each variant takes each place once
  for (std::size_t place = 0; place < 4; ++place) {
    std::vector<int> seen(4, 0);
    for (std::size_t r = 0; r < 4; ++r) ++seen[round_order(4, r)[place]];
    CHECK(seen == std::vector<int>{1, 1, 1, 1});
  }
  std::vector<DecodeStep> steps;
  const std::vector<BenchVariant> variants = bench_variants(4, 2, 8, 16, 8);
  for (const BenchVariant& v : variants) steps.emplace_back(v, 1, 100, 4);
  StreamRead read(1 << 16);
  ComputeLoop compute(variants.back(), 2);  // absorbed MLA: 4 query heads over rows of 16 + 8
  Rounds r = run_rounds(steps, read, compute, 3, 0.0);
  REQUIRE(r.steps.size() == 5);
  for (const Timing& t : r.steps) CHECK(t.seconds.size() == 3);
  CHECK(r.read.seconds.size() == 3 * 2);
  REQUIRE(r.own_reads.size() == 5);
  for (const Timing& t : r.own_reads) CHECK(t.seconds.size() == 3);
  CHECK(r.compute.seconds.size() == 3);
  CHECK(r.orders.size() == 3);
  CHECK(r.orders[1] == round_order(5, 1));
  for (std::size_t i = 0; i < 5; ++i) CHECK(std::isfinite(r.checksums[i]));
  // 2 passes of 64 rows, 4 heads, a 24-wide score and a 16-wide weighted sum each, on every thread
  CHECK(compute.flops() == thread_count() * 2 * 64 * 4 * (24 + 16) * 2);
  CHECK(std::isfinite(compute.run()));
  CHECK(compute.run() != 0.0);
  CHECK(read.bytes() == (1u << 16) * 4);
}

TEST_CASE("bench: the compute loop adds, for every call on every thread, head 0's first output of its 64 rows", "[bench]") {
  // Absorbed MLA at h 4, d_c 16, d_R 8: 4 query heads over 64 key rows of 24 numbers, the values
  // being the first 16 numbers of each row. The rows are the cache's numbers (salt 1, the keys'),
  // the queries (i mod 7)/7 − 0.4, as the decode step has them. Worked here in double: head 0's
  // scores q·k_j/√24, their softmax p, and out_0 = Σ_j p_j·k_j[0].
  const BenchVariant v = bench_variants(4, 2, 8, 16, 8).back();
  REQUIRE(v.values_in_keys);
  const std::size_t Dk = 24, rows = 64;
  const double scale = 1.0 / std::sqrt(static_cast<double>(static_cast<float>(Dk)));
  std::vector<double> p(rows);
  double m = -INFINITY, sum = 0, out0 = 0;
  for (std::size_t j = 0; j < rows; ++j) {
    double dot = 0;
    for (std::size_t c = 0; c < Dk; ++c)
      dot += static_cast<double>(static_cast<float>(c % 7) / 7.0f - 0.4f) * bench_cache_number(j * Dk + c, 1, 4);
    p[j] = dot * scale;
    m = std::max(m, p[j]);
  }
  for (std::size_t j = 0; j < rows; ++j) sum += (p[j] = std::exp(p[j] - m));
  for (std::size_t j = 0; j < rows; ++j) out0 += p[j] / sum * bench_cache_number(j * Dk, 1, 4);
  struct ThreadsGuard {
    ~ThreadsGuard() { set_threads(0); }
  } guard;
  for (std::size_t threads : {1, 2, 3})
    for (DecodeKernel kernel : {DecodeKernel::Automatic, DecodeKernel::Portable}) {
      INFO("threads " << threads << ", kernel " << decode_kernel_name(kernel));
      set_threads(threads);
      ComputeLoop compute(v, 5, kernel);
      const double calls = static_cast<double>(threads * 5);
      // each call's number is a float, the same every call; the sum of them is exact to 1e-12
      CHECK(compute.run() / calls == Approx(out0).epsilon(1e-5));
      CHECK(compute.run() / calls == Approx(out0).epsilon(1e-5));  // and again: each call starts afresh
    }
}

TEST_CASE("bench: the load average is read and stated", "[bench]") {
  LoadAverage l = parse_load_average("1.40 1.99 2.73 2/301 1234\n");
  CHECK(l.known);
  CHECK(l.one == 1.40);
  CHECK(l.fifteen == 2.73);
  CHECK(!parse_load_average("").known);
  CHECK(!parse_load_average("x y z").known);
  CliResult r = run_cli("bench decode --model gpt2 --seq-len 64 --min-time 0 --rounds 1 --lang en");
  REQUIRE(r.code == 0);
  if (load_average().known) CHECK(r.out.find("Load average ") != std::string::npos);
  CHECK(r.out.find("Compute peak of the decode kernel") != std::string::npos);
  CHECK(r.out.find("measured in these rounds") != std::string::npos);
}

TEST_CASE("bench: the timers live in the bench layer, which the math layer does not include", "[bench][layers]") {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(ATTNLAB_SOURCE_DIR) / "src";
  REQUIRE(fs::is_directory(src / "bench"));
  std::vector<std::string> bench_headers;
  for (const auto& e : fs::directory_iterator(src / "bench"))
    if (e.path().extension() == ".h") bench_headers.push_back(e.path().filename().string());
  REQUIRE(!bench_headers.empty());
  CHECK(std::find(bench_headers.begin(), bench_headers.end(), "bench_timing.h") != bench_headers.end());
  std::size_t math_files = 0;
  for (const auto& e : fs::directory_iterator(src / "math")) {
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    ++math_files;
    INFO(e.path().filename().string());
    for (const std::string& h : bench_headers) CHECK(text.find("#include \"" + h + "\"") == std::string::npos);
    if (e.path().filename() == "decode_bench.cpp") {
      CHECK(text.find("<chrono>") == std::string::npos);  // no timer in the kernels
      CHECK(text.find("steady_clock") == std::string::npos);
    }
  }
  CHECK(math_files > 10);
  // and the build keeps it so: math does not link the bench layer, whose headers it then cannot see
  std::ifstream cm(fs::path(ATTNLAB_SOURCE_DIR) / "CMakeLists.txt");
  std::stringstream cs;
  cs << cm.rdbuf();
  CHECK(cs.str().find("attnlab_layer(attnlab_bench_layer src/bench)") != std::string::npos);
  CHECK(cs.str().find("target_link_libraries(attnlab_bench_layer PUBLIC attnlab_math)") != std::string::npos);
}

}  // namespace file_test_decode_bench
