#pragma once
// Singular value decomposition in plain double arithmetic, two ways, both deterministic (a fixed
// order of operations, no library; the same bits at every thread count):
//   A (M, N) = U diag(S) Vᵀ,  K = min(M, N),  U (M, K), S (K) descending, V (N, K).
// Both work on W = A (A transposed when M < N, so W is tall, (M', K)).
// - svd_jacobi: one-sided Jacobi rotations (Hestenes 1958). Rotate pairs of columns of W until every
//   pair is orthogonal; W then equals U diag(S), S holds the column norms and V the product of the
//   rotations. Accurate to a few units of rounding, even for tiny singular values, but each sweep
//   costs about 3·M'·K² multiply-adds and it takes about ten: 1e12 at 4096 × 2048.
// - svd_gram: the eigen-decomposition of the Gram matrix Wᵀ W = V diag(S²) Vᵀ (symmetric_eigen.h:
//   Householder tridiagonalization, implicit QR with the Wilkinson shift), then S_k = ‖W v_k‖ and
//   U = W V / S. About 1.5·M'·K² + 4·K³ multiply-adds, much of it in matmul: 4096 × 2048 in about
//   6 s of one core. Forming Wᵀ W squares the condition number, so a vector v_k is accurate to
//   about ε·S_1²/gap (gap: to the nearest S_j², j ≠ k); S_k = ‖W v_k‖ rather than √λ_k keeps the
//   values to about ε·S_1 all the same, and U's columns for S_k ≤ 1e-3·S_1 (their W v_k / S_k are
//   orthogonal only to about ε·S_1²/(S_j·S_k)) are made orthogonal to the ones before by
//   Gram–Schmidt, twice.
// - svd: the one choice between them, by size (kJacobiMaxRank below).
// Signs: each column of V has its entry of largest magnitude positive (the first such entry on a
// tie), U's column flipped with it, so the factors are unique for distinct S.
#include <cstddef>

#include "tensor.h"

namespace attn {

enum class SvdMethod { Jacobi, Gram };

struct Svd {
  Tensor U;   // (M, K), orthonormal columns (Jacobi leaves a column for S_k = 0 as zeros)
  Tensor S;   // (K), descending, ≥ 0
  Tensor V;   // (N, K), orthonormal columns
  SvdMethod method = SvdMethod::Jacobi;
  int sweeps = 0;              // Jacobi: sweeps until no pair needed a rotation
  std::size_t qr_steps = 0;    // Gram: implicit QR steps on the tridiagonal form
};
Svd svd_jacobi(const Tensor& A);
Svd svd_gram(const Tensor& A);

// Jacobi while K = min(M, N) is at most this, the Gram method above it: the one place the method
// is chosen. Jacobi is the more accurate (tiny singular values to ε·S_1, U orthogonal to ε) and,
// up to here, fast enough (4096 × 64: 0.4 s; the Gram method 0.01 s); every lesson's default size
// is far below it, so the numbers the lessons print at their defaults are Jacobi's. Past it
// Jacobi's cost grows as M'·K² times its sweeps (1024 × 256: 3 s against 0.03 s; 4096 × 2048:
// minutes). Measured on the 2-core machine (docs/ARCHITECTURE.md, "The SVD").
constexpr std::size_t kJacobiMaxRank = 64;
Svd svd(const Tensor& A);

// The best rank-r approximation's factors (Eckart–Young): A ≈ (U_r diag(S_r)) V_rᵀ.
//   left  = U_r diag(S_r)   (M, r)
//   right = V_rᵀ            (r, N)
// Requires 1 ≤ r ≤ K.
struct LowRank {
  Tensor left;   // (M, r)
  Tensor right;  // (r, N)
};
LowRank truncate_svd(const Svd& s, std::size_t r);

// The share of the squared singular values (of ‖A‖_F²) the first r carry: Σ_{k<r} S_k² / Σ_k S_k²
// (0 for a zero matrix). The best rank-r approximation misses exactly the rest.
double singular_value_energy(const Tensor& S, std::size_t r);

}  // namespace attn
