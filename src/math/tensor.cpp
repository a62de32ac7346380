#include "tensor.h"
#include "libm.h"

#include "cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <fmt/format.h>

#include "matmul.h"
#include "parallel.h"
#include "fused.h"

namespace attn {

namespace {

[[noreturn]] void shape_error(const char* op, const Shape& a, const Shape& b, const char* rule) {
  throw std::invalid_argument(
      fmt::format("{}: shapes {} and {} do not fit ({})", op, shape_str(a), shape_str(b), rule));
}

void require_rank(const char* op, const Tensor& t, std::size_t rank) {
  if (t.rank() != rank)
    throw std::invalid_argument(fmt::format("{}: expected rank {}, got shape {}", op, rank, shape_str(t.shape)));
}

void require_same(const char* op, const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape) shape_error(op, a.shape, b.shape, "shapes must be equal");
}

// glibc hands every block over 32 MiB (a (12, 1024, 1024) score tensor is 96 MiB) straight to
// mmap and back to the kernel on free, so each new large tensor is a fresh run of page faults
// and kernel page clearing: half the run time of `lesson mha --seq-len 1024`. Keep freed memory
// in the process instead (it is reused by the next tensor; a lesson's peak is unchanged).
#if defined(__GLIBC__)
[[maybe_unused]] const bool kReuseFreedMemory = [] {
  mallopt(M_MMAP_MAX, 0);                        // large blocks from the heap, not fresh mmaps
  mallopt(M_TRIM_THRESHOLD, 1 << 30);             // and do not hand the heap back on every free
  return true;
}();
#endif

}  // namespace

std::size_t checked_numel(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) {
    if (d != 0 && n > kMaxTensorElements / d) return 0;
    n *= d;
  }
  return n > kMaxTensorElements ? 0 : n;
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {

std::size_t checked_size(const Shape& shape) {
  if (shape.empty() || shape.size() > 4)
    throw std::invalid_argument(fmt::format("Tensor: rank must be 1 to 4, got {}", shape_str(shape)));
  std::size_t n = checked_numel(shape);
  if (n == 0) throw std::length_error(fmt::format("Tensor: {} is empty or too large", shape_str(shape)));
  return n;
}

// Fresh memory costs a page fault and a kernel page clear on first touch; for a large tensor that
// is most of the time its zero-fill takes. Its block is on transparent huge pages (operator new,
// at the end of this file; with the system's allocator, the block's 2 MiB-aligned inside); here the
// kernel populates the pages up front, on several threads (MADV_POPULATE_WRITE, Linux 5.14;
// elsewhere or on error a no-op).
// Measured on a 2-core Zen 5 VM (2026-12-05), 2 GiB allocated, populated and written once:
// 4 KiB pages 2.7-3.4 s (the populate 0.24 s, then 4.4 us a page on the first write from user
// space, the hypervisor's own fault), huge pages 0.2-0.35 s. An earlier Zen 4 VM saw a huge-page
// fault compact memory first (system time 0.06 -> 0.56 s on one run): a far smaller cost than
// 4 KiB pages' on machines like this one.
void prefault(const double* p, std::size_t n) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  constexpr std::size_t kPage = 4096, kHuge = std::size_t{2} << 20, kChunk = std::size_t{8} << 20;
  auto begin = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) / kPage * kPage;
  auto end = (reinterpret_cast<std::uintptr_t>(p + n)) / kPage * kPage;
  if (end <= begin) return;
#ifdef MADV_HUGEPAGE
  if (large_block_alignment() == 0) {  // the system's allocator: huge pages on the aligned inside at least
    auto huge_begin = (begin + kHuge - 1) / kHuge * kHuge, huge_end = end / kHuge * kHuge;
    if (huge_begin < huge_end) ::madvise(reinterpret_cast<void*>(huge_begin), huge_end - huge_begin, MADV_HUGEPAGE);
  }
#endif
  std::size_t chunks = (end - begin + kChunk - 1) / kChunk;
  parallel_for(chunks, 1, [&](std::size_t c0, std::size_t c1) {
    std::uintptr_t b = begin + c0 * kChunk, e = std::min<std::uintptr_t>(end, begin + c1 * kChunk);
    ::madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE);  // best effort
  });
#else
  (void)p;
  (void)n;
#endif
}

// From 4 MiB (numpy's threshold for asking for huge pages) a tensor's memory is populated up front.
constexpr std::size_t kPrefaultNumbers = std::size_t{1} << 19;

// A copy of a's shape and numbers in memory populated up front as Tensor(Shape) is: a vector's
// own copy would take each fresh page's fault one 4 KiB page at a time.
Tensor copy_of(const Tensor& a) {
  Tensor out;
  out.shape = a.shape;
  if (a.numel() >= kPrefaultNumbers) {
    out.data.reserve(a.numel());
    prefault(out.data.data(), a.numel());
  }
  out.data.assign(a.data.begin(), a.data.end());
  return out;
}

}  // namespace

Tensor::Tensor(Shape s) : shape(std::move(s)) {
  std::size_t n = checked_size(shape);
  if (n >= kPrefaultNumbers) {
    data.reserve(n);
    prefault(data.data(), n);
  }
  data.assign(n, 0.0);
}

Tensor::Tensor(Shape s, std::vector<double> values) : shape(std::move(s)) {
  std::size_t n = checked_size(shape);  // the same checks, without a zero-filled copy to discard
  if (values.size() != n)
    throw std::invalid_argument(
        fmt::format("Tensor: shape {} needs {} values, got {}", shape_str(shape), n, values.size()));
  data = std::move(values);
}

// ---- linear algebra -------------------------------------------------------------------

Tensor matmul(const Tensor& a, const Tensor& b) {
  // a is (M, K) or (K), b is (K, N)
  require_rank("matmul", b, 2);
  bool vec = a.rank() == 1;
  if (!vec) require_rank("matmul", a, 2);
  std::size_t M = vec ? 1 : a.dim(0), K = vec ? a.dim(0) : a.dim(1), N = b.dim(1);
  if (b.dim(0) != K) shape_error("matmul", a.shape, b.shape, "inner dimensions must match");
  if (K == 0 || a.numel() != M * K || b.numel() != K * N)
    shape_error("matmul", a.shape, b.shape, "the inner dimension must be at least 1");
  Tensor out(vec ? Shape{N} : Shape{M, N});
  // out[i][j] = Σ_k a[i][k] b[k][j], summed in order k = 0 … K-1 from 0.0, a multiply then an
  // add, so results never depend on the tiling or the thread count (see matmul.h).
  gemm(a.data.data(), b.data.data(), out.data.data(), M, N, K);
  return out;
}

Tensor transpose(const Tensor& a) {
  require_rank("transpose", a, 2);
  std::size_t R = a.dim(0), C = a.dim(1);
  Tensor out({C, R});
  // 64 x 64 blocks, each moved as 8 x 8 tiles: a tile reads 8 whole cache lines and writes 8. The
  // 8 lines a tile writes (a column of the source) sit R doubles apart; with 32 x 32 tiles and R a
  // power of two (4096: GPT-2's logits in blocks of vocabulary rows, 2048, 4096: LLaMA weights)
  // 32 such lines share one L1 set and evict each other: 6 ns a number at 4096 x 768, 2.7 now.
  constexpr std::size_t kOuter = 64, kTile = 8;
  const double* src = a.data.data();
  double* dst = out.data.data();
  for (std::size_t I0 = 0; I0 < R; I0 += kOuter)
    for (std::size_t J0 = 0; J0 < C; J0 += kOuter) {
      std::size_t I1 = std::min(R, I0 + kOuter), J1 = std::min(C, J0 + kOuter);
      for (std::size_t i0 = I0; i0 < I1; i0 += kTile)
        for (std::size_t j0 = J0; j0 < J1; j0 += kTile) {
          std::size_t i1 = std::min(I1, i0 + kTile), j1 = std::min(J1, j0 + kTile);
          for (std::size_t i = i0; i < i1; ++i)
            for (std::size_t j = j0; j < j1; ++j) dst[j * R + i] = src[i * C + j];
        }
    }
  return out;
}

namespace {
// Columns j0 … j1 of C (M, N) = A (M, K) · B (N, K)^T. Four outputs at a time, so four independent
// sums hide the fused multiply-adds' latency; each is still its own sum from 0.0 in k order.
ATTNLAB_FMA_CLONES void matmul_bt_rows(const double* A, const double* B, double* C, std::size_t M, std::size_t N,
                                       std::size_t K, std::size_t j0, std::size_t j1) {
  for (std::size_t i = 0; i < M; ++i) {
    const double* x = A + i * K;
    std::size_t j = j0;
    for (; j + 4 <= j1; j += 4) {
      const double *b0 = B + j * K, *b1 = b0 + K, *b2 = b1 + K, *b3 = b2 + K;
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (std::size_t k = 0; k < K; ++k) {
        s0 = fused(x[k], b0[k], s0);
        s1 = fused(x[k], b1[k], s1);
        s2 = fused(x[k], b2[k], s2);
        s3 = fused(x[k], b3[k], s3);
      }
      C[i * N + j] = s0, C[i * N + j + 1] = s1, C[i * N + j + 2] = s2, C[i * N + j + 3] = s3;
    }
    for (; j < j1; ++j) {
      const double* bj = B + j * K;
      double s = 0.0;
      for (std::size_t k = 0; k < K; ++k) s = fused(x[k], bj[k], s);
      C[i * N + j] = s;
    }
  }
}
}  // namespace

Tensor matmul_bt(const Tensor& a, const Tensor& b) {
  require_rank("matmul_bt", a, 2);
  require_rank("matmul_bt", b, 2);
  std::size_t M = a.dim(0), K = a.dim(1), N = b.dim(0);
  if (b.dim(1) != K) shape_error("matmul_bt", a.shape, b.shape, "both must have the same number of columns");
  if (K == 0) shape_error("matmul_bt", a.shape, b.shape, "the inner dimension must be at least 1");
  constexpr std::size_t kFewRows = 4;  // up to here the dot products; measured against the transpose
  if (M > kFewRows) return matmul(a, transpose(b));
  Tensor out({M, N});
  const double* A = a.data.data();
  const double* B = b.data.data();
  double* C = out.data.data();
  // out[i][j] = Σ_k a[i][k] b[j][k], from 0.0, k in order, one fused multiply-add per k: matmul's
  // definition (matmul_bt_rows, compiled for FMA where the CPU has it).
  parallel_for(N, 256, [&](std::size_t j0, std::size_t j1) { matmul_bt_rows(A, B, C, M, N, K, j0, j1); });
  return out;
}

Tensor add_bias(const Tensor& x, const Tensor& b) {
  require_rank("add_bias", b, 1);
  std::size_t N = b.dim(0);
  if (x.shape.back() != N) shape_error("add_bias", x.shape, b.shape, "last dimension must equal bias length");
  Tensor out = copy_of(x);
  for (std::size_t i = 0; i < out.numel(); ++i) out.data[i] += b.data[i % N];
  return out;
}

Tensor add_bias(Tensor&& x, const Tensor& b) {
  require_rank("add_bias", b, 1);
  std::size_t N = b.dim(0);
  if (x.shape.back() != N) shape_error("add_bias", x.shape, b.shape, "last dimension must equal bias length");
  Tensor out = std::move(x);
  for (std::size_t i = 0; i < out.numel(); ++i) out.data[i] += b.data[i % N];
  return out;
}

// ---- elementwise -------------------------------------------------------------------------

Tensor add(const Tensor& a, const Tensor& b) {
  require_same("add", a, b);
  Tensor out = copy_of(a);
  for (std::size_t i = 0; i < out.numel(); ++i) out.data[i] += b.data[i];
  return out;
}

Tensor sub(const Tensor& a, const Tensor& b) {
  require_same("sub", a, b);
  Tensor out = copy_of(a);
  for (std::size_t i = 0; i < out.numel(); ++i) out.data[i] -= b.data[i];
  return out;
}

Tensor hadamard(const Tensor& a, const Tensor& b) {
  require_same("hadamard", a, b);
  Tensor out = copy_of(a);
  for (std::size_t i = 0; i < out.numel(); ++i) out.data[i] *= b.data[i];
  return out;
}

Tensor scale(const Tensor& a, double s) {
  Tensor out = copy_of(a);
  scale_in_place(out, s);
  return out;
}

void scale_in_place(Tensor& a, double s) {
  parallel_for(a.numel(), 1 << 15, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) a.data[i] *= s;
  });
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  require_same("max_abs_diff", a, b);
  double m = 0.0;
  for (std::size_t i = 0; i < a.numel(); ++i) m = std::max(m, std::fabs(a.data[i] - b.data[i]));
  return m;
}

double max_abs(const Tensor& a) {
  double m = 0.0;
  for (double v : a.data) m = std::max(m, std::fabs(v));
  return m;
}

// ---- attention pieces ----------------------------------------------------------------------

Tensor causal_mask(const Tensor& scores) {
  // scores is (T, T) or (H, T, T); token i may look at tokens j <= i only
  if (scores.rank() != 2 && scores.rank() != 3)
    throw std::invalid_argument("causal_mask: expected (T, T) or (H, T, T), got " + shape_str(scores.shape));
  std::size_t T = scores.shape.back();
  if (scores.shape[scores.rank() - 2] != T)
    throw std::invalid_argument("causal_mask: scores must be square, got " + shape_str(scores.shape));
  Tensor out = copy_of(scores);
  for (std::size_t b = 0; b < out.numel() / (T * T); ++b)
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = i + 1; j < T; ++j) out.data[(b * T + i) * T + j] = -std::numeric_limits<double>::infinity();
  return out;
}

Tensor softmax_rows(const Tensor& scores) {
  // scores is (..., N); each row of N becomes a probability distribution
  std::size_t N = scores.shape.back();
  Tensor out(scores.shape);  // written row by row below, on every thread (a copy first would be one thread's work)
  std::size_t rows = out.numel() / N;
  // rows are independent: split them across threads (each row's arithmetic is unchanged)
  std::size_t grain = std::max<std::size_t>(1, (std::size_t{1} << 14) / N);
  parallel_for(rows, grain, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r) {
      const double* x = &scores.data[r * N];
      double* row = &out.data[r * N];
      // pass 1: the row max (masked entries are -inf and never the max of a valid row)
      double maxval = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < N; ++j) maxval = std::max(maxval, x[j]);
      if (std::isinf(maxval) && maxval < 0) throw std::invalid_argument("softmax_rows: a row is fully masked");
      // pass 2: exp(x - max) and their sum; exp(-inf) is exactly 0
      double sum = 0.0;
      for (std::size_t j = 0; j < N; ++j) {
        row[j] = std::isinf(x[j]) ? 0.0 : libm::exp(x[j] - maxval);
        sum += row[j];
      }
      // pass 3: normalize
      for (std::size_t j = 0; j < N; ++j) row[j] /= sum;
    }
  });
  return out;
}

// ---- heads and blocks -------------------------------------------------------------------------

Tensor split_heads(const Tensor& x, std::size_t n_heads) {
  // x is (T, H*Dh) -> (H, T, Dh)
  require_rank("split_heads", x, 2);
  std::size_t T = x.dim(0), HD = x.dim(1);
  if (n_heads == 0 || HD % n_heads != 0)
    throw std::invalid_argument(fmt::format("split_heads: width {} is not divisible by {} heads", HD, n_heads));
  std::size_t Dh = HD / n_heads;
  Tensor out({n_heads, T, Dh});
  for (std::size_t h = 0; h < n_heads; ++h)
    for (std::size_t t = 0; t < T; ++t)
      std::copy_n(&x.data[t * HD + h * Dh], Dh, &out.data[(h * T + t) * Dh]);
  return out;
}

Tensor merge_heads(const Tensor& x) {
  // x is (H, T, Dh) -> (T, H*Dh)
  require_rank("merge_heads", x, 3);
  std::size_t H = x.dim(0), T = x.dim(1), Dh = x.dim(2);
  Tensor out({T, H * Dh});
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t h = 0; h < H; ++h)
      std::copy_n(&x.data[(h * T + t) * Dh], Dh, &out.data[t * H * Dh + h * Dh]);
  return out;
}

Tensor slice0(const Tensor& x, std::size_t i) {
  if (x.rank() < 2) throw std::invalid_argument("slice0: needs rank >= 2, got " + shape_str(x.shape));
  if (i >= x.dim(0)) throw std::invalid_argument(fmt::format("slice0: index {} outside {}", i, shape_str(x.shape)));
  Shape s(x.shape.begin() + 1, x.shape.end());
  std::size_t n = x.numel() / x.dim(0);
  std::vector<double> values;
  if (n >= kPrefaultNumbers) {  // a large slice's memory populated up front, as Tensor(Shape)'s is
    values.reserve(n);
    prefault(values.data(), n);
  }
  values.assign(x.data.begin() + i * n, x.data.begin() + (i + 1) * n);
  return Tensor(s, std::move(values));
}

double slices_max_abs_diff(const Tensor& x, std::size_t i, std::size_t j) {
  if (x.rank() < 2) throw std::invalid_argument("slices_max_abs_diff: needs rank >= 2, got " + shape_str(x.shape));
  if (i >= x.dim(0) || j >= x.dim(0))
    throw std::invalid_argument(fmt::format("slices_max_abs_diff: index {} or {} outside {}", i, j, shape_str(x.shape)));
  std::size_t n = x.numel() / x.dim(0);
  const double* a = &x.data[i * n];
  const double* b = &x.data[j * n];
  double m = 0.0;
  for (std::size_t k = 0; k < n; ++k) m = std::max(m, std::fabs(a[k] - b[k]));
  return m;
}

Tensor stack0(const std::vector<Tensor>& parts) {
  if (parts.empty()) throw std::invalid_argument("stack0: nothing to stack");
  Shape s = parts[0].shape;
  s.insert(s.begin(), parts.size());
  std::vector<double> values;
  values.reserve(parts.size() * parts[0].numel());
  for (const Tensor& p : parts) {
    require_same("stack0", parts[0], p);
    values.insert(values.end(), p.data.begin(), p.data.end());
  }
  return Tensor(s, std::move(values));
}

Tensor col_block(const Tensor& w, std::size_t i, std::size_t width) {
  // w is (R, C) -> (R, width)
  require_rank("col_block", w, 2);
  if (width == 0 || (i + 1) * width > w.dim(1))
    throw std::invalid_argument(fmt::format("col_block: block {} of width {} outside {}", i, width, shape_str(w.shape)));
  Tensor out({w.dim(0), width});
  for (std::size_t r = 0; r < w.dim(0); ++r) std::copy_n(&w.data[r * w.dim(1) + i * width], width, &out.data[r * width]);
  return out;
}

Tensor row_block(const Tensor& w, std::size_t i, std::size_t height) {
  // w is (R, C) -> (height, C)
  require_rank("row_block", w, 2);
  if (height == 0 || (i + 1) * height > w.dim(0))
    throw std::invalid_argument(fmt::format("row_block: block {} of height {} outside {}", i, height, shape_str(w.shape)));
  std::size_t C = w.dim(1);
  return Tensor({height, C}, std::vector<double>(w.data.begin() + i * height * C, w.data.begin() + (i + 1) * height * C));
}

Tensor concat_cols(const std::vector<Tensor>& parts) {
  // parts are (T, C_k) -> (T, sum C_k)
  if (parts.empty()) throw std::invalid_argument("concat_cols: nothing to concatenate");
  std::size_t T = parts[0].dim(0), C = 0;
  for (const Tensor& p : parts) {
    require_rank("concat_cols", p, 2);
    if (p.dim(0) != T) shape_error("concat_cols", parts[0].shape, p.shape, "row counts must match");
    C += p.dim(1);
  }
  Tensor out({T, C});
  std::size_t c0 = 0;
  for (const Tensor& p : parts) {
    for (std::size_t t = 0; t < T; ++t) std::copy_n(&p.data[t * p.dim(1)], p.dim(1), &out.data[t * C + c0]);
    c0 += p.dim(1);
  }
  return out;
}

Tensor repeat_kv(const Tensor& x, std::size_t n_heads) {
  // x is (G, T, Dh) -> (H, T, Dh); query head h reads group h / (H / G)
  require_rank("repeat_kv", x, 3);
  std::size_t G = x.dim(0);
  if (n_heads == 0 || n_heads % G != 0)
    throw std::invalid_argument(fmt::format("repeat_kv: {} heads is not a multiple of {} groups", n_heads, G));
  // each head's (T, Dh) block copied straight into the result (no per-head tensors, no second copy)
  const std::size_t block = x.numel() / G;
  Tensor out({n_heads, x.dim(1), x.dim(2)});
  for (std::size_t h = 0; h < n_heads; ++h) {
    const double* src = x.data.data() + (h / (n_heads / G)) * block;
    std::copy(src, src + block, out.data.data() + h * block);
  }
  return out;
}

// ---- activations -------------------------------------------------------------------------------

double gelu(double x) { return 0.5 * x * (1.0 + libm::erf(x / std::sqrt(2.0))); }

double gelu_tanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + libm::tanh(k * (x + 0.044715 * x * x * x)));
}

double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + libm::exp(-x));
  double e = libm::exp(x);
  return e / (1.0 + e);
}

double silu(double x) { return x * sigmoid(x); }

double relu(double x) { return x > 0.0 ? x : 0.0; }

Tensor apply(const Tensor& x, double (*f)(double)) {
  Tensor out = copy_of(x);
  for (double& v : out.data) v = f(v);
  return out;
}

}  // namespace attn

// ---- where large blocks live ----------------------------------------------------------
// Every block of 2 MiB or more that new asks for (a tensor's numbers from 262,144 on; an
// over-aligned new is the library's, with aligned_alloc and free) starts on a 2 MiB boundary
// and spans whole 2 MiB pages, which the kernel is asked to back with transparent huge pages
// (MADV_HUGEPAGE). Before, a tensor asked for huge pages on the 2 MiB-aligned inside of its block
// only: its two ends, a megabyte each on average, stayed on 4 KiB pages and took this VM's
// hypervisor fault (4.4 us a page) on their first write, in the zero-fill. Measured interleaved
// (2026-12-06): see docs/ARCHITECTURE.md, "Whole huge pages".
// Replacing the global operator new and delete is the standard's own way to choose where memory
// comes from (every std::vector<double> asks through them); delete is free() for every block.
// Sanitizer builds keep their runtime's allocator, which checks every new against its delete.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNLAB_SANITIZED_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_SANITIZED_ALLOCATOR 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(ATTNLAB_SANITIZED_ALLOCATOR)
namespace attn {

constexpr std::size_t kHuge = std::size_t{2} << 20;

std::size_t large_block_alignment() { return kHuge; }

namespace {

void* allocate_block(std::size_t bytes) noexcept {
  if (bytes < kHuge) return std::malloc(bytes ? bytes : 1);
  if (bytes > std::numeric_limits<std::size_t>::max() - kHuge) return nullptr;
  std::size_t whole = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = nullptr;
  if (::posix_memalign(&p, kHuge, whole) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  ::madvise(p, whole, MADV_HUGEPAGE);  // best effort
#endif
  return p;
}

void* allocate_or_throw(std::size_t bytes) {
  void* p = allocate_block(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace
}  // namespace attn

void* operator new(std::size_t bytes) { return attn::allocate_or_throw(bytes); }
void* operator new[](std::size_t bytes) { return attn::allocate_or_throw(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept { return attn::allocate_block(bytes); }
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept { return attn::allocate_block(bytes); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#else
namespace attn {
std::size_t large_block_alignment() { return 0; }
}  // namespace attn
#endif
