// The fast SVD (svd_gram: the Gram matrix's eigen-decomposition, symmetric_eigen.h) against
// numpy's LAPACK SVD and against Jacobi on moderate sizes; its pieces (tridiagonal form, QR steps,
// reflectors) by their defining identities; svd()'s one choice between the two methods; the
// gathered up-projections of transmla bit for bit against the matmul they replace.
#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>
#include <vector>

#include "golden.h"
#include "parallel.h"
#include "random.h"
#include "svd.h"
#include "symmetric_eigen.h"
#include "transmla.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_svd_gram {

using namespace attn;

namespace {

Tensor from_json(const nlohmann::json& j) { return Tensor(j["shape"].get<Shape>(), j["data"].get<std::vector<double>>()); }

// max |XᵀX − I| for X (n, k).
double orthogonality_error(const Tensor& X) {
  const Tensor g = matmul(transpose(X), X);
  double worst = 0;
  for (std::size_t i = 0; i < g.dim(0); ++i)
    for (std::size_t j = 0; j < g.dim(1); ++j) worst = std::max(worst, std::fabs(g(i, j) - (i == j ? 1.0 : 0.0)));
  return worst;
}

// max |U diag(S) Vᵀ − A|
double reconstruction_error(const Svd& s, const Tensor& A) {
  const LowRank lr = truncate_svd(s, s.S.numel());
  return max_abs_diff(matmul(lr.left, lr.right), A);
}

// A (M, N) with singular values running from 1 down to `smallest` geometrically: Q1 diag(σ) Q2ᵀ,
// the Q's from Jacobi's U and V of random matrices.
Tensor graded(std::size_t M, std::size_t N, double smallest, std::uint64_t seed) {
  Rng rng(seed);
  const std::size_t K = std::min(M, N);
  const Svd a = svd_jacobi(randn(rng, {M, K})), b = svd_jacobi(randn(rng, {N, K}));
  Tensor left = a.U;  // (M, K)
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t k = 0; k < K; ++k) left(i, k) *= std::pow(smallest, static_cast<double>(k) / static_cast<double>(K - 1));
  return matmul(left, transpose(b.U));
}

struct ThreadsGuard {
  ~ThreadsGuard() { set_threads(0); }
};

}  // namespace

TEST_CASE("svd_gram: singular values and right vectors equal numpy's on a 150 by 80 matrix", "[svd][golden]") {
  const nlohmann::json g = load_golden("svd_gram");
  const auto& cfg = g["config"];
  Rng rng(cfg["seed"].get<std::uint64_t>());
  const Tensor A = randn(rng, {cfg["rows"].get<std::size_t>(), cfg["cols"].get<std::size_t>()});
  const Tensor S = from_json(g["tensors"]["S"]), V = from_json(g["tensors"]["V"]);
  const Svd s = svd_gram(A);
  REQUIRE(s.method == SvdMethod::Gram);
  REQUIRE(s.S.shape == S.shape);
  REQUIRE(s.V.shape == V.shape);
  INFO("max |S - numpy| = " << max_abs_diff(s.S, S) << ", max |V - numpy| = " << max_abs_diff(s.V, V));
  CHECK(max_abs_diff(s.S, S) <= 1e-12 * S.data[0]);
  CHECK(max_abs_diff(s.V, V) <= 1e-10);
  CHECK(reconstruction_error(s, A) <= 1e-12 * S.data[0]);
  CHECK(orthogonality_error(s.U) <= 1e-12);
  CHECK(orthogonality_error(s.V) <= 1e-12);
  CHECK(s.qr_steps >= 80);  // at least one step an eigenvalue, but for the last
}

TEST_CASE("svd_gram agrees with Jacobi on tall, wide, square and graded matrices", "[svd]") {
  // (rows, cols, smallest singular value / largest; 0: standard normals)
  for (auto [M, N, smallest] : {std::tuple{120, 70, 0.0}, std::tuple{70, 120, 0.0}, std::tuple{90, 90, 0.0},
                                std::tuple{100, 72, 1e-3}, std::tuple{66, 130, 1e-4}}) {
    INFO(M << " x " << N << ", smallest " << smallest);
    Rng rng(static_cast<std::uint64_t>(M * 1000 + N));
    const Tensor A = smallest > 0 ? graded(M, N, smallest, static_cast<std::uint64_t>(M + N)) : randn(rng, {std::size_t(M), std::size_t(N)});
    const Svd g = svd_gram(A), j = svd_jacobi(A);
    REQUIRE(g.S.shape == j.S.shape);
    REQUIRE(g.U.shape == j.U.shape);
    REQUIRE(g.V.shape == j.V.shape);
    const double s1 = j.S.data[0];
    INFO("max |S_gram - S_jacobi| / S_1 = " << max_abs_diff(g.S, j.S) / s1);
    CHECK(max_abs_diff(g.S, j.S) <= 1e-10 * s1);
    CHECK(reconstruction_error(g, A) <= 1e-10 * s1);
    CHECK(orthogonality_error(g.U) <= 1e-10);
    CHECK(orthogonality_error(g.V) <= 1e-10);
    // The vectors themselves, where the singular value is well apart from its neighbours (the
    // sign rule makes them unique): the error of a Gram vector is about ε·S_1²/gap.
    for (std::size_t k = 0; k < j.S.numel(); ++k) {
      double gap = INFINITY;
      if (k > 0) gap = std::min(gap, j.S.data[k - 1] * j.S.data[k - 1] - j.S.data[k] * j.S.data[k]);
      if (k + 1 < j.S.numel()) gap = std::min(gap, j.S.data[k] * j.S.data[k] - j.S.data[k + 1] * j.S.data[k + 1]);
      if (gap < 1e-3 * s1 * s1) continue;
      for (std::size_t i = 0; i < j.V.dim(0); ++i) CHECK(std::fabs(g.V(i, k) - j.V(i, k)) <= 1e-9);
    }
  }
}

TEST_CASE("svd_gram keeps U orthonormal for a rank-deficient and a zero matrix", "[svd]") {
  Rng rng(11);
  const Tensor half = randn(rng, {100, 40});
  const Tensor A = concat_cols({half, half});  // (100, 80) of rank 40: 40 singular values are rounding noise
  const Svd s = svd_gram(A);
  CHECK(s.S.data[39] > 1.0);
  CHECK(s.S.data[40] <= 1e-12 * s.S.data[0]);  // ‖W v_k‖, not √λ_k: rounding noise of order ε·S_1
  CHECK(reconstruction_error(s, A) <= 1e-10 * s.S.data[0]);
  CHECK(orthogonality_error(s.U) <= 1e-12);
  CHECK(orthogonality_error(s.V) <= 1e-10);
  const Svd z = svd_gram(Tensor({70, 66}));
  CHECK(max_abs(z.S) == 0.0);
  CHECK(orthogonality_error(z.U) == 0.0);  // unit vectors, each orthogonal to the ones before
  CHECK(orthogonality_error(z.V) == 0.0);
}

TEST_CASE("svd_gram gives the same bits at 1 and 2 threads and on every run", "[svd][threads]") {
  ThreadsGuard guard;
  Rng rng(3);
  const Tensor A = randn(rng, {300, 260});  // the Gram block, the WY blocks and the QR panels all split
  set_threads(1);
  const Svd a = svd_gram(A);
  set_threads(2);
  const Svd b = svd_gram(A), c = svd_gram(A);
  CHECK(a.S.data == b.S.data);
  CHECK(a.U.data == b.U.data);
  CHECK(a.V.data == b.V.data);
  CHECK(b.V.data == c.V.data);
  CHECK(a.qr_steps == b.qr_steps);
}

TEST_CASE("svd chooses Jacobi up to K = 64 and the Gram method above", "[svd]") {
  Rng rng(8);
  CHECK(svd(randn(rng, {200, 64})).method == SvdMethod::Jacobi);
  CHECK(svd(randn(rng, {64, 200})).method == SvdMethod::Jacobi);
  CHECK(svd(randn(rng, {65, 65})).method == SvdMethod::Gram);
  CHECK(svd(randn(rng, {300, 65})).method == SvdMethod::Gram);
  const Tensor A = randn(rng, {10, 6});
  CHECK(svd(A).U.data == svd_jacobi(A).U.data);  // the small case is Jacobi's, bit for bit
  CHECK_THROWS(svd_gram(Tensor({3})));
}

TEST_CASE("symmetric_eigen: the tridiagonal form, the QR steps and the reflectors by their identities", "[svd]") {
  Rng rng(21);
  const std::size_t N = 67;  // more than one block of reflectors (64)
  const Tensor G = gram(randn(rng, {90, N}));
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) REQUIRE(G(i, j) == G(j, i));  // exactly symmetric
  // T = Qᵀ G Q with Q orthogonal: Q from the reflectors applied to I.
  const Tridiagonal t = tridiagonalize(G);
  Tensor I({N, N});
  for (std::size_t i = 0; i < N; ++i) I(i, i) = 1.0;
  const Tensor Q = apply_reflectors(t, I);
  Tensor T({N, N});
  for (std::size_t i = 0; i < N; ++i) {
    T(i, i) = t.d.data[i];
    if (i + 1 < N) T(i, i + 1) = T(i + 1, i) = t.e.data[i];
  }
  CHECK(orthogonality_error(Q) <= 1e-13);
  const double norm = max_abs(G);
  CHECK(max_abs_diff(matmul(matmul(transpose(Q), G), Q), T) <= 1e-12 * norm);
  // T S = S diag(λ) with S orthogonal.
  const TridiagonalEigen te = tridiagonal_eigen(t.d, t.e);
  Tensor SL = te.vectors;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t k = 0; k < N; ++k) SL(i, k) *= te.values.data[k];
  CHECK(orthogonality_error(te.vectors) <= 1e-13);
  CHECK(max_abs_diff(matmul(T, te.vectors), SL) <= 1e-12 * norm);
  // G Z = Z diag(λ), λ descending, and the sum of λ is the trace of G.
  const SymmetricEigen e = symmetric_eigen(G);
  double trace = 0, sum = 0;
  for (std::size_t i = 0; i < N; ++i) {
    trace += G(i, i);
    sum += e.values.data[i];
    if (i > 0) CHECK(e.values.data[i] <= e.values.data[i - 1]);
  }
  CHECK(std::fabs(trace - sum) <= 1e-12 * trace);
  Tensor ZL = e.vectors;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t k = 0; k < N; ++k) ZL(i, k) *= e.values.data[k];
  CHECK(max_abs_diff(matmul(G, e.vectors), ZL) <= 1e-12 * norm);
  // A 2 by 2 worked by hand: [[2, 1], [1, 2]] has eigenvalues 3 and 1.
  const SymmetricEigen two = symmetric_eigen(Tensor({2, 2}, {2, 1, 1, 2}));
  CHECK(two.values.data[0] == Approx(3.0).epsilon(1e-15));
  CHECK(two.values.data[1] == Approx(1.0).epsilon(1e-15));
  CHECK(std::fabs(two.vectors(0, 0)) == Approx(std::sqrt(0.5)).epsilon(1e-15));
}

TEST_CASE("transmla: the gathered up-projections are the copy matmul, bit for bit", "[transmla][svd]") {
  for (auto [H, G, Dh, r] : {std::tuple{8, 2, 2, 4}, std::tuple{6, 3, 5, 7}, std::tuple{4, 4, 3, 9}, std::tuple{5, 1, 4, 2}}) {
    INFO(H << " heads, " << G << " KV heads, d_h " << Dh << ", r " << r);
    Rng rng(static_cast<std::uint64_t>(H * 100 + G * 10 + Dh));
    Tensor right = randn(rng, {std::size_t(r), std::size_t(2 * G * Dh)});
    right.data[1] = -0.0;  // a signed zero: the sum from +0.0 gives +0.0
    right.data[2] = 0.0;
    for (bool value_half : {false, true}) {
      const Tensor by_matmul = matmul(right, gqa_up_projection(H, G, Dh, value_half));
      const Tensor gathered = gathered_up_projection(right, H, G, value_half);
      REQUIRE(gathered.shape == by_matmul.shape);
      for (std::size_t i = 0; i < gathered.numel(); ++i) {
        CHECK(gathered.data[i] == by_matmul.data[i]);
        CHECK(std::signbit(gathered.data[i]) == std::signbit(by_matmul.data[i]));
      }
    }
  }
  // The compressed layer of the lesson, both ways.
  Rng rng(4);
  const Tensor W_Q = randn(rng, {12, 12}), W_K = randn(rng, {12, 6}), W_V = randn(rng, {12, 6}), W_O = randn(rng, {12, 12});
  const MlaWeights exact = gqa_as_mla(W_Q, W_K, W_V, W_O, 4, 2);
  const Svd s = svd(exact.W_DKV);
  for (std::size_t r : {1, 5, 12}) {
    const MlaWeights a = compress_latent(exact, s, r), b = compress_gqa_latent(exact, s, r, 4, 2);
    CHECK(a.W_DKV.data == b.W_DKV.data);
    CHECK(a.W_UK.data == b.W_UK.data);
    CHECK(a.W_UV.data == b.W_UV.data);
    CHECK(a.W_Q.data == b.W_Q.data);
    CHECK(a.W_O.data == b.W_O.data);
  }
}

}  // namespace file_test_svd_gram
