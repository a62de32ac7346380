#pragma once
// The benchmark path (`attnlab bench memory`, `attnlab bench decode`): float32 (or bf16-stored)
// kernels timed on this machine, separate from the lessons' exact double arithmetic. Nothing
// here is deterministic in time; the byte and FLOP counts are exact integers.
//   B = batch, N = cached tokens, H = query heads, G = KV heads, Dk/Dv = key/value widths,
//   C = MLA latent d_c, R = decoupled RoPE width d_R.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attn {

// Seconds of repeated runs: at least `min_reps`, until `min_seconds` have passed, at most `max_reps`.
struct Timing {
  std::vector<double> seconds;  // each run, in order
  double min = 0, median = 0;
};
Timing time_repeated(const std::function<void()>& run, std::size_t min_reps, std::size_t max_reps, double min_seconds);

// STREAM-like: read (sum of a float array) and triad (a = b + s·c), split across every thread,
// arrays of `floats` numbers each. GB/s = bytes moved / best time (triad moves 3 arrays: 2 read, 1 written).
struct MemoryBench {
  std::uint64_t array_bytes = 0;
  Timing read, triad;
  double read_gb_s = 0, triad_gb_s = 0;
};
MemoryBench bench_memory(std::size_t floats, std::size_t min_reps, double min_seconds);
// The last-level cache's size in bytes: the highest level Linux lists in sysfs, summed over its
// distinct caches on the CPUs this process may run on; else as the C library reports it (L3,
// else L2); 0 if unknown. Read once a run.
std::uint64_t last_level_cache_bytes();
// A sysfs cache size ("32768K", "2M", "512"): bytes, 0 if it is not one.
std::uint64_t parse_cache_size(const std::string& text);

// One layer's attention for one new token per sequence, over a cache of N tokens per sequence.
// Every variant is the same kernel: per KV head g, its H/G query heads score each cached key
// (Dk wide) and sum the cached values (Dv wide), online softmax in blocks of rows, so each cache
// row is read from memory once. MLA absorbed: G = 1, the key row is the latent c_KV and the RoPE
// key (C + R), the value is the latent itself (its first C numbers, the same bytes).
struct BenchVariant {
  std::string id;          // mha | gqa | mqa | mla_naive | mla_absorbed
  std::uint64_t H, G, Dk, Dv;
  bool values_in_keys;     // MLA absorbed: no separate V cache
};
// The five variants at one model's dims (H, G, d_h; MLA: d_c, d_R; an MLA model's own d_h
// is its d_nope, its value width d_v).
std::vector<BenchVariant> bench_variants(std::uint64_t H, std::uint64_t G, std::uint64_t Dh, std::uint64_t C,
                                         std::uint64_t R);
// Exact counts for one token per sequence, B sequences, N cached tokens each:
//   cache numbers read = B·N·G·(Dk + Dv), or B·N·(C + R) when the values are in the keys
//   FLOP = 2·B·N·H·(Dk + Dv)  (a multiply and an add per key and per value number, per head)
std::uint64_t bench_cache_numbers(const BenchVariant& v, std::uint64_t B, std::uint64_t N);
std::uint64_t bench_flops(const BenchVariant& v, std::uint64_t B, std::uint64_t N);

struct DecodeBenchResult {
  Timing time;             // seconds per decode step (one token for each of the B sequences)
  std::uint64_t bytes = 0; // cache bytes read per step
  std::uint64_t flops = 0;
  double checksum = 0;     // Σ out[i]·(1 + i mod 97) over the outputs: the work cannot be optimized away
  std::string kernel;      // the kernel that ran: "avx512", "avx2" (AVX2 + FMA) or "portable"
};
// Automatic: the AVX-512 kernel when this CPU has AVX-512F, AVX2 and FMA (x86-64, GCC/clang), else
// the AVX2 + FMA one when it has both, else the portable one. Avx512, Avx2: that kernel where the
// CPU has it (so that each stays tested on a machine that has a faster one), else the next one down.
enum class DecodeKernel { Automatic, Avx512, Avx2, Portable };
// Whether this CPU (and this build) runs that kernel itself, with no fallback (Automatic and
// Portable: always true). decode_kernel_name: the name bench_decode_variant reports for it.
bool decode_kernel_available(DecodeKernel kernel);
std::string decode_kernel_name(DecodeKernel kernel);
// bytes_per_number: 4 (float32) or 2 (bf16 storage, float32 arithmetic).
DecodeBenchResult bench_decode_variant(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number,
                                       std::size_t min_reps, double min_seconds,
                                       DecodeKernel kernel = DecodeKernel::Automatic);

// The same decode step computed the plain way, in double, over the very numbers the benchmark
// stores (keys, values, queries): its checksum (Σ out[i]·(1 + i mod 97)) and Σ |out[i]|·(1 + i mod 97),
// the scale a float32 kernel's checksum is compared at. For tests, at small sizes.
struct BenchReference {
  double checksum = 0, magnitude = 0;
};
BenchReference bench_decode_reference(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number);

}  // namespace attn
