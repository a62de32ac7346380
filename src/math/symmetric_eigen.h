#pragma once
// The eigen-decomposition of a symmetric matrix, the core of the fast SVD (svd.h, svd_gram):
//   G (N, N) symmetric = Z diag(λ) Zᵀ,  Z (N, N) orthogonal.
// Three operations, each one plain function below:
//   1. Householder reduction to tridiagonal form: T = Qᵀ G Q, Q = H_0 H_1 … H_{N-3},
//      H_k = I − τ_k v_k v_kᵀ with v_k zero in entries 0 … k (Golub & Van Loan, §8.3.1).
//   2. Implicit symmetric QR steps with the Wilkinson shift on T (Golub & Van Loan, Algorithm 8.3.2):
//      T = S diag(λ) Sᵀ, S the product of the steps' Givens rotations.
//   3. Z = Q S, the reflectors applied in blocks of the compact WY form (Schreiber & Van Loan).
// Plain double arithmetic (+, −, ×, ÷, √) in a fixed order, through matmul's in-order sums: the
// same bits at every thread count and on every compiler (no FMA: -ffp-contract=off).
#include <cstddef>

#include "tensor.h"

namespace attn {

// G (N, N) = Wᵀ W for W (M, N): each entry an in-order sum over the M rows (matmul's), only the
// blocks on and above the diagonal computed and mirrored, so G is exactly symmetric.
Tensor gram(const Tensor& W);

struct Tridiagonal {
  Tensor d;           // (N) the diagonal of T
  Tensor e;           // (N) e_i = T(i, i+1) = T(i+1, i) for i < N-1; e_{N-1} = 0
  Tensor reflectors;  // (N, N) row k holds v_k in columns k+1 … N-1 for k ≤ N-3 (the rest is scratch)
  Tensor tau;         // (N) τ_k (0 where no reflection was needed)
};
// G (N, N) symmetric -> T = Qᵀ G Q. Reads G's upper triangle only (j ≥ i); consumes its argument.
// One pass over the trailing block a step, its rows split in fixed chunks across threads.
Tridiagonal tridiagonalize(Tensor G);

// The eigenvalues and eigenvectors of the tridiagonal T given by d and e (as in Tridiagonal).
struct TridiagonalEigen {
  Tensor values;           // (N) in the order the steps left them (not sorted)
  Tensor vectors;          // (N, N) column j: the unit eigenvector for values_j (the matrix S)
  std::size_t qr_steps = 0;  // implicit QR steps taken
};
TridiagonalEigen tridiagonal_eigen(const Tensor& d, const Tensor& e);

// Q Z for Q = H_0 H_1 … H_{N-3} of `t`: Z (N, P) -> (N, P).
Tensor apply_reflectors(const Tridiagonal& t, Tensor Z);

struct SymmetricEigen {
  Tensor values;           // (N) descending (ties: in the order the steps left them)
  Tensor vectors;          // (N, N) column j: the unit eigenvector for values_j
  std::size_t qr_steps = 0;
};
// G (N, N) symmetric -> its eigenvalues and eigenvectors (steps 1-3 above).
SymmetricEigen symmetric_eigen(const Tensor& G);

}  // namespace attn
