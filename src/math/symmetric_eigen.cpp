// The symmetric eigen-decomposition behind the fast SVD. See symmetric_eigen.h.
#include "symmetric_eigen.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "matmul.h"
#include "parallel.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__linux__)
// The two loops that take the time are compiled three times and the best chosen at load time: each
// lane is its own scalar computation (a separate multiply and add: the build never contracts one
// into a fused multiply-add, even in the AVX-512 clone), so every clone gives the baseline build's bits.
#define ATTNLAB_EIGEN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ATTNLAB_EIGEN_CLONES
#endif

namespace attn {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr std::size_t kGramBlock = 256;         // columns of W per block of G
constexpr std::size_t kPanel = 16;              // components of the eigenvectors rotated together
constexpr std::size_t kFlushRotations = 1 << 18;  // rotations gathered before they are applied (4 MiB)
constexpr std::size_t kWyBlock = 64;            // reflectors applied together by apply_reflectors
constexpr std::size_t kReduceChunks = 8;        // the reduction's pass over a block's rows, in this many chunks
constexpr std::size_t kMaxStepsPerValue = 30;   // QR steps allowed: 30 per eigenvalue (2 or 3 is usual)

// √(x² + z²) without overflow or underflow in the squares.
double norm2(double x, double z) {
  const double ax = std::fabs(x), az = std::fabs(z), big = std::max(ax, az);
  if (big == 0.0) return 0.0;
  const double a = ax / big, b = az / big;
  return big * std::sqrt(a * a + b * b);
}

// Four doubles as one GCC/clang vector: each lane is its own scalar arithmetic (a separate multiply
// and add), so a loop written with them gives the bits of the same loop written lane by lane.
typedef double Lanes4 __attribute__((vector_size(32)));

// Row i of the reduction's trailing block, upper part (columns i … m-1, indices relative to the
// block): row −= v_i·w + w_i·v when `update` (the step's H B H), then the next step's B u summed
// into acc: acc_j += u_i·row_j for j ≥ i (row i's part of column j) and, returned, Σ_{j>i} row_j·u_j
// (row i's part of entry i). The dot product is summed in 8 lanes (j − i − 1 mod 8) and a tail,
// combined in a fixed order.
ATTNLAB_EIGEN_CLONES
double reduce_row(double* row, const double* v, const double* w, bool update, const double* u, double* acc,
                  std::size_t i, std::size_t m) {
  const double vi = update ? v[i] : 0.0, wi = update ? w[i] : 0.0, ui = u[i];
  if (update) row[i] = row[i] - (vi * w[i] + wi * v[i]);
  acc[i] = acc[i] + ui * row[i];
  const Lanes4 VI = {vi, vi, vi, vi}, WI = {wi, wi, wi, wi}, UI = {ui, ui, ui, ui};
  Lanes4 d0 = {0, 0, 0, 0}, d1 = d0;
  std::size_t j = i + 1;
  for (; j + 8 <= m; j += 8) {
    Lanes4 r0, r1, a0, a1, u0, u1;
    std::memcpy(&r0, row + j, 32);
    std::memcpy(&r1, row + j + 4, 32);
    if (update) {
      Lanes4 v0, v1, w0, w1;
      std::memcpy(&v0, v + j, 32);
      std::memcpy(&v1, v + j + 4, 32);
      std::memcpy(&w0, w + j, 32);
      std::memcpy(&w1, w + j + 4, 32);
      r0 = r0 - (VI * w0 + WI * v0);
      r1 = r1 - (VI * w1 + WI * v1);
      std::memcpy(row + j, &r0, 32);
      std::memcpy(row + j + 4, &r1, 32);
    }
    std::memcpy(&a0, acc + j, 32);
    std::memcpy(&a1, acc + j + 4, 32);
    a0 = a0 + UI * r0;
    a1 = a1 + UI * r1;
    std::memcpy(acc + j, &a0, 32);
    std::memcpy(acc + j + 4, &a1, 32);
    std::memcpy(&u0, u + j, 32);
    std::memcpy(&u1, u + j + 4, 32);
    d0 = d0 + r0 * u0;
    d1 = d1 + r1 * u1;
  }
  double tail = 0;
  for (; j < m; ++j) {
    if (update) row[j] = row[j] - (vi * w[j] + wi * v[j]);
    acc[j] = acc[j] + ui * row[j];
    tail = tail + row[j] * u[j];
  }
  return (((d0[0] + d0[1]) + (d0[2] + d0[3])) + ((d1[0] + d1[1]) + (d1[2] + d1[3]))) + tail;
}

// The Householder vector of x (length m ≥ 1, in place): x becomes v with H x = α e_1 for
// H = I − τ v vᵀ. Returns α; τ through `tau`. No reflection (τ = 0, v = 0) when x is already α e_1.
double make_reflector(double* x, std::size_t m, double& tau) {
  double sigma = 0;  // ‖x_{1:}‖²
  for (std::size_t j = 1; j < m; ++j) sigma += x[j] * x[j];
  if (sigma == 0.0) {
    tau = 0.0;
    const double alpha = x[0];
    x[0] = 0.0;
    return alpha;
  }
  const double mu = std::sqrt(x[0] * x[0] + sigma);
  const double alpha = x[0] > 0 ? -mu : mu;  // v_0 = x_0 − α adds two numbers of the same sign
  x[0] = x[0] - alpha;
  tau = 2.0 / (x[0] * x[0] + sigma);
  return alpha;
}

// Rotations of the QR steps, applied to the eigenvector matrix in batches. A step on the block
// p … q rotates columns (k, k+1) of S for k = p … q-1 in order: new column k = c·s_k + s·s_{k+1},
// new column k+1 = −s·s_k + c·s_{k+1}.
struct Step {
  std::size_t p, q, at;  // the block, and where its (c, s) pairs start in `cs`
};

// One panel of kPanel components (buf[j·kPanel + l]: column j of S, component l) through every
// gathered step; column k+1 of a step is carried in registers from one rotation to the next, four
// lanes at a time (a narrower last panel rotates zeros in its unused lanes).
static_assert(kPanel == 16, "rotate_panel holds a panel in four vectors of four lanes");

ATTNLAB_EIGEN_CLONES
void rotate_panel(double* buf, const Step* steps, std::size_t n_steps, const double* cs) {
  for (std::size_t n = 0; n < n_steps; ++n) {
    const Step& st = steps[n];
    const double* rot = cs + st.at;
    Lanes4 a0, a1, a2, a3;  // the carried column
    double* col = buf + st.p * kPanel;
    std::memcpy(&a0, col, 32);
    std::memcpy(&a1, col + 4, 32);
    std::memcpy(&a2, col + 8, 32);
    std::memcpy(&a3, col + 12, 32);
    for (std::size_t k = st.p; k < st.q; ++k, rot += 2) {
      const Lanes4 c = {rot[0], rot[0], rot[0], rot[0]}, s = {rot[1], rot[1], rot[1], rot[1]};
      double* lo = buf + k * kPanel;
      const double* hi = lo + kPanel;
      Lanes4 b0, b1, b2, b3;
      std::memcpy(&b0, hi, 32);
      std::memcpy(&b1, hi + 4, 32);
      std::memcpy(&b2, hi + 8, 32);
      std::memcpy(&b3, hi + 12, 32);
      const Lanes4 n0 = c * a0 + s * b0, n1 = c * a1 + s * b1, n2 = c * a2 + s * b2, n3 = c * a3 + s * b3;
      std::memcpy(lo, &n0, 32);
      std::memcpy(lo + 4, &n1, 32);
      std::memcpy(lo + 8, &n2, 32);
      std::memcpy(lo + 12, &n3, 32);
      a0 = c * b0 - s * a0;
      a1 = c * b1 - s * a1;
      a2 = c * b2 - s * a2;
      a3 = c * b3 - s * a3;
    }
    double* last = buf + st.q * kPanel;
    std::memcpy(last, &a0, 32);
    std::memcpy(last + 4, &a1, 32);
    std::memcpy(last + 8, &a2, 32);
    std::memcpy(last + 12, &a3, 32);
  }
}

// Applies the gathered steps to St (N, N), St(j, ·) = column j of S, panel by panel.
void apply_steps(Tensor& St, const std::vector<Step>& steps, const std::vector<double>& cs) {
  if (steps.empty()) return;
  const std::size_t N = St.dim(0), panels = (N + kPanel - 1) / kPanel;
  parallel_for(panels, 1, [&](std::size_t b, std::size_t e) {
    std::vector<double> buf(N * kPanel);
    for (std::size_t pn = b; pn < e; ++pn) {
      const std::size_t c0 = pn * kPanel, width = std::min(kPanel, N - c0);
      std::fill(buf.begin(), buf.end(), 0.0);
      for (std::size_t j = 0; j < N; ++j)
        for (std::size_t l = 0; l < width; ++l) buf[j * kPanel + l] = St(j, c0 + l);
      rotate_panel(buf.data(), steps.data(), steps.size(), cs.data());
      for (std::size_t j = 0; j < N; ++j)
        for (std::size_t l = 0; l < width; ++l) St(j, c0 + l) = buf[j * kPanel + l];
    }
  });
}

}  // namespace

Tensor gram(const Tensor& W) {
  if (W.rank() != 2 || W.numel() == 0) throw std::invalid_argument("gram: W must be a non-empty matrix, got " + shape_str(W.shape));
  const std::size_t M = W.dim(0), N = W.dim(1);
  const Tensor Wt = transpose(W);  // (N, M): its first rows are the columns of W, contiguous
  Tensor G({N, N});
  std::vector<double> block, out;
  for (std::size_t j0 = 0; j0 < N; j0 += kGramBlock) {
    const std::size_t j1 = std::min(N, j0 + kGramBlock), bw = j1 - j0;
    block.assign(M * bw, 0.0);  // (M, bw) = W[:, j0:j1]
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t c = 0; c < bw; ++c) block[i * bw + c] = W(i, j0 + c);
    out.assign(j1 * bw, 0.0);   // (j1, bw) = Wt[0:j1, :] @ W[:, j0:j1]: G's rows 0 … j1-1 of these columns
    gemm(Wt.data.data(), block.data(), out.data(), j1, bw, M);
    for (std::size_t i = 0; i < j1; ++i)
      for (std::size_t c = 0; c < bw; ++c) {
        G(i, j0 + c) = out[i * bw + c];
        if (i < j0) G(j0 + c, i) = out[i * bw + c];  // the diagonal block has both halves already
      }
  }
  return G;
}

Tridiagonal tridiagonalize(Tensor G) {
  if (G.rank() != 2 || G.dim(0) != G.dim(1) || G.numel() == 0)
    throw std::invalid_argument("tridiagonalize: G must be a non-empty square matrix, got " + shape_str(G.shape));
  const std::size_t N = G.dim(0);
  Tridiagonal t{Tensor({N}), Tensor({N}), Tensor(), Tensor({N})};
  if (N <= 2) {
    t.d.data[0] = G(0, 0);
    if (N == 2) {
      t.e.data[0] = G(0, 1);
      t.d.data[1] = G(1, 1);
    }
    t.reflectors = std::move(G);
    return t;
  }
  // Only the upper triangle (j ≥ i) is read and kept. Step k reflects x = G(k, k+1 …) (the column
  // below the diagonal, read as its row) and updates the trailing block B = G[k+1:, k+1:] to
  // H B H = B − v wᵀ − w vᵀ, with p = τ B v and w = p − (τ/2)(pᵀv) v. B's first row is updated first
  // (it gives step k+1's reflector u); then one pass over B's other rows updates each and sums
  // step k+1's B u from it (reduce_row), so B is read and written once a step.
  std::vector<double> p(N, 0.0), next(N, 0.0), w(N, 0.0), dots(N, 0.0);
  std::vector<std::vector<double>> part(kReduceChunks, std::vector<double>(N, 0.0));
  // The pass over rows 1 … m-1 of the block at G(o, o) (indices relative to o), its sum B u into
  // acc (length m). The rows go in kReduceChunks chunks of about equal work (row i has m − i
  // numbers), fixed by m alone: each chunk sums into its own part, on any thread, and the parts
  // are added in chunk order, so the bits do not depend on the thread count.
  auto pass = [&](std::size_t o, std::size_t m, const double* v, const double* wk, bool update, const double* u, double* acc) {
    std::size_t bounds[kReduceChunks + 1];
    const double md = static_cast<double>(m), total = md * md / 2.0;
    bounds[0] = 1;
    for (std::size_t c = 1; c < kReduceChunks; ++c) {  // Σ_{i<x} (m − i) ≈ m·x − x²/2 = total·c/chunks
      const double x = md - std::sqrt(md * md - 2.0 * total * static_cast<double>(c) / static_cast<double>(kReduceChunks));
      bounds[c] = std::min(m, std::max(bounds[c - 1], static_cast<std::size_t>(x)));
    }
    bounds[kReduceChunks] = m;
    parallel_for(kReduceChunks, 1, [&](std::size_t cb, std::size_t ce) {
      for (std::size_t c = cb; c < ce; ++c) {
        double* sum = part[c].data();
        std::fill(sum + bounds[c], sum + m, 0.0);
        for (std::size_t i = bounds[c]; i < bounds[c + 1]; ++i) dots[i] = reduce_row(&G(o + i, o), v, wk, update, u, sum, i, m);
      }
    });
    for (std::size_t j = 1; j < m; ++j) {
      double sum = 0;
      for (std::size_t c = 0; c < kReduceChunks && bounds[c] <= j; ++c) sum += part[c][j];
      acc[j] = sum + dots[j];
    }
  };
  auto reflect = [&](std::size_t k) {
    t.d.data[k] = G(k, k);
    t.e.data[k] = make_reflector(&G(k, k + 1), N - k - 1, t.tau.data[k]);
  };
  reflect(0);
  pass(0, N, nullptr, nullptr, false, &G(0, 0), p.data());  // B v for step 0 (B = G[1:, 1:], v = G(0, 1 …))
  for (std::size_t k = 0; k + 2 < N; ++k) {
    const std::size_t o = k + 1, m = N - o;  // B = G[o:, o:], m × m; indices below relative to o
    const double tau = t.tau.data[k];
    const double* v = &G(k, o);                // v_k, length m
    const double* pk = p.data() + o;           // B v
    double* wk = w.data() + o;
    const bool update = tau != 0.0;
    if (update) {
      double pv = 0;
      for (std::size_t j = 0; j < m; ++j) pv += tau * pk[j] * v[j];
      const double K = tau / 2.0 * pv;
      for (std::size_t j = 0; j < m; ++j) wk[j] = tau * pk[j] - K * v[j];
      double* row0 = &G(o, o);
      for (std::size_t j = 0; j < m; ++j) row0[j] = row0[j] - (v[0] * wk[j] + wk[0] * v[j]);
    }
    const bool more = k + 3 < N;  // step k+1 has a reflector
    if (more) reflect(o);
    // u_i = v_{k+1}(i-1) for i ≥ 1 (only read when `more`)
    pass(o, m, v, wk, update, &G(o, o), next.data() + o);
    std::swap(p, next);
  }
  t.d.data[N - 2] = G(N - 2, N - 2);
  t.e.data[N - 2] = G(N - 2, N - 1);
  t.d.data[N - 1] = G(N - 1, N - 1);
  t.reflectors = std::move(G);
  return t;
}

TridiagonalEigen tridiagonal_eigen(const Tensor& d_in, const Tensor& e_in) {
  const std::size_t N = d_in.numel();
  if (N == 0 || e_in.numel() != N) throw std::invalid_argument("tridiagonal_eigen: d and e must both have N > 0 entries");
  std::vector<double> d = d_in.data, e = e_in.data;
  e[N - 1] = 0.0;
  double tnorm = 0;  // a bound on ‖T‖: an off-diagonal below ε‖T‖ is rounding noise of the reduction
  for (std::size_t i = 0; i < N; ++i) tnorm = std::max(tnorm, std::fabs(d[i]) + std::fabs(e[i]) + (i > 0 ? std::fabs(e[i - 1]) : 0.0));
  auto negligible = [&](std::size_t i) {
    return std::fabs(e[i]) <= kEps * (std::fabs(d[i]) + std::fabs(d[i + 1])) || std::fabs(e[i]) <= kEps * tnorm;
  };
  Tensor St({N, N});  // St(j, ·) = column j of S
  for (std::size_t i = 0; i < N; ++i) St(i, i) = 1.0;
  std::vector<Step> steps;
  std::vector<double> cs;
  TridiagonalEigen out;
  std::size_t q = N - 1;
  while (q > 0) {
    if (negligible(q - 1)) {  // d_q is an eigenvalue: the active part ends above it
      e[q - 1] = 0.0;
      --q;
      continue;
    }
    std::size_t p = q - 1;  // the unreduced block p … q
    while (p > 0 && !negligible(p - 1)) --p;
    if (p > 0) e[p - 1] = 0.0;
    if (++out.qr_steps > kMaxStepsPerValue * N) throw std::runtime_error("tridiagonal_eigen: no convergence");
    // The Wilkinson shift: the eigenvalue of the trailing 2×2 closer to d_q.
    const double a = d[q - 1], b = e[q - 1], c = d[q];
    const double delta = (a - c) / 2.0, root = norm2(delta, b);
    const double mu = c - b * (b / (delta + (delta >= 0 ? root : -root)));
    double x = d[p] - mu, z = e[p];
    steps.push_back(Step{p, q, cs.size()});
    for (std::size_t k = p; k < q; ++k) {
      // The rotation G (rows/columns k, k+1) with Gᵀ (x, z) = (r, 0): T <- Gᵀ T G.
      const double r = norm2(x, z), cth = r == 0.0 ? 1.0 : x / r, sth = r == 0.0 ? 0.0 : z / r;
      if (k > p) e[k - 1] = r;  // the bulge is chased down: it was z at (k+1, k-1)
      const double dk = d[k], dk1 = d[k + 1], ek = e[k];
      const double cc = cth * cth, ss = sth * sth, cs2 = 2.0 * cth * sth;
      d[k] = cc * dk + cs2 * ek + ss * dk1;
      d[k + 1] = ss * dk - cs2 * ek + cc * dk1;
      e[k] = cth * sth * (dk1 - dk) + (cc - ss) * ek;
      if (k + 1 < q) {
        x = e[k];
        z = sth * e[k + 1];  // the new bulge at (k+2, k)
        e[k + 1] = cth * e[k + 1];
      }
      cs.push_back(cth);
      cs.push_back(sth);
    }
    if (cs.size() / 2 >= kFlushRotations) {
      apply_steps(St, steps, cs);
      steps.clear();
      cs.clear();
    }
  }
  apply_steps(St, steps, cs);
  out.values = Tensor({N}, d);
  out.vectors = transpose(St);
  return out;
}

Tensor apply_reflectors(const Tridiagonal& t, Tensor Z) {
  const std::size_t N = t.d.numel();
  if (Z.rank() != 2 || Z.dim(0) != N) throw std::invalid_argument("apply_reflectors: Z must have N rows, got " + shape_str(Z.shape));
  if (N < 3) return Z;
  const std::size_t P = Z.dim(1), count = N - 2;  // reflectors 0 … N-3
  // Blocks of reflectors from the last: H_j0 … H_j1-1 = I − Y T Yᵀ (the compact WY form), Y's column c
  // is v_{j0+c} placed in rows j0+c+1 …; only rows o = j0+1 … N-1 of Z change.
  std::size_t j1 = count;
  while (j1 > 0) {
    const std::size_t j0 = j1 > kWyBlock ? j1 - kWyBlock : 0, b = j1 - j0, o = j0 + 1, m = N - o;
    Tensor Y({m, b});  // (m, b)
    for (std::size_t c = 0; c < b; ++c)
      for (std::size_t i = c; i < m; ++i) Y(i, c) = t.reflectors(j0 + c, o + i);
    // T (b, b), upper triangular: T(c, c) = τ_c, T(0:c, c) = −τ_c T(0:c, 0:c) Y(:, 0:c)ᵀ y_c.
    Tensor T({b, b});
    std::vector<double> yy(b);
    for (std::size_t c = 0; c < b; ++c) {
      const double tau = t.tau.data[j0 + c];
      for (std::size_t a = 0; a < c; ++a) {
        double s = 0;
        for (std::size_t i = c; i < m; ++i) s += Y(i, a) * Y(i, c);  // Y(i, c) = 0 above row c
        yy[a] = s;
      }
      for (std::size_t a = 0; a < c; ++a) {
        double s = 0;
        for (std::size_t l = a; l < c; ++l) s += T(a, l) * yy[l];
        T(a, c) = -tau * s;
      }
      T(c, c) = tau;
    }
    const Tensor Yt = transpose(Y);  // (b, m)
    Tensor W1({b, P}), W2({b, P}), W3({m, P});
    double* Zo = Z.data.data() + o * P;  // rows o … N-1 of Z: (m, P), contiguous
    gemm(Yt.data.data(), Zo, W1.data.data(), b, P, m);              // Yᵀ Z_o      (b, P)
    gemm(T.data.data(), W1.data.data(), W2.data.data(), b, P, b);   // T Yᵀ Z_o    (b, P)
    gemm(Y.data.data(), W2.data.data(), W3.data.data(), m, P, b);   // Y T Yᵀ Z_o  (m, P)
    for (std::size_t i = 0; i < m * P; ++i) Zo[i] = Zo[i] - W3.data[i];
    j1 = j0;
  }
  return Z;
}

SymmetricEigen symmetric_eigen(const Tensor& G) {
  Tridiagonal t = tridiagonalize(G);
  TridiagonalEigen te = tridiagonal_eigen(t.d, t.e);
  Tensor Z = apply_reflectors(t, std::move(te.vectors));  // (N, N)
  const std::size_t N = t.d.numel();
  std::vector<std::size_t> order(N);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return te.values.data[a] > te.values.data[b]; });
  SymmetricEigen out{Tensor({N}), Tensor({N, N}), te.qr_steps};
  for (std::size_t k = 0; k < N; ++k) out.values.data[k] = te.values.data[order[k]];
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t k = 0; k < N; ++k) out.vectors(i, k) = Z(i, order[k]);
  return out;
}

}  // namespace attn
