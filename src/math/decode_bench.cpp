// The benchmark kernels: STREAM-like memory read/triad and one layer's decode attention per
// variant, float32 arithmetic over float32 or bf16 storage. See decode_bench.h.
// The 8-float vectors below are plain values (GCC's vector extension); passing them by value
// without AVX enabled only changes a calling convention internal to this file, so GCC's ABI
// note about it (-Wpsabi) is silenced here, and only here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
#include "decode_bench.h"
#include "libm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#if defined(__unix__)
#include <sys/mman.h>
#endif

#include "cpu.h"
#include "parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ATTNLAB_AVX2_KERNEL 1
#endif

namespace attn {

namespace {

typedef float v8f __attribute__((vector_size(32)));
typedef unsigned short v8u16 __attribute__((vector_size(16)));
typedef unsigned int v8u32 __attribute__((vector_size(32)));

// An array of n numbers on 2 MiB boundaries, not zero-initialized, that asks the kernel for huge
// pages (Linux's transparent huge pages, when set to "madvise" as Debian ships them): with 4 KiB
// pages a stream through a 1 GiB cache misses the TLB every 4 KiB: GQA's decode at batch 8 took
// 51.5 ms a step without huge pages and 42.4 ms with them (docs/ARCHITECTURE.md).
template <class T>
class HugeArray {
 public:
  explicit HugeArray(std::size_t n) {
    if (n == 0) return;
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    if (n > (SIZE_MAX - kHuge) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = (n * sizeof(T) + kHuge - 1) / kHuge * kHuge;
    p_ = static_cast<T*>(std::aligned_alloc(kHuge, bytes));
    if (p_ == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p_, bytes, MADV_HUGEPAGE);  // a hint: without huge pages the array still works
#endif
  }
  ~HugeArray() { std::free(p_); }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;
  HugeArray(HugeArray&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  T* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};

// A float array filled in parallel, so that (2 MiB page by page) the threads that will read it
// touch it first.
HugeArray<float> make_array(std::size_t n, float value) {
  HugeArray<float> a(n);
  parallel_for(n, 1 << 16, [&](std::size_t b, std::size_t e) { std::fill(a.get() + b, a.get() + e, value); });
  return a;
}

inline v8f load8(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline v8f load8(const std::uint16_t* p) {  // bf16 -> float32: the 16 bits are the float's top half
  v8u16 h;
  std::memcpy(&h, p, sizeof h);
  v8u32 w = __builtin_convertvector(h, v8u32) << 16;
  v8f v;
  std::memcpy(&v, &w, sizeof v);
  return v;
}
inline float hsum(v8f v) { return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])); }

// Widths are multiples of 8 (checked by the caller).
template <class T>
inline float dot(const float* q, const T* k, std::size_t n) {
  v8f a = {0, 0, 0, 0, 0, 0, 0, 0}, b = a;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a += load8(q + i) * load8(k + i);
    b += load8(q + i + 8) * load8(k + i + 8);
  }
  for (; i < n; i += 8) a += load8(q + i) * load8(k + i);
  return hsum(a + b);
}
template <class T>
inline void axpy(float p, const T* v, float* acc, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8) {
    v8f a = load8(acc + i) + p * load8(v + i);
    std::memcpy(acc + i, &a, sizeof a);
  }
}
// Ask for a cache row ahead of its use, one request per 64-byte line: a single hardware-prefetched
// stream per core keeps too few lines in flight to reach the memory's bandwidth. Locality 3 brings
// the row into L1; 2 into L2 only, for rows wanted a whole block later, which would push the rows
// in use out of L1.
template <int Locality = 3, class T>
inline void prefetch_row(const T* p, std::size_t n) {
  const char* c = reinterpret_cast<const char*>(p);
  for (std::size_t b = 0; b < n * sizeof(T); b += 64) __builtin_prefetch(c + b, 0, Locality);
}
// The largest of `count` running maxima and of the scores s[j..n) left after them.
inline float finish_max(const float* lanes, int count, const float* s, std::size_t j, std::size_t n) {
  float b = lanes[0];
  for (int k = 1; k < count; ++k) b = std::max(b, lanes[k]);
  for (; j < n; ++j) b = std::max(b, s[j]);
  return b;
}
// The SIMD kernels' exp (Cephes' expf): inputs clamped at kExpFloor, e^x = 2^n · e^f with
// n = round(x · log2 e), f = x − n ln 2 (ln 2 in two parts), e^f = 1 + f + f²·P(f) with P's
// coefficients from the highest power down. Shared so that every width does the same operations.
constexpr float kExpFloor = -87.0f, kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kExpPoly[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                               4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
inline void scale_row(float s, float* acc, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) acc[i] *= s;
}

// The portable kernel: GCC vectors, compiled for the baseline instruction set (SSE2 on x86-64).
struct PortableKernel {
  static constexpr bool kFourKeys = false;  // no dot4x4: four query rows take two key rows at a time
  template <class T>
  static float dot(const float* q, const T* k, std::size_t n) { return attn::dot(q, k, n); }
  // acc[c] += Σ_j p[j] · V[j·stride + c] for c < n: one head's weighted sum over a block of rows
  template <class T>
  static void weighted_rows(const float* p, const T* V, std::size_t stride, std::size_t rows, float* acc, std::size_t n) {
    for (std::size_t j = 0; j < rows; ++j) attn::axpy(p[j], V + j * stride, acc, n);
  }
  // out[u] = q_u · k for the 4 query rows q + u·n, u < 4
  template <class T>
  static void dot4(const float* q, const T* k, std::size_t n, float* out) {
    for (int u = 0; u < 4; ++u) out[u] = attn::dot(q + u * n, k, n);
  }
  // the same for two key rows k0, k1: out[u] for k0, out[4 + u] for k1
  template <class T>
  static void dot4x2(const float* q, const T* k0, const T* k1, std::size_t n, float* out) {
    dot4(q, k0, n, out), dot4(q, k1, n, out + 4);
  }
  // acc0 += Σ_j p0[j] · V[j], acc1 += Σ_j p1[j] · V[j]: two heads' weighted sums over one block
  template <class T>
  static void weighted_rows2(const float* p0, const float* p1, const T* V, std::size_t stride, std::size_t rows,
                             float* acc0, float* acc1, std::size_t n) {
    weighted_rows(p0, V, stride, rows, acc0, n), weighted_rows(p1, V, stride, rows, acc1, n);
  }
  // The largest of s[0..n): 8 running maxima, then the largest of the 8 (the value a scan from the
  // left finds). A scan is a chain of dependent comparisons: for GQA's 4 heads a block, it took a
  // sixth of the step from L2 on the 2026-12-07 Intel VM.
  static float block_max(const float* s, std::size_t n) {
    v8f a = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      v8f x = load8(s + j);
      a = x > a ? x : a;
    }
    float lanes[8];
    std::memcpy(lanes, &a, sizeof lanes);
    return finish_max(lanes, 8, s, j, n);
  }
  // s[j] = exp(s[j] − m) for j < n; returns their sum.
  static float exp_shift(float* s, std::size_t n, float m) {
    float sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += (s[j] = libm::exp(s[j] - m));
    return sum;
  }
};

#ifdef ATTNLAB_AVX2_KERNEL
// The AVX2 kernel, chosen at run time when the CPU has AVX2 and FMA: 8 floats per instruction and
// fused multiply-adds (the benchmark path only; the lessons never use FMA, see -ffp-contract=off).
__attribute__((target("avx2,fma"))) inline __m256 avx_load8(const float* p) { return _mm256_loadu_ps(p); }
__attribute__((target("avx2,fma"))) inline __m256 avx_load8(const std::uint16_t* p) {
  __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
struct Avx2Kernel {
  static constexpr bool kFourKeys = false;
  template <class T>
  __attribute__((target("avx2,fma"))) static float dot(const float* q, const T* k, std::size_t n) {
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      a = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), avx_load8(k + i), a);
      b = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), avx_load8(k + i + 8), b);
    }
    for (; i < n; i += 8) a = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), avx_load8(k + i), a);
    a = _mm256_add_ps(a, b);
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
  }
  // The block's rows summed into 64 columns held in registers at a time: no load and store of the
  // accumulator per row, and 8 independent chains of fused multiply-adds (a chain waits 4 cycles
  // for its previous one; 8 keep both FMA pipes busy).
  template <class T>
  __attribute__((target("avx2,fma"))) static void weighted_rows(const float* p, const T* V, std::size_t stride,
                                                               std::size_t rows, float* acc, std::size_t n) {
    std::size_t c = 0;
    for (; c + 64 <= n; c += 64) {
      __m256 a[8];
      for (int u = 0; u < 8; ++u) a[u] = _mm256_loadu_ps(acc + c + 8 * u);
      for (std::size_t j = 0; j < rows; ++j) {
        const T* v = V + j * stride + c;
        __m256 pj = _mm256_set1_ps(p[j]);
        for (int u = 0; u < 8; ++u) a[u] = _mm256_fmadd_ps(pj, avx_load8(v + 8 * u), a[u]);
      }
      for (int u = 0; u < 8; ++u) _mm256_storeu_ps(acc + c + 8 * u, a[u]);
    }
    for (; c < n; c += 8) {
      __m256 a = _mm256_loadu_ps(acc + c);
      for (std::size_t j = 0; j < rows; ++j) a = _mm256_fmadd_ps(_mm256_set1_ps(p[j]), avx_load8(V + j * stride + c), a);
      _mm256_storeu_ps(acc + c, a);
    }
  }
  // Two heads over the same block: each 8 floats of a value row loaded once for both, 8 chains.
  template <class T>
  __attribute__((target("avx2,fma"))) static void weighted_rows2(const float* p0, const float* p1, const T* V,
                                                                std::size_t stride, std::size_t rows, float* acc0,
                                                                float* acc1, std::size_t n) {
    std::size_t c = 0;
    for (; c + 32 <= n; c += 32) {
      __m256 a[4], b[4];
      for (int u = 0; u < 4; ++u) a[u] = _mm256_loadu_ps(acc0 + c + 8 * u), b[u] = _mm256_loadu_ps(acc1 + c + 8 * u);
      for (std::size_t j = 0; j < rows; ++j) {
        const T* v = V + j * stride + c;
        __m256 x = _mm256_set1_ps(p0[j]), y = _mm256_set1_ps(p1[j]);
        for (int u = 0; u < 4; ++u) {
          __m256 vv = avx_load8(v + 8 * u);
          a[u] = _mm256_fmadd_ps(x, vv, a[u]);
          b[u] = _mm256_fmadd_ps(y, vv, b[u]);
        }
      }
      for (int u = 0; u < 4; ++u) _mm256_storeu_ps(acc0 + c + 8 * u, a[u]), _mm256_storeu_ps(acc1 + c + 8 * u, b[u]);
    }
    if (c < n) weighted_rows(p0, V + c, stride, rows, acc0 + c, n - c), weighted_rows(p1, V + c, stride, rows, acc1 + c, n - c);
  }
  // 4 query rows against two key rows: 8 chains, 6 loads for 8 multiply-adds.
  template <class T>
  __attribute__((target("avx2,fma"))) static void dot4x2(const float* q, const T* k0, const T* k1, std::size_t n,
                                                        float* out) {
    __m256 a[4], b[4];
    for (int u = 0; u < 4; ++u) a[u] = b[u] = _mm256_setzero_ps();
    for (std::size_t i = 0; i < n; i += 8) {
      __m256 x = avx_load8(k0 + i), y = avx_load8(k1 + i);
      for (int u = 0; u < 4; ++u) {
        __m256 qq = _mm256_loadu_ps(q + u * n + i);
        a[u] = _mm256_fmadd_ps(qq, x, a[u]);
        b[u] = _mm256_fmadd_ps(qq, y, b[u]);
      }
    }
    __m256 ha = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
    __m256 hb = _mm256_hadd_ps(_mm256_hadd_ps(b[0], b[1]), _mm256_hadd_ps(b[2], b[3]));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(ha), _mm256_extractf128_ps(ha, 1)));
    _mm_storeu_ps(out + 4, _mm_add_ps(_mm256_castps256_ps128(hb), _mm256_extractf128_ps(hb, 1)));
  }
  // 4 query rows against one key row: each 8 floats of the key are loaded once, for 4 heads; even
  // and odd chunks in separate accumulators, 8 chains in all.
  template <class T>
  __attribute__((target("avx2,fma"))) static void dot4(const float* q, const T* k, std::size_t n, float* out) {
    __m256 a[4], b[4];
    for (int u = 0; u < 4; ++u) a[u] = b[u] = _mm256_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      __m256 k0 = avx_load8(k + i), k1 = avx_load8(k + i + 8);
      for (int u = 0; u < 4; ++u) {
        a[u] = _mm256_fmadd_ps(_mm256_loadu_ps(q + u * n + i), k0, a[u]);
        b[u] = _mm256_fmadd_ps(_mm256_loadu_ps(q + u * n + i + 8), k1, b[u]);
      }
    }
    if (i < n) {
      __m256 k0 = avx_load8(k + i);
      for (int u = 0; u < 4; ++u) a[u] = _mm256_fmadd_ps(_mm256_loadu_ps(q + u * n + i), k0, a[u]);
    }
    for (int u = 0; u < 4; ++u) a[u] = _mm256_add_ps(a[u], b[u]);
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));  // per 128-bit half
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
  }
  // exp of 8 floats ≤ 0 (scores minus their running max): e^x = 2^n · e^f with n = round(x / ln 2),
  // f = x − n ln 2 (ln 2 in two parts), e^f by Cephes' expf polynomial; relative error about 2e-7.
  __attribute__((target("avx2,fma"))) static __m256 exp8(__m256 x) {
    x = _mm256_max_ps(x, _mm256_set1_ps(kExpFloor));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 f = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
    f = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), f);
    __m256 y = _mm256_set1_ps(kExpPoly[0]);
    for (int k = 1; k < 6; ++k) y = _mm256_fmadd_ps(y, f, _mm256_set1_ps(kExpPoly[k]));
    y = _mm256_fmadd_ps(y, _mm256_mul_ps(f, f), _mm256_add_ps(f, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
  }
  // The largest of s[0..n): the portable kernel's 8 running maxima.
  static float block_max(const float* s, std::size_t n) { return PortableKernel::block_max(s, n); }
  __attribute__((target("avx2,fma"))) static float exp_shift(float* s, std::size_t n, float m) {
    const __m256 mm = _mm256_set1_ps(m);
    __m256 acc = _mm256_setzero_ps();
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(s + j), mm));
      _mm256_storeu_ps(s + j, e);
      acc = _mm256_add_ps(acc, e);
    }
    alignas(32) float part[8];
    _mm256_store_ps(part, acc);
    float sum = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
    for (; j < n; ++j) sum += (s[j] = libm::exp(s[j] - m));
    return sum;
  }
};


// The AVX-512 kernel, chosen at run time where the CPU has AVX-512F (and AVX2 + FMA): 16 floats
// per instruction, half the instructions of the AVX2 kernel for the same work, so a GQA group's
// 4 heads (2 FLOP a byte) stay well below the memory's pace. Widths are multiples of 8, not of
// 16: the last 8 of a row go through a load whose upper half is zero.
#define ATTNLAB_AVX512 __attribute__((target("avx512f,avx2,fma")))
// The intrinsics below are the zero-masking forms with every lane kept: the same instructions, but
// GCC 12's unmasked forms start from _mm512_undefined_*, which -Wuninitialized reports.
constexpr __mmask16 kAll = 0xFFFF;
ATTNLAB_AVX512 inline __m512 avx512_load16(const float* p) { return _mm512_loadu_ps(p); }
ATTNLAB_AVX512 inline __m512 avx512_load16(const std::uint16_t* p) {
  __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, _mm512_maskz_cvtepu16_epi32(kAll, h), 16));
}
ATTNLAB_AVX512 inline __m512 avx512_load8(const float* p) { return _mm512_maskz_loadu_ps(0x00FF, p); }
ATTNLAB_AVX512 inline __m512 avx512_load8(const std::uint16_t* p) {
  __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m256i w = _mm256_inserti128_si256(_mm256_setzero_si256(), h, 0);
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, _mm512_maskz_cvtepu16_epi32(kAll, w), 16));
}
// The sum of the 16 floats of a: the two halves added (through memory: GCC 12's cast to 256 bits
// warns as the unmasked forms do), then as the AVX2 kernel does.
ATTNLAB_AVX512 inline float hsum16(__m512 a) {
  alignas(64) float t[16];
  _mm512_store_ps(t, a);
  __m256 h = _mm256_add_ps(_mm256_load_ps(t), _mm256_load_ps(t + 8));
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}
// The 4 partial sums of a[u] in 128-bit lane u of the result: two rounds of pairing lanes.
ATTNLAB_AVX512 inline __m512 fold4(const __m512* a) {
  __m512 s01 = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(kAll, a[0], a[1], 0x44), _mm512_maskz_shuffle_f32x4(kAll, a[0], a[1], 0xEE));
  __m512 s23 = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(kAll, a[2], a[3], 0x44), _mm512_maskz_shuffle_f32x4(kAll, a[2], a[3], 0xEE));
  return _mm512_add_ps(_mm512_maskz_shuffle_f32x4(kAll, s01, s23, 0x88), _mm512_maskz_shuffle_f32x4(kAll, s01, s23, 0xDD));
}
// out[u] = Σ a[u], out[4 + u] = Σ b[u] for u < 4.
ATTNLAB_AVX512 inline void sums4x2(const __m512* a, const __m512* b, float* out) {
  __m512 ta = fold4(a), tb = fold4(b);
  __m512 u = _mm512_add_ps(_mm512_maskz_unpacklo_ps(kAll, ta, tb), _mm512_maskz_unpackhi_ps(kAll, ta, tb));  // per lane: a02 b02 a13 b13
  u = _mm512_add_ps(u, _mm512_maskz_permute_ps(kAll, u, 0x4E));                                  // per lane: a b a b
  alignas(64) float t[16];
  _mm512_store_ps(t, u);
  for (int k = 0; k < 4; ++k) out[k] = t[4 * k], out[4 + k] = t[4 * k + 1];
}
// The 16 sums of a[i] in lane (i mod 4)·4 + i / 4 of the result: four rounds of pairing, halves,
// then 128-bit lanes, then pairs within them. With a[r·4 + u] the chains of query row u and key row
// r, 128-bit lane u holds query row u's sums against the four key rows.
ATTNLAB_AVX512 inline __m512 sums16(const __m512* a) {
  __m512 t[8], w[4];
  for (int p = 0; p < 8; ++p)
    t[p] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(kAll, a[2 * p], a[2 * p + 1], 0x44),
                         _mm512_maskz_shuffle_f32x4(kAll, a[2 * p], a[2 * p + 1], 0xEE));
  for (int p = 0; p < 4; ++p)
    w[p] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(kAll, t[2 * p], t[2 * p + 1], 0x88),
                         _mm512_maskz_shuffle_f32x4(kAll, t[2 * p], t[2 * p + 1], 0xDD));  // lane b: a[4p + b]
  __m512 y = _mm512_add_ps(_mm512_maskz_unpacklo_ps(kAll, w[0], w[1]), _mm512_maskz_unpackhi_ps(kAll, w[0], w[1]));
  __m512 z = _mm512_add_ps(_mm512_maskz_unpacklo_ps(kAll, w[2], w[3]), _mm512_maskz_unpackhi_ps(kAll, w[2], w[3]));
  return _mm512_add_ps(_mm512_maskz_shuffle_ps(kAll, y, z, 0x44), _mm512_maskz_shuffle_ps(kAll, y, z, 0xEE));
}
struct Avx512Kernel {
  static constexpr bool kFourKeys = true;
  // 4 query rows against 4 key rows k0 + r·stride: 16 chains, each query chunk loaded once for the
  // four keys; out[u·4 + r] = q_u · k_r.
  template <class T>
  ATTNLAB_AVX512 static void dot4x4(const float* q, const T* k0, std::size_t stride, std::size_t n, float* out) {
    __m512 a[16];
    for (int i = 0; i < 16; ++i) a[i] = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      __m512 x[4];
      for (int r = 0; r < 4; ++r) x[r] = avx512_load16(k0 + r * stride + i);
      for (int u = 0; u < 4; ++u) {
        __m512 qq = _mm512_loadu_ps(q + u * n + i);
        for (int r = 0; r < 4; ++r) a[r * 4 + u] = _mm512_fmadd_ps(qq, x[r], a[r * 4 + u]);
      }
    }
    if (i < n) {
      __m512 x[4];
      for (int r = 0; r < 4; ++r) x[r] = avx512_load8(k0 + r * stride + i);
      for (int u = 0; u < 4; ++u) {
        __m512 qq = avx512_load8(q + u * n + i);
        for (int r = 0; r < 4; ++r) a[r * 4 + u] = _mm512_fmadd_ps(qq, x[r], a[r * 4 + u]);
      }
    }
    _mm512_storeu_ps(out, sums16(a));
  }
  template <class T>
  ATTNLAB_AVX512 static float dot(const float* q, const T* k, std::size_t n) {
    __m512 a = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) a = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), avx512_load16(k + i), a);
    if (i < n) a = _mm512_fmadd_ps(avx512_load8(q + i), avx512_load8(k + i), a);
    return hsum16(a);
  }
  // acc[c] += Σ_j p[j] · V[j·stride + c]: 128 columns in 8 registers at a time, then 16, then 8.
  template <class T>
  ATTNLAB_AVX512 static void weighted_rows(const float* p, const T* V, std::size_t stride, std::size_t rows, float* acc,
                                           std::size_t n) {
    std::size_t c = 0;
    for (; c + 128 <= n; c += 128) {
      __m512 a[8];
      for (int u = 0; u < 8; ++u) a[u] = _mm512_loadu_ps(acc + c + 16 * u);
      for (std::size_t j = 0; j < rows; ++j) {
        const T* v = V + j * stride + c;
        __m512 pj = _mm512_set1_ps(p[j]);
        for (int u = 0; u < 8; ++u) a[u] = _mm512_fmadd_ps(pj, avx512_load16(v + 16 * u), a[u]);
      }
      for (int u = 0; u < 8; ++u) _mm512_storeu_ps(acc + c + 16 * u, a[u]);
    }
    for (; c + 16 <= n; c += 16) {
      __m512 a = _mm512_loadu_ps(acc + c);
      for (std::size_t j = 0; j < rows; ++j) a = _mm512_fmadd_ps(_mm512_set1_ps(p[j]), avx512_load16(V + j * stride + c), a);
      _mm512_storeu_ps(acc + c, a);
    }
    if (c < n) {
      __m512 a = avx512_load8(acc + c);
      for (std::size_t j = 0; j < rows; ++j) a = _mm512_fmadd_ps(_mm512_set1_ps(p[j]), avx512_load8(V + j * stride + c), a);
      _mm512_mask_storeu_ps(acc + c, 0x00FF, a);
    }
  }
  // Two heads over the same block: 128 columns of both in 16 registers, each value loaded once.
  template <class T>
  ATTNLAB_AVX512 static void weighted_rows2(const float* p0, const float* p1, const T* V, std::size_t stride,
                                            std::size_t rows, float* acc0, float* acc1, std::size_t n) {
    std::size_t c = 0;
    for (; c + 128 <= n; c += 128) {
      __m512 a[8], b[8];
      for (int u = 0; u < 8; ++u) a[u] = _mm512_loadu_ps(acc0 + c + 16 * u), b[u] = _mm512_loadu_ps(acc1 + c + 16 * u);
      for (std::size_t j = 0; j < rows; ++j) {
        const T* v = V + j * stride + c;
        __m512 x = _mm512_set1_ps(p0[j]), y = _mm512_set1_ps(p1[j]);
        for (int u = 0; u < 8; ++u) {
          __m512 vv = avx512_load16(v + 16 * u);
          a[u] = _mm512_fmadd_ps(x, vv, a[u]);
          b[u] = _mm512_fmadd_ps(y, vv, b[u]);
        }
      }
      for (int u = 0; u < 8; ++u) _mm512_storeu_ps(acc0 + c + 16 * u, a[u]), _mm512_storeu_ps(acc1 + c + 16 * u, b[u]);
    }
    if (c < n) weighted_rows(p0, V + c, stride, rows, acc0 + c, n - c), weighted_rows(p1, V + c, stride, rows, acc1 + c, n - c);
  }
  // 4 query rows against two key rows: 8 chains, 6 loads for 8 multiply-adds of 16 floats.
  template <class T>
  ATTNLAB_AVX512 static void dot4x2(const float* q, const T* k0, const T* k1, std::size_t n, float* out) {
    __m512 a[4], b[4];
    for (int u = 0; u < 4; ++u) a[u] = b[u] = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      __m512 x = avx512_load16(k0 + i), y = avx512_load16(k1 + i);
      for (int u = 0; u < 4; ++u) {
        __m512 qq = _mm512_loadu_ps(q + u * n + i);
        a[u] = _mm512_fmadd_ps(qq, x, a[u]);
        b[u] = _mm512_fmadd_ps(qq, y, b[u]);
      }
    }
    if (i < n) {
      __m512 x = avx512_load8(k0 + i), y = avx512_load8(k1 + i);
      for (int u = 0; u < 4; ++u) {
        __m512 qq = avx512_load8(q + u * n + i);
        a[u] = _mm512_fmadd_ps(qq, x, a[u]);
        b[u] = _mm512_fmadd_ps(qq, y, b[u]);
      }
    }
    sums4x2(a, b, out);
  }
  // 4 query rows against one key row.
  template <class T>
  ATTNLAB_AVX512 static void dot4(const float* q, const T* k, std::size_t n, float* out) {
    __m512 a[4], z[4];
    for (int u = 0; u < 4; ++u) a[u] = z[u] = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      __m512 x = avx512_load16(k + i);
      for (int u = 0; u < 4; ++u) a[u] = _mm512_fmadd_ps(_mm512_loadu_ps(q + u * n + i), x, a[u]);
    }
    if (i < n) {
      __m512 x = avx512_load8(k + i);
      for (int u = 0; u < 4; ++u) a[u] = _mm512_fmadd_ps(avx512_load8(q + u * n + i), x, a[u]);
    }
    float both[8];
    sums4x2(a, z, both);
    for (int u = 0; u < 4; ++u) out[u] = both[u];
  }
  // The largest of s[0..n): 16 running maxima.
  ATTNLAB_AVX512 static float block_max(const float* s, std::size_t n) {
    __m512 a = _mm512_set1_ps(-INFINITY);
    std::size_t j = 0;
    for (; j + 16 <= n; j += 16) a = _mm512_maskz_max_ps(kAll, a, _mm512_loadu_ps(s + j));
    alignas(64) float t[16];
    _mm512_store_ps(t, a);
    return finish_max(t, 16, s, j, n);
  }
  // exp of 16 floats ≤ 0: the AVX2 kernel's exp8, lane for lane the same operations.
  ATTNLAB_AVX512 static __m512 exp16(__m512 x) {
    x = _mm512_maskz_max_ps(kAll, x, _mm512_set1_ps(kExpFloor));
    __m512 n = _mm512_maskz_roundscale_ps(kAll, _mm512_mul_ps(x, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 f = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
    f = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), f);
    __m512 y = _mm512_set1_ps(kExpPoly[0]);
    for (int k = 1; k < 6; ++k) y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(kExpPoly[k]));
    y = _mm512_fmadd_ps(y, _mm512_mul_ps(f, f), _mm512_add_ps(f, _mm512_set1_ps(1.0f)));
    __m512i e = _mm512_maskz_slli_epi32(kAll, _mm512_add_epi32(_mm512_maskz_cvtps_epi32(kAll, n), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(y, _mm512_castsi512_ps(e));
  }
  // s[j] = exp(s[j] − m) for j < n, 16 at a time (the last 15 or fewer as the AVX2 kernel does: 8
  // at a time, then one by one); returns their sum.
  ATTNLAB_AVX512 static float exp_shift(float* s, std::size_t n, float m) {
    const __m512 mm = _mm512_set1_ps(m);
    __m512 acc = _mm512_setzero_ps();
    std::size_t j = 0;
    for (; j + 16 <= n; j += 16) {
      __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(s + j), mm));
      _mm512_storeu_ps(s + j, e);
      acc = _mm512_add_ps(acc, e);
    }
    float sum = hsum16(acc);
    return sum + Avx2Kernel::exp_shift(s + j, n - j, m);
  }
};
#undef ATTNLAB_AVX512
#endif

constexpr std::size_t kLineFloats = 16;  // floats in a 64-byte cache line
// n floats rounded up to whole lines.
constexpr std::size_t whole_lines(std::size_t n) { return (n + kLineFloats - 1) / kLineFloats * kLineFloats; }
// The first float of p's array that starts a 64-byte line (at most 15 floats on).
inline float* first_line(float* p) {
  return p + (kLineFloats - reinterpret_cast<std::uintptr_t>(p) / sizeof(float) % kLineFloats) % kLineFloats;
}
constexpr std::size_t kBlock = 64;  // cache rows per softmax block (a block of keys stays in L1/L2)
constexpr std::size_t kAhead = 8;    // cache rows requested ahead of the one being read (16 before 2026-12-07)
constexpr std::size_t kPieceRows = 1024;  // cache rows per work item that a thread takes
constexpr std::size_t kPieces = 8;   // calls of a block's weighted sums, each after a share of prefetches
constexpr std::size_t kLockstepHeads = 1;  // the most query heads per KV head that a thread walks two items of at once

// One head's online softmax over a block of nb scores s: the running max m and sum l take the block
// in, the accumulator acc (Dv) is rescaled to the new max, s becomes exp(s - m).
template <class Kernel>
[[gnu::always_inline]] inline void softmax_block(float* s, std::size_t nb, float& m, float& l, float* acc, std::size_t Dv) {
  float bm = Kernel::block_max(s, nb), mn = std::max(m, bm);
  float corr = libm::exp(m - mn);
  l *= corr;
  scale_row(corr, acc, Dv);
  l += Kernel::exp_shift(s, nb, mn);
  m = mn;
}

// The shape every work item of a variant shares: Hg query heads per KV head, key and value rows
// (Dk, Dv numbers, k_stride and v_stride apart), `rows` cached rows per item.
struct WalkShape {
  std::size_t Hg, k_stride, Dk, v_stride, Dv, rows;
  float scale;
};
// One work item: one KV head's Hg query heads over its `rows` cached rows from K and V on, and
// where its result goes: each head's max score m (Hg), sum of exponentials l (Hg) and unnormalized
// output acc (Hg, Dv), written once when the walk ends (the running values stay in the walk).
template <class T>
struct WalkItem {
  const float* q;  // (Hg, Dk)
  const T* K;      // (rows, k_stride)
  const T* V;      // (rows, v_stride)
  float *m, *l, *acc;
};

// One work item walked block by block (online softmax), in three steps per block of nb rows
// from n0: the scores two rows at a time (four with a kernel that has dot4x4 and a KV head of 4
// query heads or more), the block's softmax, the weighted sums in about kPieces calls.
// attend_rows runs one item through them; attend_rows_two runs two in lockstep.
template <class Kernel, class T>
class ItemWalk {
 public:
  // The walk's running state (the block's scores, each head's max, sum and accumulators) lives in
  // a buffer of its own, on whole 64-byte lines that no other thread writes; the item's m, l and
  // acc are written once, by finish(). Updated in place, two threads' neighbouring items shared
  // lines at their edges (4 heads' maxima are 16 bytes, as are their sums), and every block's
  // softmax and weighted sums moved those lines between the cores: in a standalone harness (GQA,
  // 3 GiB, two threads, the 2026-12-07 Intel VM) the walk read 26.1-26.5 GB/s in place and
  // 27.6-28.4 with this buffer (docs/ARCHITECTURE.md).
  [[gnu::always_inline]] ItemWalk(const WalkShape& w, const WalkItem<T>& it)
      : w_(w), it_(it), out_(it), buf_(new float[buffer_floats(w)]) {
    float* b = first_line(buf_.get());
    s_ = b;                         // (Hg, kBlock)
    it_.acc = b + w.Hg * kBlock;    // (Hg, Dv)
    it_.m = it_.acc + w.Hg * w.Dv;  // (Hg)
    it_.l = it_.m + w.Hg;           // (Hg)
    for (std::size_t h = 0; h < w.Hg; ++h) it_.m[h] = -INFINITY, it_.l[h] = 0.0f;
    std::fill(it_.acc, it_.acc + w.Hg * w.Dv, 0.0f);
  }

  ItemWalk(const ItemWalk&) = delete;  // a copy's state would point into this walk's buffer
  ItemWalk& operator=(const ItemWalk&) = delete;

  // The item's result into its m, l and acc: once, after its last block.
  [[gnu::always_inline]] void finish() const {
    std::copy(it_.m, it_.m + w_.Hg, out_.m);
    std::copy(it_.l, it_.l + w_.Hg, out_.l);
    std::copy(it_.acc, it_.acc + w_.Hg * w_.Dv, out_.acc);
  }

  // Every head's scores of rows j to j + 3 of the block (the four-key tile, with a kernel that has
  // it and 4 query heads or more), else of rows j and j + 1 (one row when j is the block's last);
  // returns how many rows it scored. Each key row is asked for kAhead rows ahead, each value row
  // now (prefetch_value).
  [[gnu::always_inline]] std::size_t score(std::size_t n0, std::size_t nb, std::size_t j) {
    const std::size_t Hg = w_.Hg, Dk = w_.Dk, ks = w_.k_stride;
    const std::size_t rows = Kernel::kFourKeys && Hg >= 4 && j + 4 <= nb ? 4 : j + 1 < nb ? 2 : 1;
    const T* k = it_.K + (n0 + j) * ks;
    for (std::size_t r = 0; r < rows; ++r) {
      if (n0 + j + r + kAhead < w_.rows) prefetch_row(k + (kAhead + r) * ks, Dk);
      prefetch_value(n0 + j + r);
    }
    // Groups of 4 query heads: each query chunk loaded once for all the rows scored.
    float* s = s_;
    std::size_t h = 0;
    for (alignas(64) float d[16]; h + 4 <= Hg; h += 4) {
      if constexpr (Kernel::kFourKeys)
        if (rows == 4) {
          Kernel::dot4x4(it_.q + h * Dk, k, ks, Dk, d);  // d[u·4 + r]
          for (std::size_t u = 0; u < 4; ++u)
            for (std::size_t r = 0; r < 4; ++r) s[(h + u) * kBlock + j + r] = d[u * 4 + r] * w_.scale;
          continue;
        }
      if (rows == 2) Kernel::dot4x2(it_.q + h * Dk, k, k + ks, Dk, d);  // d[r·4 + u]
      else Kernel::dot4(it_.q + h * Dk, k, Dk, d);
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t u = 0; u < 4; ++u) s[(h + u) * kBlock + j + r] = d[r * 4 + u] * w_.scale;
    }
    for (; h < Hg; ++h)
      for (std::size_t r = 0; r < rows; ++r) s[h * kBlock + j + r] = Kernel::dot(it_.q + h * Dk, k + r * ks, Dk) * w_.scale;
    return rows;
  }

  // Every head's softmax over the block; the next block's first keys asked for. Returns how many
  // calls the block's weighted sums take (values() with c = 0, 1, …).
  [[gnu::always_inline]] std::size_t softmax(std::size_t n0, std::size_t nb) {
    const std::size_t Hg = w_.Hg, rows = w_.rows;
    for (std::size_t h = 0; h < Hg; ++h) softmax_block<Kernel>(&s_[h * kBlock], nb, it_.m[h], it_.l[h], it_.acc + h * w_.Dv, w_.Dv);
    for (std::size_t j = 0; n0 + nb + j < rows && j < kAhead; ++j) prefetch_row(it_.K + (n0 + nb + j) * w_.k_stride, w_.Dk);
    // The weighted sums in about kPieces calls (a head pair's rows cut in pieces where there are
    // few pairs), and before each call a share of the rest of the next block's keys asked for
    // (into L2): the memory keeps streaming while this block's values are summed, instead of
    // waiting for the next block's scores to ask. A piece re-reads the accumulators, never
    // reorders a sum: the same numbers.
    const std::size_t pairs = (Hg + 1) / 2, cuts = std::max<std::size_t>(1, kPieces / pairs);
    piece_ = (nb + cuts - 1) / cuts;
    per_pair_ = (nb + piece_ - 1) / piece_;
    calls_ = pairs * per_pair_, call_ = 0;
    pf_ = std::min(rows, n0 + nb + kAhead), pf_end_ = std::min(rows, n0 + nb + kBlock);
    return calls_;
  }

  // Call c of the block's weighted sums: head pair c / per_pair (one head when Hg is odd and it
  // is the last), rows of piece c % per_pair. Calls in order c = 0, 1, …: pair by pair, piece by piece.
  [[gnu::always_inline]] void values(std::size_t n0, std::size_t nb, std::size_t c) {
    const std::size_t Dv = w_.Dv, vs = w_.v_stride;
    for (std::size_t n = pf_end_ > pf_ ? (pf_end_ - pf_ + (calls_ - call_) - 1) / (calls_ - call_) : 0; n > 0; --n, ++pf_)
      prefetch_row<2>(it_.K + pf_ * w_.k_stride, w_.Dk);
    ++call_;
    const std::size_t h = 2 * (c / per_pair_), j0 = (c % per_pair_) * piece_, len = std::min(piece_, nb - j0);
    const float* s = s_;
    const T* v = it_.V + (n0 + j0) * vs;
    if (h + 1 < w_.Hg)
      Kernel::weighted_rows2(&s[h * kBlock + j0], &s[(h + 1) * kBlock + j0], v, vs, len, it_.acc + h * Dv, it_.acc + (h + 1) * Dv, Dv);
    else
      Kernel::weighted_rows(&s[h * kBlock + j0], v, vs, len, it_.acc + h * Dv, Dv);
  }

 private:
  // Value row n of this block, read after the block's scores: asked for into L2 now (into L1 it
  // pushed out rows still in use: MHA, GQA and naive MLA took 4-6% longer a step from memory on
  // the 2026-12-07 Intel VM). Not where the values are the key rows themselves (absorbed MLA, the
  // compute loop): those were asked for kAhead rows ahead, and asking again cost 5-10% of the step.
  [[gnu::always_inline]] void prefetch_value(std::size_t n) const {
    if (it_.V != it_.K) prefetch_row<2>(it_.V + n * w_.v_stride, w_.Dv);
  }

  const WalkShape w_;  // a copy: its scale stays in a register across the stores into s_
  WalkItem<T> it_;         // the item, its m, l and acc pointing into buf_
  const WalkItem<T> out_;  // the item as given: where finish() writes
  // From its first 64-byte boundary: s_ (Hg, kBlock), acc (Hg, Dv), m (Hg), l (Hg), then the
  // rest of the last line and a line of slack for the boundary (not zeroed: each part is set
  // before it is read).
  std::unique_ptr<float[]> buf_;
  float* s_;  // (Hg, kBlock) in buf_: the block's scores, then their exponentials
  static std::size_t buffer_floats(const WalkShape& w) { return whole_lines(w.Hg * kBlock + w.Hg * w.Dv + 2 * w.Hg) + kLineFloats; }
  std::size_t piece_ = 0, per_pair_ = 0, calls_ = 0, call_ = 0;  // the block's weighted sums
  std::size_t pf_ = 0, pf_end_ = 0;                              // the next block's keys still to ask for
};

// One work item over its rows, block by block.
template <class Kernel, class T>
[[gnu::always_inline]] inline void attend_rows(const WalkShape& w, const WalkItem<T>& item) {
  ItemWalk<Kernel, T> a(w, item);
  for (std::size_t n0 = 0; n0 < w.rows; n0 += kBlock) {
    const std::size_t nb = std::min(kBlock, w.rows - n0);
    for (std::size_t j = 0; j < nb;) j += a.score(n0, nb, j);
    for (std::size_t c = 0, calls = a.softmax(n0, nb); c < calls; ++c) a.values(n0, nb, c);
  }
  a.finish();
}

// Two work items of the same shape walked in lockstep: a pair of rows of one, the same pair of
// the other, …; then both softmaxes; then the weighted sums call by call. The thread keeps two
// key streams and two value streams in flight instead of one of each (one or two streams read
// 16-24 GB/s a thread on the Zen 5 VM, four interleaved 31-35). Each item's arithmetic is
// attend_rows' in its order, so the bits are the same as walking the two one after the other.
template <class Kernel, class T>
[[gnu::always_inline]] inline void attend_rows_two(const WalkShape& w, const WalkItem<T>& first, const WalkItem<T>& second) {
  ItemWalk<Kernel, T> a(w, first), b(w, second);
  for (std::size_t n0 = 0; n0 < w.rows; n0 += kBlock) {
    const std::size_t nb = std::min(kBlock, w.rows - n0);
    for (std::size_t j = 0; j < nb;) {
      a.score(n0, nb, j);
      j += b.score(n0, nb, j);
    }
    const std::size_t calls = a.softmax(n0, nb);
    b.softmax(n0, nb);
    for (std::size_t c = 0; c < calls; ++c) a.values(n0, nb, c), b.values(n0, nb, c);
  }
  a.finish();
  b.finish();
}

// Each kernel's walk compiled for the kernel's own instruction set: the kernel's dot products and
// weighted sums (and the walk's softmax) inline into one loop, instead of a call per pair of rows
// that the compiler could not inline across instruction sets. The same operations in the same order.
template <class T>
void walk(PortableKernel, const WalkShape& w, const WalkItem<T>& item) {
  attend_rows<PortableKernel>(w, item);
}
template <class T>
void walk_two(PortableKernel, const WalkShape& w, const WalkItem<T>& a, const WalkItem<T>& b) {
  attend_rows_two<PortableKernel>(w, a, b);
}
#ifdef ATTNLAB_AVX2_KERNEL
template <class T>
__attribute__((target("avx2,fma"))) void walk(Avx2Kernel, const WalkShape& w, const WalkItem<T>& item) {
  attend_rows<Avx2Kernel>(w, item);
}
template <class T>
__attribute__((target("avx2,fma"))) void walk_two(Avx2Kernel, const WalkShape& w, const WalkItem<T>& a, const WalkItem<T>& b) {
  attend_rows_two<Avx2Kernel>(w, a, b);
}
template <class T>
__attribute__((target("avx512f,avx2,fma"))) void walk(Avx512Kernel, const WalkShape& w, const WalkItem<T>& item) {
  attend_rows<Avx512Kernel>(w, item);
}
template <class T>
__attribute__((target("avx512f,avx2,fma"))) void walk_two(Avx512Kernel, const WalkShape& w, const WalkItem<T>& a,
                                                          const WalkItem<T>& b) {
  attend_rows_two<Avx512Kernel>(w, a, b);
}
#endif

constexpr std::uint32_t kKeySalt = 1, kValueSalt = 2;

// The checksum's weight of output i: Σ out[i]·(1 + i mod 97), so a right number in the wrong
// place changes the checksum too.
inline double checksum_weight(std::size_t i) { return static_cast<double>(1 + i % 97); }

}  // namespace

float bench_cache_number(std::size_t i, std::uint32_t salt, int bytes_per_number) {
  float x = static_cast<float>(((i * 2654435761u + salt) >> 8) % 1000) / 1000.0f - 0.5f;
  if (bytes_per_number == 4) return x;
  std::uint32_t w;
  std::memcpy(&w, &x, 4);
  w &= 0xFFFF0000u;
  std::memcpy(&x, &w, 4);
  return x;
}
namespace {
// Number i of the queries.
float bench_query_number(std::size_t i) { return static_cast<float>(i % 7) / 7.0f - 0.4f; }


inline v8u32 load8_words(const unsigned char* p) {
  v8u32 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Reads 4-byte words base[0..n) (n a multiple of 16) once, split across every thread: four streams a thread, each line
// requested 2 KiB ahead, the words added as integers (whatever they hold: floats, a bf16 cache's
// pairs, with no slow path for odd bit patterns); returns the sum so the reads cannot be left out.
double stream_read(const void* base, std::size_t n) {
  const std::size_t threads = thread_count();
  std::vector<std::uint32_t> part(threads);
  const unsigned char* bytes = static_cast<const unsigned char*>(base);
  parallel_for(threads, 1, [&](std::size_t tb, std::size_t te) {
    for (std::size_t t = tb; t < te; ++t) {
      std::size_t chunk = (n / threads) & ~std::size_t{15};
      const unsigned char* p = bytes + 4 * t * chunk;
      std::size_t len = t + 1 == threads ? n - t * chunk : chunk;
      // four streams per thread, each line requested 2 KiB ahead: the most this kernel can
      // read, which is what a bandwidth-bound decode kernel can reach
      std::size_t sub = (len / 4) & ~std::size_t{15};
      const unsigned char* q[4] = {p, p + 4 * sub, p + 8 * sub, p + 12 * sub};
      v8u32 s[4] = {};
      for (std::size_t i = 0; i < sub; i += 16)
        for (int k = 0; k < 4; ++k) {
          if (i + 512 < sub) __builtin_prefetch(q[k] + 4 * (i + 512));  // never past this stream's end
          s[k] += load8_words(q[k] + 4 * i) + load8_words(q[k] + 4 * (i + 8));
        }
      v8u32 tail = {};
      for (std::size_t i = 4 * sub; i + 16 <= len; i += 16) tail += load8_words(p + 4 * i) + load8_words(p + 4 * (i + 8));
      v8u32 all = (s[0] + s[1]) + (s[2] + s[3]) + tail;
      std::uint32_t sum = 0;
      for (int k = 0; k < 8; ++k) sum += all[k];
      part[t] = sum;
    }
  });
  double s = 0;
  for (std::uint32_t x : part) s += static_cast<double>(x);
  return s;
}

// One variant's decode step, set up once: its cache filled (in parallel, so the reading threads
// touch their pages first), the queries, the per-thread partial results.
template <class Kernel, class T>
struct VariantState final : DecodeStep::State {
  BenchVariant v;
  std::size_t B, N, Hg, Dk, Dv, k_stride, v_stride, seqs, splits, items;
  HugeArray<T> K, Vc;
  const T* Vbase;
  std::vector<float> q, m, l, acc, out;
  float scale;

  VariantState(const BenchVariant& var, std::uint64_t batch, std::uint64_t n)
      : v(var), B(batch), N(n), Hg(var.H / var.G), Dk(var.Dk), Dv(var.Dv), k_stride(var.Dk),
        v_stride(var.values_in_keys ? var.Dk : var.Dv), seqs(batch * var.G), K(seqs * n * k_stride),
        Vc(var.values_in_keys ? 0 : seqs * n * v_stride) {
    const std::size_t rows = seqs * N;
    auto fill = [&](T* p, std::size_t count, std::uint32_t salt) {
      parallel_for(count, 1 << 16, [&, p, salt](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
          float x = bench_cache_number(i, salt, sizeof(T));
          if constexpr (sizeof(T) == 4) {
            p[i] = x;
          } else {
            std::uint32_t w;
            std::memcpy(&w, &x, 4);
            p[i] = static_cast<std::uint16_t>(w >> 16);  // exact: x is already a bf16 value
          }
        }
      });
    };
    fill(K.get(), rows * k_stride, kKeySalt);
    if (Vc) fill(Vc.get(), rows * v_stride, kValueSalt);
    Vbase = v.values_in_keys ? K.get() : Vc.get();
    q.resize(B * v.H * Dk);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = bench_query_number(i);
    scale = 1.0f / std::sqrt(static_cast<float>(Dk));
    // Each cache's rows in pieces of kPieceRows (flash-decoding), the pieces combined after in a
    // fixed order: the split does not depend on the thread count, so neither do the bits.
    splits = std::max<std::size_t>(1, (N + kPieceRows - 1) / kPieceRows);
    items = seqs * splits;
    m.resize(items * Hg), l.resize(items * Hg), acc.resize(items * Hg * Dv), out.resize(B * v.H * Dv);
  }

  // The 4-byte words read_cache() reads of the keys and of the values: their numbers of T,
  // rounded down to 16 words.
  std::size_t key_words() const { return seqs * N * k_stride * sizeof(T) / 4 / 16 * 16; }
  std::size_t value_words() const { return Vc ? seqs * N * v_stride * sizeof(T) / 4 / 16 * 16 : 0; }
  double read_cache() override {
    double s = stream_read(K.get(), key_words());
    if (Vc) s += stream_read(Vc.get(), value_words());
    return s;
  }
  std::uint64_t read_cache_bytes() const override { return std::uint64_t{4} * (key_words() + value_words()); }

  double run() override {
    // The threads take pieces from a shared counter: a thread that the machine slows down takes
    // fewer, instead of the others waiting for its fixed share at the end of the step.
    std::atomic<std::size_t> next{0};
    // The threads take two items at a time (0 and 1, 2 and 3, …: the same pairs at any thread
    // count) and walk them in lockstep when their rows are as many, where a KV head has at most
    // kLockstepHeads query heads (MHA, naive MLA). GQA's 4 heads walked two items at once measured
    // slower (72-73% of its own read against 80-81% on the 2026-12-07 Intel VM; docs/ARCHITECTURE.md),
    // and where a KV head has many (MQA, absorbed MLA) a second item's scores and accumulators
    // would crowd the first's out of L1.
    const std::size_t step = Hg <= kLockstepHeads ? 2 : 1;
    auto shape = [&](std::size_t rows) { return WalkShape{Hg, k_stride, Dk, v_stride, Dv, rows, scale}; };
    auto item_at = [&](std::size_t item, std::size_t& rows) {
      std::size_t sq = item / splits, sp = item % splits;
      std::size_t r0 = N * sp / splits, r1 = N * (sp + 1) / splits;
      rows = r1 - r0;
      return WalkItem<T>{q.data() + ((sq / v.G) * v.H + (sq % v.G) * Hg) * Dk, K.get() + (sq * N + r0) * k_stride,
                         Vbase + (sq * N + r0) * v_stride, &m[item * Hg], &l[item * Hg], &acc[item * Hg * Dv]};
    };
    parallel_for(thread_count(), 1, [&](std::size_t, std::size_t) {
      for (std::size_t it; (it = next.fetch_add(step, std::memory_order_relaxed)) < items;) {
        std::size_t rows0 = 0, rows1 = 0;
        const WalkItem<T> first = item_at(it, rows0);
        if (step == 2 && it + 1 < items) {
          const WalkItem<T> second = item_at(it + 1, rows1);
          if (rows0 == rows1) {
            walk_two<T>(Kernel{}, shape(rows0), first, second);
            continue;
          }
          walk<T>(Kernel{}, shape(rows1), second);
        }
        walk<T>(Kernel{}, shape(rows0), first);
      }
    });
    for (std::size_t sq = 0; sq < seqs; ++sq)
      for (std::size_t h = 0; h < Hg; ++h) {
        float M = -INFINITY, L = 0;
        for (std::size_t sp = 0; sp < splits; ++sp) M = std::max(M, m[(sq * splits + sp) * Hg + h]);
        float* o = &out[(sq * Hg + h) * Dv];
        std::fill(o, o + Dv, 0.0f);
        for (std::size_t sp = 0; sp < splits; ++sp) {
          std::size_t it = sq * splits + sp;
          float w = libm::exp(m[it * Hg + h] - M);
          L += w * l[it * Hg + h];
          for (std::size_t c = 0; c < Dv; ++c) o[c] += w * acc[(it * Hg + h) * Dv + c];
        }
        for (std::size_t c = 0; c < Dv; ++c) o[c] /= L;
      }
    double checksum = 0;
    for (std::size_t i = 0; i < out.size(); ++i) checksum += static_cast<double>(out[i]) * checksum_weight(i);
    return checksum;
  }
};

// The compute peak of the decode kernel in use: a variant's whole step (scores, online softmax,
// weighted sums) over kRows cached rows that stay in L2, run reps times on every thread. Nothing
// is read from memory: FLOP / second is the most this kernel can do on this machine. Measured on
// absorbed MLA's shape (the variant the roofline question is about), the figure the other
// variants' bounds are placed against.
template <class Kernel>
struct ComputeState final : ComputeLoop::State {
  static constexpr std::size_t kRows = 64;  // one softmax block
  BenchVariant v;
  std::size_t Hg, reps, threads;
  // Each thread's query, max, sum and accumulators, on 64-byte lines of its own: neighbouring
  // threads' numbers in one line would move it between the cores at every call.
  std::size_t stride;      // floats per thread: Hg·Dk + 2·Hg + Hg·Dv, rounded up to a line
  HugeArray<float> state;  // (threads, stride): q (Hg, Dk), m (Hg), l (Hg), acc (Hg, Dv)
  HugeArray<float> k;      // (threads, kRows, Dk), aligned as the decode step's caches are
  std::vector<double> part;

  ComputeState(const BenchVariant& var, std::size_t r)
      : v(var), Hg(var.H / var.G), reps(r), threads(thread_count()),
        stride(whole_lines(Hg * var.Dk + 2 * Hg + Hg * var.Dv)),
        state(threads * stride), k(threads * kRows * var.Dk), part(threads) {
    for (std::size_t t = 0; t < threads; ++t)
      for (std::size_t i = 0; i < Hg * v.Dk; ++i) q_of(t)[i] = bench_query_number(i);
    for (std::size_t i = 0; i < threads * kRows * v.Dk; ++i) k.get()[i] = bench_cache_number(i % (kRows * v.Dk), kKeySalt, 4);
  }
  float* q_of(std::size_t t) const { return state.get() + t * stride; }
  float* m_of(std::size_t t) const { return q_of(t) + Hg * v.Dk; }
  float* l_of(std::size_t t) const { return m_of(t) + Hg; }
  float* acc_of(std::size_t t) const { return l_of(t) + Hg; }

  double run() override {
    // threads × reps calls, taken from a shared counter as the decode step takes its pieces: a
    // thread that the machine slows down takes fewer, so the peak is not the slowest thread's
    const float scale = 1.0f / std::sqrt(static_cast<float>(v.Dk));
    const std::size_t Dk = v.Dk, Dv = v.Dv, calls = threads * reps;
    std::atomic<std::size_t> next{0};
    parallel_for(threads, 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t t = b; t < e; ++t) {
        double s = 0;
        while (next.fetch_add(1, std::memory_order_relaxed) < calls) {
          // values in the keys' rows (absorbed MLA) or, for another shape, the same rows again
          const float* kt = k.get() + t * kRows * Dk;
          walk<float>(Kernel{}, WalkShape{Hg, Dk, Dk, Dk, Dv, kRows, scale},
                      WalkItem<float>{q_of(t), kt, kt, m_of(t), l_of(t), acc_of(t)});
          s += acc_of(t)[0] / l_of(t)[0];  // a dependency on each call: it cannot be left out
        }
        part[t] = s;
      }
    });
    double s = 0;
    for (double x : part) s += x;
    return s;
  }
};

}  // namespace


std::vector<BenchVariant> bench_variants(std::uint64_t H, std::uint64_t G, std::uint64_t Dh, std::uint64_t C,
                                         std::uint64_t R) {
  return {{"mha", H, H, Dh, Dh, false},
          {"gqa", H, G, Dh, Dh, false},
          {"mqa", H, 1, Dh, Dh, false},
          {"mla_naive", H, H, Dh + R, Dh, false},
          {"mla_absorbed", H, 1, C + R, C, true}};
}

std::uint64_t bench_cache_numbers(const BenchVariant& v, std::uint64_t B, std::uint64_t N) {
  return v.values_in_keys ? B * N * v.Dk : B * N * v.G * (v.Dk + v.Dv);
}

std::uint64_t bench_flops(const BenchVariant& v, std::uint64_t B, std::uint64_t N) {
  return 2 * B * N * v.H * (v.Dk + v.Dv);
}

bool decode_kernel_available(DecodeKernel kernel) {
#ifdef ATTNLAB_AVX2_KERNEL
  if (kernel == DecodeKernel::Avx512) return cpu_has_avx512f() && cpu_has_avx2() && cpu_has_fma();
  if (kernel == DecodeKernel::Avx2) return cpu_has_avx2() && cpu_has_fma();
#else
  if (kernel == DecodeKernel::Avx512 || kernel == DecodeKernel::Avx2) return false;
#endif
  return true;  // Automatic always finds one; Portable runs everywhere
}

namespace {
// The kernel that runs for a request: the one asked for where this CPU has it, else the next one
// down (Automatic asks for the fastest). Never Automatic.
DecodeKernel resolve_kernel(DecodeKernel kernel) {
  if ((kernel == DecodeKernel::Automatic || kernel == DecodeKernel::Avx512) && decode_kernel_available(DecodeKernel::Avx512))
    return DecodeKernel::Avx512;
  if (kernel != DecodeKernel::Portable && decode_kernel_available(DecodeKernel::Avx2)) return DecodeKernel::Avx2;
  return DecodeKernel::Portable;
}

}  // namespace

float bench_block_max(DecodeKernel kernel, const float* s, std::size_t n) {
  const DecodeKernel run = resolve_kernel(kernel);
#ifdef ATTNLAB_AVX2_KERNEL
  if (run == DecodeKernel::Avx512) return Avx512Kernel::block_max(s, n);
  if (run == DecodeKernel::Avx2) return Avx2Kernel::block_max(s, n);
#endif
  return PortableKernel::block_max(s, n);
}

DecodeStep::DecodeStep(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number, DecodeKernel kernel) {
  if (v.G == 0 || v.H % v.G != 0 || v.Dk % 8 != 0 || v.Dv % 8 != 0 || (v.values_in_keys && v.Dv > v.Dk))
    throw std::invalid_argument("DecodeStep: H % G == 0 and widths multiple of 8 required");
  const DecodeKernel run = resolve_kernel(kernel);
  const bool half = bytes_per_number == 2;
#ifdef ATTNLAB_AVX2_KERNEL
  if (run == DecodeKernel::Avx512)
    state_ = half ? std::unique_ptr<State>(new VariantState<Avx512Kernel, std::uint16_t>(v, B, N))
                  : std::unique_ptr<State>(new VariantState<Avx512Kernel, float>(v, B, N));
  if (run == DecodeKernel::Avx2)
    state_ = half ? std::unique_ptr<State>(new VariantState<Avx2Kernel, std::uint16_t>(v, B, N))
                  : std::unique_ptr<State>(new VariantState<Avx2Kernel, float>(v, B, N));
#endif
  if (run == DecodeKernel::Portable)
    state_ = half ? std::unique_ptr<State>(new VariantState<PortableKernel, std::uint16_t>(v, B, N))
                  : std::unique_ptr<State>(new VariantState<PortableKernel, float>(v, B, N));
  bytes_ = bench_cache_numbers(v, B, N) * static_cast<std::uint64_t>(half ? 2 : 4);
  flops_ = bench_flops(v, B, N);
  kernel_ = decode_kernel_name(run);
}
DecodeStep::~DecodeStep() = default;
DecodeStep::DecodeStep(DecodeStep&&) noexcept = default;
DecodeStep& DecodeStep::operator=(DecodeStep&&) noexcept = default;

ComputeLoop::ComputeLoop(const BenchVariant& v, std::size_t reps, DecodeKernel kernel) {
  if (v.G == 0 || v.H % v.G != 0 || v.Dk % 8 != 0 || v.Dv % 8 != 0 || v.Dv > v.Dk || reps == 0)
    throw std::invalid_argument("ComputeLoop: H % G == 0, widths multiple of 8, Dv <= Dk, reps > 0");
  const DecodeKernel run = resolve_kernel(kernel);
#ifdef ATTNLAB_AVX2_KERNEL
  if (run == DecodeKernel::Avx512) state_ = std::make_unique<ComputeState<Avx512Kernel>>(v, reps);
  if (run == DecodeKernel::Avx2) state_ = std::make_unique<ComputeState<Avx2Kernel>>(v, reps);
#endif
  if (run == DecodeKernel::Portable) state_ = std::make_unique<ComputeState<PortableKernel>>(v, reps);
  flops_ = static_cast<std::uint64_t>(thread_count()) * reps * call_flops(v);
  kernel_ = decode_kernel_name(run);
}
ComputeLoop::~ComputeLoop() = default;
std::uint64_t ComputeLoop::call_flops(const BenchVariant& v) {
  return ComputeState<PortableKernel>::kRows * (v.H / v.G) * (v.Dk + v.Dv) * 2;
}

StreamRead::StreamRead(std::size_t floats) : n_(floats - floats % 16) {
  auto a = std::make_shared<HugeArray<float>>(make_array(n_, 1.0f));
  data_ = a;
  array_ = a->get();
}
StreamRead::~StreamRead() = default;

double StreamRead::run() { return stream_read(array_, n_); }
double bench_stream_read(const void* words, std::size_t n) { return stream_read(words, n); }

StreamTriad::StreamTriad(std::size_t floats) : n_(floats - floats % 16) {
  auto arrays = std::make_shared<std::vector<HugeArray<float>>>();
  arrays->push_back(make_array(n_, 0.0f));
  arrays->push_back(make_array(n_, 1.0f));
  arrays->push_back(make_array(n_, 2.0f));
  a_ = (*arrays)[0].get(), b_ = (*arrays)[1].get(), c_ = (*arrays)[2].get();
  data_ = arrays;
}
StreamTriad::~StreamTriad() = default;

double StreamTriad::run() {
  float* a = a_;
  const float *b = b_, *c = c_;
  parallel_for(n_ / 16, 1 << 12, [&](std::size_t blo, std::size_t bhi) {
    const v8f k = {3, 3, 3, 3, 3, 3, 3, 3};
    for (std::size_t i = blo * 16; i < bhi * 16; i += 8) {
      v8f x = load8(b + i) + k * load8(c + i);
      std::memcpy(a + i, &x, sizeof x);
    }
  });
  return a[n_ / 2];
}

// The plain way, in double: for each sequence, KV head and query head, every score, one softmax
// over all N of them, then the weighted sum of the value rows; no blocks, no threads, no SIMD.
BenchReference bench_decode_reference(const BenchVariant& v, std::uint64_t B, std::uint64_t N, int bytes_per_number) {
  const std::size_t Hg = v.H / v.G, Dk = v.Dk, Dv = v.Dv, v_stride = v.values_in_keys ? Dk : Dv;
  const std::uint32_t v_salt = v.values_in_keys ? kKeySalt : kValueSalt;  // absorbed MLA: values are the keys' numbers
  const double scale = 1.0 / std::sqrt(static_cast<double>(static_cast<float>(Dk)));
  BenchReference r;
  std::vector<double> p(N);
  for (std::size_t sq = 0; sq < B * v.G; ++sq)  // sq = batch · G + g
    for (std::size_t h = 0; h < Hg; ++h) {
      const std::size_t q0 = (sq * Hg + h) * Dk;  // (batch · H + g · Hg + h) · Dk
      double m = -INFINITY, sum = 0;
      for (std::size_t n = 0; n < N; ++n) {
        double dot = 0;
        for (std::size_t c = 0; c < Dk; ++c)
          dot += static_cast<double>(bench_query_number(q0 + c)) *
                 bench_cache_number((sq * N + n) * Dk + c, kKeySalt, bytes_per_number);
        p[n] = dot * scale;
        m = std::max(m, p[n]);
      }
      for (std::size_t n = 0; n < N; ++n) sum += (p[n] = libm::exp(p[n] - m));
      for (std::size_t c = 0; c < Dv; ++c) {
        double o = 0;
        for (std::size_t n = 0; n < N; ++n) o += p[n] * bench_cache_number((sq * N + n) * v_stride + c, v_salt, bytes_per_number);
        double w = checksum_weight((sq * Hg + h) * Dv + c);
        r.checksum += o / sum * w;
        r.magnitude += std::fabs(o / sum) * w;
      }
    }
  return r;
}


std::string decode_kernel_name(DecodeKernel kernel) {
  switch (resolve_kernel(kernel)) {
    case DecodeKernel::Avx512: return "avx512";
    case DecodeKernel::Avx2: return "avx2";
    default: return "portable";
  }
}

}  // namespace attn
