#pragma once
// Singular value decomposition by one-sided Jacobi rotations (Hestenes 1958), in plain double
// arithmetic: deterministic (a fixed sweep order, no library, no threads) and accurate to a few
// units of rounding for the small matrices the lessons factor.
//   A (M, N) = U diag(S) Vᵀ,  K = min(M, N),  U (M, K), S (K) descending, V (N, K).
// Method: rotate pairs of columns of a working copy W = A (A transposed when M < N) until every
// pair is orthogonal; W then equals U diag(S), S holds the column norms and V the product of the
// rotations. Signs: each column of V has its entry of largest magnitude positive (the first such
// entry on a tie), U's column flipped with it, so the factors are unique for distinct S.
#include "tensor.h"

namespace attn {

struct Svd {
  Tensor U;   // (M, K), orthonormal columns (a column for S_k = 0 is left as zeros)
  Tensor S;   // (K), descending, ≥ 0
  Tensor V;   // (N, K), orthonormal columns
  int sweeps = 0;  // Jacobi sweeps until no pair needed a rotation
};
Svd svd_jacobi(const Tensor& A);

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
