#include "svd.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "symmetric_eigen.h"

namespace attn {

namespace {

constexpr int kMaxSweeps = 100;
constexpr double kTolerance = 1e-15;  // a pair counts as orthogonal at |γ| ≤ tol·√(αβ)
constexpr double kGramTinyShare = 1e-3;  // svd_gram: U's columns for S_k ≤ this · S_1 are orthogonalized

// One-sided Jacobi on W (M, N) with M ≥ N; V (N, N) starts as the identity.
int orthogonalize_columns(Tensor& W, Tensor& V) {
  const std::size_t M = W.dim(0), N = W.dim(1);
  for (int sweep = 1; sweep <= kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < N; ++p) {
      for (std::size_t q = p + 1; q < N; ++q) {
        double alpha = 0, beta = 0, gamma = 0;  // ‖w_p‖², ‖w_q‖², w_p·w_q
        for (std::size_t i = 0; i < M; ++i) {
          alpha += W(i, p) * W(i, p);
          beta += W(i, q) * W(i, q);
          gamma += W(i, p) * W(i, q);
        }
        if (gamma == 0.0 || std::fabs(gamma) <= kTolerance * std::sqrt(alpha * beta)) continue;
        rotated = true;
        // The rotation that zeroes w_p·w_q (Golub & Van Loan, Algorithm 8.4.1, the smaller angle).
        double zeta = (beta - alpha) / (2.0 * gamma);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1.0 + zeta * zeta));
        double c = 1.0 / std::sqrt(1.0 + t * t), s = c * t;
        for (std::size_t i = 0; i < M; ++i) {
          double wp = W(i, p), wq = W(i, q);
          W(i, p) = c * wp - s * wq;
          W(i, q) = s * wp + c * wq;
        }
        for (std::size_t i = 0; i < N; ++i) {
          double vp = V(i, p), vq = V(i, q);
          V(i, p) = c * vp - s * vq;
          V(i, q) = s * vp + c * vq;
        }
      }
    }
    if (!rotated) return sweep;
  }
  throw std::runtime_error("svd_jacobi: no convergence in 100 sweeps");
}

// Signs: the largest |V(i, k)| of each column positive (the first on a tie), U's column with it.
void fix_signs(Svd& out) {
  for (std::size_t k = 0; k < out.S.numel(); ++k) {
    std::size_t at = 0;
    for (std::size_t i = 1; i < out.V.dim(0); ++i)
      if (std::fabs(out.V(i, k)) > std::fabs(out.V(at, k))) at = i;
    if (out.V(at, k) < 0) {
      for (std::size_t i = 0; i < out.V.dim(0); ++i) out.V(i, k) = -out.V(i, k);
      for (std::size_t i = 0; i < out.U.dim(0); ++i) out.U(i, k) = -out.U(i, k);
    }
  }
}

}  // namespace

Svd svd_jacobi(const Tensor& A) {
  if (A.rank() != 2 || A.numel() == 0) throw std::invalid_argument("svd_jacobi: A must be a non-empty matrix, got " + shape_str(A.shape));
  const bool tall = A.dim(0) >= A.dim(1);
  Tensor W = tall ? A : transpose(A);          // (M', N'), M' ≥ N'
  const std::size_t M = W.dim(0), K = W.dim(1);
  Tensor R({K, K});                            // (N', N') the rotations
  for (std::size_t i = 0; i < K; ++i) R(i, i) = 1.0;
  Svd out;
  out.sweeps = orthogonalize_columns(W, R);

  std::vector<double> norm(K);
  for (std::size_t j = 0; j < K; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < M; ++i) s += W(i, j) * W(i, j);
    norm[j] = std::sqrt(s);
  }
  std::vector<std::size_t> order(K);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return norm[a] > norm[b]; });

  // W's column j = norm_j · (left vector), R's column j = right vector; for a wide A the roles swap.
  Tensor left({M, K}), right({K, K}), S({K});
  for (std::size_t k = 0; k < K; ++k) {
    std::size_t j = order[k];
    S.data[k] = norm[j];
    for (std::size_t i = 0; i < M; ++i) left(i, k) = norm[j] > 0 ? W(i, j) / norm[j] : 0.0;
    for (std::size_t i = 0; i < K; ++i) right(i, k) = R(i, j);
  }
  out.S = S;
  out.U = tall ? left : right;   // (M, K)
  out.V = tall ? right : left;   // (N, K)
  fix_signs(out);
  return out;
}

Svd svd_gram(const Tensor& A) {
  if (A.rank() != 2 || A.numel() == 0) throw std::invalid_argument("svd_gram: A must be a non-empty matrix, got " + shape_str(A.shape));
  const bool tall = A.dim(0) >= A.dim(1);
  const Tensor W = tall ? A : transpose(A);    // (M', K), M' ≥ K
  const std::size_t M = W.dim(0), K = W.dim(1);
  SymmetricEigen eig = symmetric_eigen(gram(W));  // Wᵀ W = Z diag(λ) Zᵀ, Z (K, K)
  Tensor WZ = matmul(W, eig.vectors);             // (M', K): column k = W z_k, of norm S_k
  // S_k = ‖W z_k‖ rather than √λ_k: an error δ in z_k moves it by δ² only.
  std::vector<double> norm(K, 0.0);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t k = 0; k < K; ++k) norm[k] += WZ(i, k) * WZ(i, k);
  for (double& n : norm) n = std::sqrt(n);
  std::vector<std::size_t> order(K);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return norm[a] > norm[b]; });

  Tensor left({M, K}), right({K, K}), S({K});
  const double tiny = kGramTinyShare * norm[order[0]];
  std::vector<double> u(M);
  for (std::size_t k = 0; k < K; ++k) {
    const std::size_t j = order[k];
    S.data[k] = norm[j];
    for (std::size_t i = 0; i < K; ++i) right(i, k) = eig.vectors(i, j);
    if (norm[j] > tiny) {
      for (std::size_t i = 0; i < M; ++i) left(i, k) = WZ(i, j) / norm[j];
      continue;
    }
    // S_k is too small for W z_k / S_k to be orthogonal to the columns before: orthogonalize it (or,
    // when nothing of it is left, the first unit vector e_i with at least half the average of what
    // is left of them, which exists as the columns before span k of the M' dimensions).
    auto residual = [&](std::vector<double>& x) {  // x minus its part in columns 0 … k-1, twice
      for (int pass = 0; pass < 2; ++pass)
        for (std::size_t c = 0; c < k; ++c) {
          double dot = 0;
          for (std::size_t i = 0; i < M; ++i) dot += left(i, c) * x[i];
          for (std::size_t i = 0; i < M; ++i) x[i] = x[i] - dot * left(i, c);
        }
      double n = 0;
      for (double xi : x) n += xi * xi;
      return std::sqrt(n);
    };
    double n = 0;
    if (norm[j] > 0) {
      for (std::size_t i = 0; i < M; ++i) u[i] = WZ(i, j) / norm[j];
      n = residual(u);
    }
    const double want = std::sqrt(0.5 * static_cast<double>(M - k) / static_cast<double>(M));
    for (std::size_t e = 0; n < want && e < M; ++e) {
      std::fill(u.begin(), u.end(), 0.0);
      u[e] = 1.0;
      n = residual(u);
    }
    for (std::size_t i = 0; i < M; ++i) left(i, k) = u[i] / n;
  }
  Svd out;
  out.method = SvdMethod::Gram;
  out.qr_steps = eig.qr_steps;
  out.S = std::move(S);
  out.U = std::move(tall ? left : right);   // (M, K)
  out.V = std::move(tall ? right : left);   // (N, K)
  fix_signs(out);
  return out;
}

Svd svd(const Tensor& A) {
  if (A.rank() == 2 && std::min(A.dim(0), A.dim(1)) > kJacobiMaxRank) return svd_gram(A);
  return svd_jacobi(A);
}

LowRank truncate_svd(const Svd& s, std::size_t r) {
  const std::size_t K = s.S.numel(), M = s.U.dim(0), N = s.V.dim(0);
  if (r < 1 || r > K) throw std::invalid_argument("truncate_svd: rank out of range");
  LowRank lr{Tensor({M, r}), Tensor()};
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t k = 0; k < r; ++k) lr.left(i, k) = s.U(i, k) * s.S.data[k];
  // V_rᵀ: the first r columns of V, transposed by the tiled transpose (a column at a time would
  // miss the cache on every number once V is large).
  Tensor Vr({N, r});
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t k = 0; k < r; ++k) Vr(j, k) = s.V(j, k);
  lr.right = transpose(Vr);
  return lr;
}

double singular_value_energy(const Tensor& S, std::size_t r) {
  double kept = 0, total = 0;
  for (std::size_t k = 0; k < S.numel(); ++k) {
    total += S.data[k] * S.data[k];
    if (k < r) kept += S.data[k] * S.data[k];
  }
  return total > 0 ? kept / total : 0.0;
}

}  // namespace attn
