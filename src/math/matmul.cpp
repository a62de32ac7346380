// The blocked matmul kernel (see matmul.h). The loop nest is the classic one (Goto/BLIS):
//   for each NC-wide column block of B:
//     for each KC-deep slice of k:      pack B[k-slice, column block] into NR-wide panels
//       for each MC-tall row block of A: pack A[row block, k-slice] into MR-tall panels
//         for each panel pair:           the MR x NR micro-kernel over the k-slice
// A k-slice after the first continues the sums already stored in C (a number stored and loaded
// back is the same number), so every output is still  s = fma(a_k, b_k, s) for k = 0, 1, … from 0,
// whatever the tile sizes: each micro-kernel comes with its own (a Tiling), chosen for this CPU at
// run time. A fused multiply-add rounds once and is correctly rounded, so the CPU's instruction
// (AVX2+FMA, AVX-512), the C library's fma (the portable kernel on a CPU without FMA) and
// fused_soft (the book's WebAssembly, src/base/fused.h) give the same bits.
#include "matmul.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ATTNLAB_X86 1
#endif

#include "cpu.h"
#include "parallel.h"
#include "fused.h"

namespace attn {

namespace {

// Below this many multiply-adds the plain loop wins (no packing, no threads).
constexpr std::size_t kSmallWork = std::size_t{1} << 15;
// Fewer rows than this go through gemm_few_rows (no packing).
constexpr std::size_t kFewRows = 4;
// Each extra thread must get at least this many multiply-adds to pay for starting it.
constexpr std::size_t kWorkPerThread = std::size_t{1} << 19;
// The largest micro-tile of any kernel below (numbers), for the edge-tile buffer.
constexpr std::size_t kMaxTile = 16 * 32;

// The micro-kernel: c (MR rows, stride ldc) = first ? a·b : c + a·b over kc steps, where
// a is a packed A panel (a[k*MR + r]) and b a packed B panel (b[k*NR + j]).
template <class T>
using Kernel = void (*)(std::size_t kc, const T* a, const T* b, T* c, std::size_t ldc, bool first);

// A micro-kernel and the blocking it was measured with: the MR x NR tile it computes, the k-slice
// KC, the rows MC of a packed A block (MC*KC numbers, meant for L2) and the columns NC of a packed
// B block (KC*NC numbers, meant for L3).
template <class T>
struct Tiling {
  Kernel<T> kernel;
  std::size_t MR, NR, KC, MC, NC;
  const char* name;
};

template <class T, std::size_t MR, std::size_t NR>
void kernel_portable(std::size_t kc, const T* a, const T* b, T* c, std::size_t ldc, bool first) {
  T acc[MR][NR];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t j = 0; j < NR; ++j) acc[r][j] = first ? T(0) : c[r * ldc + j];
  for (std::size_t k = 0; k < kc; ++k) {
    const T* ak = a + k * MR;
    const T* bk = b + k * NR;
    for (std::size_t r = 0; r < MR; ++r) {
      T ar = ak[r];
      for (std::size_t j = 0; j < NR; ++j) acc[r][j] = fused(ar, bk[j], acc[r][j]);  // one rounding
    }
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t j = 0; j < NR; ++j) c[r * ldc + j] = acc[r][j];
}
// The portable tilings (6 x 8 doubles, 6 x 16 floats: the AVX2 kernels' shapes).
template <class T>
constexpr Tiling<T> portable_tiling() {
  if constexpr (std::is_same_v<T, double>)
    return {kernel_portable<double, 6, 8>, 6, 8, 768, 192, 2048, "portable"};
  else
    return {kernel_portable<float, 6, 16>, 6, 16, 256, 96, 2048, "portable"};
}

#ifdef ATTNLAB_X86
// Twelve accumulators (6 rows x 2 vectors of 4 columns); each lane is one output element, one
// fused multiply-add per k (the AVX2 kernels run only where the CPU also has FMA).
__attribute__((target("avx2,fma"))) void kernel_avx2(std::size_t kc, const double* a, const double* b, double* c,
                                                 std::size_t ldc, bool first) {
  constexpr std::size_t MR = 6, NR = 8;
  __m256d c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if (first) {
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_pd();
  } else {
#define ATTNLAB_LOAD(r) \
  c##r##0 = _mm256_loadu_pd(c + r * ldc); \
  c##r##1 = _mm256_loadu_pd(c + r * ldc + 4);
    ATTNLAB_LOAD(0) ATTNLAB_LOAD(1) ATTNLAB_LOAD(2) ATTNLAB_LOAD(3) ATTNLAB_LOAD(4) ATTNLAB_LOAD(5)
#undef ATTNLAB_LOAD
  }
  for (std::size_t k = 0; k < kc; ++k) {
    __m256d b0 = _mm256_load_pd(b);
    __m256d b1 = _mm256_load_pd(b + 4);
#define ATTNLAB_ROW(r)                                      \
  {                                                         \
    __m256d ar = _mm256_broadcast_sd(a + r);                \
    c##r##0 = _mm256_fmadd_pd(ar, b0, c##r##0);                \
    c##r##1 = _mm256_fmadd_pd(ar, b1, c##r##1);                \
  }
    ATTNLAB_ROW(0) ATTNLAB_ROW(1) ATTNLAB_ROW(2) ATTNLAB_ROW(3) ATTNLAB_ROW(4) ATTNLAB_ROW(5)
#undef ATTNLAB_ROW
    a += MR;
    b += NR;
  }
#define ATTNLAB_STORE(r)                    \
  _mm256_storeu_pd(c + r * ldc, c##r##0); \
  _mm256_storeu_pd(c + r * ldc + 4, c##r##1);
  ATTNLAB_STORE(0) ATTNLAB_STORE(1) ATTNLAB_STORE(2) ATTNLAB_STORE(3) ATTNLAB_STORE(4) ATTNLAB_STORE(5)
#undef ATTNLAB_STORE
}
// The float kernel: the same twelve accumulators, each a vector of 8 floats (6 rows x 16 columns).
__attribute__((target("avx2,fma"))) void kernel_avx2(std::size_t kc, const float* a, const float* b, float* c,
                                                 std::size_t ldc, bool first) {
  constexpr std::size_t MR = 6, NR = 16;
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if (first) {
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
  } else {
#define ATTNLAB_LOAD(r) \
  c##r##0 = _mm256_loadu_ps(c + r * ldc); \
  c##r##1 = _mm256_loadu_ps(c + r * ldc + 8);
    ATTNLAB_LOAD(0) ATTNLAB_LOAD(1) ATTNLAB_LOAD(2) ATTNLAB_LOAD(3) ATTNLAB_LOAD(4) ATTNLAB_LOAD(5)
#undef ATTNLAB_LOAD
  }
  for (std::size_t k = 0; k < kc; ++k) {
    __m256 b0 = _mm256_load_ps(b);
    __m256 b1 = _mm256_load_ps(b + 8);
#define ATTNLAB_ROW(r)                                      \
  {                                                         \
    __m256 ar = _mm256_broadcast_ss(a + r);                 \
    c##r##0 = _mm256_fmadd_ps(ar, b0, c##r##0);                \
    c##r##1 = _mm256_fmadd_ps(ar, b1, c##r##1);                \
  }
    ATTNLAB_ROW(0) ATTNLAB_ROW(1) ATTNLAB_ROW(2) ATTNLAB_ROW(3) ATTNLAB_ROW(4) ATTNLAB_ROW(5)
#undef ATTNLAB_ROW
    a += MR;
    b += NR;
  }
#define ATTNLAB_STORE(r)                    \
  _mm256_storeu_ps(c + r * ldc, c##r##0); \
  _mm256_storeu_ps(c + r * ldc + 8, c##r##1);
  ATTNLAB_STORE(0) ATTNLAB_STORE(1) ATTNLAB_STORE(2) ATTNLAB_STORE(3) ATTNLAB_STORE(4) ATTNLAB_STORE(5)
#undef ATTNLAB_STORE
}
// MR rows x NV vectors: MR*NV AVX-512 accumulators, each lane one output element summed over k in
// order with one fused multiply-add per k, as in the plain loop. The loops over r and v have
// constant bounds: the compiler unrolls them and keeps every accumulator in a register.
template <std::size_t MR, std::size_t NV>
__attribute__((target("avx512f"))) void kernel_avx512(std::size_t kc, const double* a, const double* b, double* c,
                                                     std::size_t ldc, bool first) {
  constexpr std::size_t NR = 8 * NV;
  __m512d acc[MR][NV];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) acc[r][v] = first ? _mm512_setzero_pd() : _mm512_loadu_pd(c + r * ldc + 8 * v);
  for (std::size_t k = 0; k < kc; ++k) {
    __m512d bk[NV];
    for (std::size_t v = 0; v < NV; ++v) bk[v] = _mm512_loadu_pd(b + 8 * v);
    for (std::size_t r = 0; r < MR; ++r) {
      __m512d ar = _mm512_set1_pd(a[r]);
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_pd(ar, bk[v], acc[r][v]);
    }
    a += MR;
    b += NR;
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) _mm512_storeu_pd(c + r * ldc + 8 * v, acc[r][v]);
}
// The same in float: each vector holds 16 columns.
template <std::size_t MR, std::size_t NV>
__attribute__((target("avx512f"))) void kernel_avx512(std::size_t kc, const float* a, const float* b, float* c,
                                                     std::size_t ldc, bool first) {
  constexpr std::size_t NR = 16 * NV;
  __m512 acc[MR][NV];
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) acc[r][v] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + r * ldc + 16 * v);
  for (std::size_t k = 0; k < kc; ++k) {
    __m512 bk[NV];
    for (std::size_t v = 0; v < NV; ++v) bk[v] = _mm512_loadu_ps(b + 16 * v);
    for (std::size_t r = 0; r < MR; ++r) {
      __m512 ar = _mm512_set1_ps(a[r]);
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(ar, bk[v], acc[r][v]);
    }
    a += MR;
    b += NR;
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
}
#endif

#ifdef ATTNLAB_X86
template <class T>
constexpr Tiling<T> avx2_tiling() {
  // double: KC 768 and MC 192 (measured, bench/vs_numpy.sh (a) on a Zen 4 VM): 43 GFLOP/s against
  // 39-40 with 256 x 96, at 1024 x 768 x 768 and at 4096 x 4096 x 1024.
  if constexpr (std::is_same_v<T, double>)
    return {kernel_avx2, 6, 8, 768, 192, 2048, "avx2"};
  else
    return {kernel_avx2, 6, 16, 256, 96, 2048, "avx2"};
}
// double: 8 rows x 3 vectors (24 accumulators), 8 x 24 with KC 384, MC 192. float: 4 rows x 4
// vectors (16 accumulators), 4 x 64 with KC 512, MC 192. Measured on a 2-core Zen 5 VM
// (2026-12-05, three interleaved rounds, one thread): at 1024 x 768 x 768 double 90-94 GFLOP/s for
// 4 x 32 against 63-78 for the 6 x 8 one-vector tile it replaced, 8 x 24 and 8 x 48 the same
// within noise, and a training step of the text models' shape 13-25% faster in f64 and f32. On the
// 2-core Intel Xeon VM (2026-12-07, fused kernels, seven interleaved runs, bench/vs_numpy.sh with
// ATTNLAB_BASE_BENCH): double 8 x 24 79.2 GFLOP/s, 4 x 32 71.7, OpenBLAS 75.1 at one thread; the
// text models' training step the same with either (371-380 ms f64). Tiles with fewer
// accumulators (6 x 8) leave the pipes waiting on loads.
template <class T>
constexpr Tiling<T> avx512_tiling() {
  if constexpr (std::is_same_v<T, double>)
    return {kernel_avx512<8, 3>, 8, 24, 384, 192, 2048, "avx512"};
  else
    return {kernel_avx512<4, 4>, 4, 64, 512, 192, 2048, "avx512"};
}
#endif

// Tests: every path takes its portable code (std::fma in software where the CPU has no FMA), as on
// a CPU without AVX2 and FMA. See gemm_force_portable in matmul.h.
std::atomic<bool> g_force_portable{false};

bool fma_x86() {
#ifdef ATTNLAB_X86
  return !g_force_portable.load(std::memory_order_relaxed) && cpu_has_fma();
#else
  return false;
#endif
}

template <class T>
struct Dispatch {
  Tiling<T> tiling = portable_tiling<T>();
  Dispatch() {
#ifdef ATTNLAB_X86
    if (cpu_has_avx512f())
      tiling = avx512_tiling<T>();
    else if (cpu_has_avx2() && cpu_has_fma())
      tiling = avx2_tiling<T>();
#endif
  }
};

template <class T>
const Dispatch<T>& dispatch() {
  static const Dispatch<T> d;
  return d;
}

// A 64-byte aligned scratch array that only grows.
template <class T>
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { std::free(p_); }
  T* get(std::size_t n) {
    if (n > cap_) {
      std::free(p_);
      p_ = nullptr;
      cap_ = 0;
      std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
      p_ = static_cast<T*>(std::aligned_alloc(64, bytes));
      if (p_ == nullptr) throw std::bad_alloc();
      cap_ = n;
    }
    return p_;
  }

 private:
  T* p_ = nullptr;
  std::size_t cap_ = 0;
};

template <class T>
struct Workspace {
  Scratch<T> a, b;
};

// A[rows, kc] (row stride lda) -> MR-tall panels, a[panel][k][r], zero rows past `rows`.
template <class T>
void pack_a(const T* A, std::size_t lda, std::size_t rows, std::size_t kc, std::size_t MR, T* out) {
  for (std::size_t i0 = 0; i0 < rows; i0 += MR) {
    std::size_t mr = std::min(MR, rows - i0);
    for (std::size_t r = 0; r < MR; ++r) {
      if (r < mr) {
        const T* src = A + (i0 + r) * lda;
        for (std::size_t k = 0; k < kc; ++k) out[k * MR + r] = src[k];
      } else {
        for (std::size_t k = 0; k < kc; ++k) out[k * MR + r] = T(0);
      }
    }
    out += MR * kc;
  }
}

// B[kc, cols] (row stride ldb) -> NR-wide panels, b[panel][k][j], zero columns past `cols`.
template <class T>
void pack_b(const T* B, std::size_t ldb, std::size_t kc, std::size_t cols, std::size_t NR, T* out) {
  for (std::size_t j0 = 0; j0 < cols; j0 += NR) {
    std::size_t nr = std::min(NR, cols - j0);
    for (std::size_t k = 0; k < kc; ++k) {
      const T* src = B + k * ldb + j0;
      T* dst = out + k * NR;
      if (nr == NR) {
        std::memcpy(dst, src, NR * sizeof(T));
      } else {
        for (std::size_t j = 0; j < nr; ++j) dst[j] = src[j];
        for (std::size_t j = nr; j < NR; ++j) dst[j] = T(0);
      }
    }
    out += NR * kc;
  }
}

// C[m, n] (stride ldc) = A[m, K] (stride lda) @ B[K, n] (stride ldb), one thread.
template <class T>
void gemm_block(const Tiling<T>& t, Workspace<T>& ws, const T* A, std::size_t lda, const T* B, std::size_t ldb, T* C,
                std::size_t ldc, std::size_t m, std::size_t n, std::size_t K) {
  const std::size_t MR = t.MR, NR = t.NR, KC = t.KC, MC = t.MC, NC = t.NC;
  T* bp = ws.b.get(std::min(K, KC) * ((std::min(n, NC) + NR - 1) / NR * NR));
  T* ap = ws.a.get(std::min(K, KC) * ((std::min(m, MC) + MR - 1) / MR * MR));
  alignas(64) T edge[kMaxTile];
  for (std::size_t jc = 0; jc < n; jc += NC) {
    std::size_t nc = std::min(NC, n - jc);
    for (std::size_t pc = 0; pc < K; pc += KC) {
      std::size_t kc = std::min(KC, K - pc);
      bool first = pc == 0;
      pack_b(B + pc * ldb + jc, ldb, kc, nc, NR, bp);
      for (std::size_t ic = 0; ic < m; ic += MC) {
        std::size_t mc = std::min(MC, m - ic);
        pack_a(A + ic * lda + pc, lda, mc, kc, MR, ap);
        for (std::size_t jr = 0; jr < nc; jr += NR) {
          std::size_t nr = std::min(NR, nc - jr);
          const T* bpanel = bp + jr * kc;
          for (std::size_t ir = 0; ir < mc; ir += MR) {
            std::size_t mr = std::min(MR, mc - ir);
            const T* apanel = ap + ir * kc;
            T* c = C + (ic + ir) * ldc + jc + jr;
            if (mr == MR && nr == NR) {
              t.kernel(kc, apanel, bpanel, c, ldc, first);
            } else {  // an edge tile: through a full-size buffer, only the valid part copied
              if (!first)
                for (std::size_t r = 0; r < mr; ++r)
                  for (std::size_t j = 0; j < nr; ++j) edge[r * NR + j] = c[r * ldc + j];
              t.kernel(kc, apanel, bpanel, edge, NR, first);
              for (std::size_t r = 0; r < mr; ++r)
                for (std::size_t j = 0; j < nr; ++j) c[r * ldc + j] = edge[r * NR + j];
            }
          }
        }
      }
    }
  }
}

// The plain loop (small products): C[i][j] = fma(A[i][k], B[k][j], C[i][j]) for k in order, from 0.
template <class T>
[[gnu::always_inline]] inline void gemm_simple_body(const T* A, const T* B, T* C, std::size_t M, std::size_t N,
                                                    std::size_t K) {
  for (std::size_t i = 0; i < M; ++i) {
    T* o = C + i * N;
    std::fill(o, o + N, T(0));
    for (std::size_t k = 0; k < K; ++k) {
      T aik = A[i * K + k];
      const T* brow = B + k * N;
      for (std::size_t j = 0; j < N; ++j) o[j] = fused(aik, brow[j], o[j]);
    }
  }
}

// Few rows (a vector times a matrix, a handful of tokens): B is read once, so packing it would
// only double the memory traffic. Columns j0 … j1 in strips that keep the output rows in L1; the
// loop over j vectorizes, each lane still one output's own in-order sum of fused multiply-adds.
template <class T>
[[gnu::always_inline]] inline void gemm_few_rows_body(const T* A, const T* B, T* C, std::size_t M, std::size_t N,
                                                      std::size_t K, std::size_t j0, std::size_t j1) {
  constexpr std::size_t kStrip = 512;
  for (std::size_t jb = j0; jb < j1; jb += kStrip) {
    std::size_t je = std::min(j1, jb + kStrip);
    for (std::size_t i = 0; i < M; ++i) std::fill(C + i * N + jb, C + i * N + je, T(0));
    for (std::size_t k = 0; k < K; ++k) {
      const T* brow = B + k * N;
      for (std::size_t i = 0; i < M; ++i) {
        T aik = A[i * K + k];
        T* o = C + i * N;
        for (std::size_t j = jb; j < je; ++j) o[j] = fused(aik, brow[j], o[j]);
      }
    }
  }
}

// Both bodies compiled three times: AVX-512 (8 doubles a vector), AVX2+FMA (4) and the baseline,
// whose std::fma is the C library's (a CPU without FMA computes it in software, same bits).
template <class T>
void gemm_simple_portable(const T* A, const T* B, T* C, std::size_t M, std::size_t N, std::size_t K) {
  gemm_simple_body(A, B, C, M, N, K);
}
template <class T>
void gemm_few_rows_portable(const T* A, const T* B, T* C, std::size_t M, std::size_t N, std::size_t K,
                            std::size_t j0, std::size_t j1) {
  gemm_few_rows_body(A, B, C, M, N, K, j0, j1);
}
#ifdef ATTNLAB_X86
template <class T>
__attribute__((target("avx2,fma"))) void gemm_simple_avx2(const T* A, const T* B, T* C, std::size_t M, std::size_t N,
                                                           std::size_t K) {
  gemm_simple_body(A, B, C, M, N, K);
}
template <class T>
__attribute__((target("avx512f,fma"))) void gemm_simple_avx512(const T* A, const T* B, T* C, std::size_t M,
                                                               std::size_t N, std::size_t K) {
  gemm_simple_body(A, B, C, M, N, K);
}
template <class T>
__attribute__((target("avx2,fma"))) void gemm_few_rows_avx2(const T* A, const T* B, T* C, std::size_t M,
                                                            std::size_t N, std::size_t K, std::size_t j0,
                                                            std::size_t j1) {
  gemm_few_rows_body(A, B, C, M, N, K, j0, j1);
}
template <class T>
__attribute__((target("avx512f,fma"))) void gemm_few_rows_avx512(const T* A, const T* B, T* C, std::size_t M,
                                                                 std::size_t N, std::size_t K, std::size_t j0,
                                                                 std::size_t j1) {
  gemm_few_rows_body(A, B, C, M, N, K, j0, j1);
}
#endif

template <class T>
void gemm_simple(const T* A, const T* B, T* C, std::size_t M, std::size_t N, std::size_t K) {
#ifdef ATTNLAB_X86
  if (fma_x86() && cpu_has_avx512f()) return gemm_simple_avx512(A, B, C, M, N, K);
  if (fma_x86() && cpu_has_avx2()) return gemm_simple_avx2(A, B, C, M, N, K);
#endif
  gemm_simple_portable(A, B, C, M, N, K);
}

template <class T>
void gemm_few_rows(const T* A, const T* B, T* C, std::size_t M, std::size_t N, std::size_t K, std::size_t j0,
                   std::size_t j1) {
#ifdef ATTNLAB_X86
  if (fma_x86() && cpu_has_avx512f()) return gemm_few_rows_avx512(A, B, C, M, N, K, j0, j1);
  if (fma_x86() && cpu_has_avx2()) return gemm_few_rows_avx2(A, B, C, M, N, K, j0, j1);
#endif
  gemm_few_rows_portable(A, B, C, M, N, K, j0, j1);
}

template <class T>
void gemm_any(const T* A, const T* B, T* C, std::size_t M, std::size_t N, std::size_t K, GemmPath path) {
  if (M == 0 || N == 0) return;
  std::size_t work = M * N * K;  // sizes are capped far below overflow (kMaxTensorElements)
  if (path == GemmPath::Simple || (path == GemmPath::Auto && work < kSmallWork)) {
    gemm_simple(A, B, C, M, N, K);
    return;
  }
  if (path == GemmPath::FewRows || (path == GemmPath::Auto && M < kFewRows)) {  // columns split across threads, in whole strips of 8
    std::size_t threads = std::min(thread_count(), std::max<std::size_t>(1, work / kWorkPerThread));
    if (path != GemmPath::Auto) threads = thread_count();  // tests: thread even tiny products
    std::size_t units = (N + 7) / 8, chunks = std::min(threads, units);
    parallel_for(chunks, 1, [&](std::size_t cb, std::size_t ce) {
      for (std::size_t c = cb; c < ce; ++c)
        gemm_few_rows(A, B, C, M, N, K, units * c / chunks * 8, std::min(N, units * (c + 1) / chunks * 8));
    });
    return;
  }
  bool portable = path == GemmPath::BlockedPortable || g_force_portable.load(std::memory_order_relaxed);
  Tiling<T> tiling = portable ? portable_tiling<T>() : dispatch<T>().tiling;
#ifdef ATTNLAB_X86
  if (path == GemmPath::BlockedAvx2 && !portable)
    tiling = cpu_has_avx2() && cpu_has_fma() ? avx2_tiling<T>() : portable_tiling<T>();
#endif
  const std::size_t MR = tiling.MR, NR = tiling.NR;
  std::size_t threads = std::min(thread_count(), std::max<std::size_t>(1, work / kWorkPerThread));
  if (path != GemmPath::Auto) threads = thread_count();  // tests: thread even tiny products
  // Workspaces live with the calling thread and are reused by the next call.
  thread_local std::vector<std::unique_ptr<Workspace<T>>> caller_spaces;
  auto& spaces = caller_spaces;  // a plain reference: inside the workers the name would be theirs
  while (spaces.size() < threads) spaces.push_back(std::make_unique<Workspace<T>>());
  if (threads <= 1) {
    gemm_block(tiling, *spaces[0], A, K, B, N, C, N, M, N, K);
    return;
  }
  // Split the rows when there are at least as many as columns (each thread then packs all of B,
  // the smaller operand to repeat), else the columns, in whole micro-tiles. Chunk c has its own
  // workspace spaces[c].
  bool by_rows = M >= N;
  std::size_t unit = by_rows ? MR : NR;
  std::size_t units = ((by_rows ? M : N) + unit - 1) / unit;
  std::size_t chunks = std::min(threads, units);
  parallel_for(chunks, 1, [&](std::size_t cb, std::size_t ce) {
    for (std::size_t c = cb; c < ce; ++c) {
      std::size_t u0 = units * c / chunks, u1 = units * (c + 1) / chunks;
      Workspace<T>& ws = *spaces[c];
      if (by_rows) {
        std::size_t r0 = u0 * MR, r1 = std::min(M, u1 * MR);
        gemm_block(tiling, ws, A + r0 * K, K, B, N, C + r0 * N, N, r1 - r0, N, K);
      } else {
        std::size_t c0 = u0 * NR, c1 = std::min(N, u1 * NR);
        gemm_block(tiling, ws, A, K, B + c0, N, C + c0, N, M, c1 - c0, K);
      }
    }
  });
}

}  // namespace

const char* gemm_kernel_name() { return dispatch<double>().tiling.name; }

void gemm_force_portable(bool on) { g_force_portable.store(on, std::memory_order_relaxed); }

void gemm(const double* A, const double* B, double* C, std::size_t M, std::size_t N, std::size_t K, GemmPath path) {
  gemm_any(A, B, C, M, N, K, path);
}

void gemm(const float* A, const float* B, float* C, std::size_t M, std::size_t N, std::size_t K, GemmPath path) {
  gemm_any(A, B, C, M, N, K, path);
}

}  // namespace attn
