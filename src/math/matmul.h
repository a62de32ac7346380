#pragma once
// The matmul kernel behind attn::matmul: C (M, N) = A (M, K) @ B (K, N), all row-major and dense.
// Every C[i][j] is computed as  s = 0.0; for k = 0 … K-1: s = fma(A[i][k], B[k][j], s)  — one
// fused multiply-add (a single rounding), k in order — so the result is bit-for-bit that of the
// plain triple loop, whatever the blocking, the instruction set or the thread count. The CPU's FMA
// instruction where it has one (AVX2+FMA, AVX-512), the C library's fma on a CPU without FMA, and
// in the book's WebAssembly fused_soft (src/base/fused.h): all correctly rounded, so all give the
// same bits. Speed comes from packing B into
// panels, a register-blocked micro-kernel vectorized across output columns (each SIMD lane is
// one output element with its own in-order sum), an AVX2 path chosen at run time, and rows (or,
// for few rows, columns) split across thread_count() threads.
#include <cstddef>

namespace attn {

enum class GemmPath {
  Auto,      // small products: the plain loop; 1-3 rows: the plain loop over column strips,
             // threaded; else the blocked kernel, threaded
  Simple,    // the plain loop (the reference the kernel must match)
  Blocked,   // the packed, register-blocked kernel, threaded as thread_count() allows
  BlockedPortable,  // the same with the portable micro-kernel even where AVX2 is available (tests)
  BlockedAvx2,      // the same with the AVX2 micro-kernel where the CPU has AVX2+FMA, even with AVX-512 (tests)
  FewRows,          // the few-rows loop (no packing, columns split across threads) at any M (tests)
};

// C must hold M*N numbers; it is overwritten (never read). M, N, K must be at least 1.
void gemm(const double* A, const double* B, double* C, std::size_t M, std::size_t N, std::size_t K,
          GemmPath path = GemmPath::Auto);
// The same kernel in float32 (`train --dtype f32`): the same loops and the same promise (each
// output a float sum over k in order, from 0, one fused multiply-add per k), so float's bits too are
// those of the plain loop for every path and thread count. The micro-tiles: 4 x 32 doubles and
// 4 x 64 floats with AVX-512, 6 x 8 doubles and 6 x 16 floats with AVX2 (and the portable kernel).
void gemm(const float* A, const float* B, float* C, std::size_t M, std::size_t N, std::size_t K,
          GemmPath path = GemmPath::Auto);

// Which micro-kernel the blocked path uses on this machine: "avx512", "avx2" or "portable".
const char* gemm_kernel_name();

// Tests: every path uses its portable code (std::fma, as on a CPU without AVX2 and FMA) while on.
void gemm_force_portable(bool on);

}  // namespace attn
