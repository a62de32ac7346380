#pragma once
// The benchmark path's kernels (`attnlab bench memory`, `attnlab bench decode`): float32 (or
// bf16-stored) arithmetic, separate from the lessons' exact double arithmetic. No timer lives
// here: src/bench times these kernels; the byte and FLOP counts are exact integers.
//   B = batch, N = cached tokens, H = query heads, G = KV heads, Dk/Dv = key/value widths,
//   C = MLA latent d_c, R = decoupled RoPE width d_R.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

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

// Automatic: the AVX-512 kernel when this CPU has AVX-512F, AVX2 and FMA (x86-64, GCC/clang), else
// the AVX2 + FMA one when it has both, else the portable one. Avx512, Avx2: that kernel where the
// CPU has it (so that each stays tested on a machine that has a faster one), else the next one down.
enum class DecodeKernel { Automatic, Avx512, Avx2, Portable };
// Whether this CPU (and this build) runs that kernel itself, with no fallback (Automatic and
// Portable: always true). decode_kernel_name: the name bench_decode_variant reports for it.
bool decode_kernel_available(DecodeKernel kernel);
std::string decode_kernel_name(DecodeKernel kernel);
// One decode step of a variant, set up once (its cache allocated on huge pages and filled, the
// queries drawn) and run as often as the caller asks: the timers and the rounds that interleave
// the variants are the bench layer's (src/bench); this layer only computes.
// bytes_per_number: 4 (float32) or 2 (bf16 storage, float32 arithmetic).
class DecodeStep {
 public:
  DecodeStep(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number,
             DecodeKernel kernel = DecodeKernel::Automatic);
  ~DecodeStep();
  DecodeStep(DecodeStep&&) noexcept;
  DecodeStep& operator=(DecodeStep&&) noexcept;
  // One step (one token for each of the B sequences); returns Σ out[i]·(1 + i mod 97) over the
  // outputs, so the work cannot be optimized away.
  double run() { return state_->run(); }
  // The stream read (StreamRead's kernel) over this step's own cache: the bandwidth of the very
  // pages the step reads, which on a VM can differ from another array's by a fifth. Returns the
  // sum of the words read; read_cache_bytes() says how many bytes (the cache, to 64 bytes).
  double read_cache() { return state_->read_cache(); }
  std::uint64_t read_cache_bytes() const { return state_->read_cache_bytes(); }
  std::uint64_t bytes() const { return bytes_; }  // cache bytes read per step
  std::uint64_t flops() const { return flops_; }
  const std::string& kernel() const { return kernel_; }  // "avx512", "avx2" or "portable"

  struct State {
    virtual ~State() = default;
    virtual double run() = 0;
    virtual double read_cache() = 0;
    virtual std::uint64_t read_cache_bytes() const = 0;
  };

 private:
  std::unique_ptr<State> state_;
  std::uint64_t bytes_ = 0, flops_ = 0;
  std::string kernel_;
};

// The compute peak of the decode kernel: variant v's step (scores, online softmax, weighted sums)
// over 64 cached rows that stay in L2, `reps` passes on every thread; nothing read from memory.
class ComputeLoop {
 public:
  static std::uint64_t call_flops(const BenchVariant& v);  // one pass over the 64 rows, one thread
  ComputeLoop(const BenchVariant& v, std::size_t reps, DecodeKernel kernel = DecodeKernel::Automatic);
  ~ComputeLoop();
  double run() { return state_->run(); }
  std::uint64_t flops() const { return flops_; }  // per run
  const std::string& kernel() const { return kernel_; }

  struct State {
    virtual ~State() = default;
    virtual double run() = 0;
  };

 private:
  std::unique_ptr<State> state_;
  std::uint64_t flops_ = 0;
  std::string kernel_;
};

// STREAM-like kernels over arrays of `floats` numbers (rounded down to a multiple of 16), split
// across every thread: read (a sum of the array: 4 streams a thread, prefetched 2 KiB ahead) and
// triad (a = b + 3·c: 3 arrays moved, 2 read and 1 written).
class StreamRead {
 public:
  explicit StreamRead(std::size_t floats);
  ~StreamRead();
  double run();
  std::uint64_t bytes() const { return n_ * sizeof(float); }

 private:
  std::size_t n_;
  std::shared_ptr<void> data_;
  const float* array_ = nullptr;
};
// Number i of a bench cache (keys: salt 1, values: salt 2) as the decode step stores it with
// bytes_per_number 4, or 2 (bf16: the float's top 16 bits, returned as that float).
float bench_cache_number(std::size_t i, std::uint32_t salt, int bytes_per_number);
// StreamRead's kernel over n 4-byte words (n a multiple of 16) at `words`, added as unsigned
// 32-bit integers (wrapping), each thread's sum then added in double: for tests, that each word
// is read once. DecodeStep::read_cache runs it over a step's own cache.
double bench_stream_read(const void* words, std::size_t n);
class StreamTriad {
 public:
  explicit StreamTriad(std::size_t floats);
  ~StreamTriad();
  double run();
  std::uint64_t array_bytes() const { return n_ * sizeof(float); }

 private:
  std::size_t n_;
  std::shared_ptr<void> data_;
  float *a_ = nullptr;
  const float *b_ = nullptr, *c_ = nullptr;
};

// The same decode step computed the plain way, in double, over the very numbers the benchmark
// stores (keys, values, queries): its checksum (Σ out[i]·(1 + i mod 97)) and Σ |out[i]|·(1 + i mod 97),
// the scale a float32 kernel's checksum is compared at. For tests, at small sizes.
struct BenchReference {
  double checksum = 0, magnitude = 0;
};
BenchReference bench_decode_reference(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number);

// The largest of s[0..n) as the given kernel's online softmax finds it (the kernel resolved as
// the decode step resolves it). For tests: a block max below the true one lets exp overflow,
// one above it lets the block's weights underflow, while small scores hide either.
float bench_block_max(DecodeKernel kernel, const float* s, std::size_t n);

}  // namespace attn
