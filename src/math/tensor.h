#pragma once
// Tensor: a shape (rank 1 to 4, outermost first) and row-major double storage,
// with the operations the lessons need. Every op checks its shapes on entry and
// names both shapes when they disagree (a std::invalid_argument: a bug, not bad input).
//
// Legend used in the shape comments throughout attnlab:
//   T  = sequence length (tokens)        D  = d_model
//   H  = query heads                      G  = key/value heads (groups)
//   Dh = head dimension d_k (= D / H)     F  = FFN hidden width d_ff
//   C  = MLA latent width d_c             R  = MLA decoupled RoPE width d_R
#include <cstddef>
#include <string>
#include <vector>

namespace attn {

using Shape = std::vector<std::size_t>;

// The largest tensor attnlab will allocate (numbers, not bytes): 2^27 doubles = 1 GiB. A lesson
// holds a dozen or more tensors, so this keeps a run inside a workstation's memory and minutes
// (d_model up to 11,585; a 70B model's 8192 runs) instead of swapping for an hour. Lessons check
// their sizes against it before computing, so that the error names the flag.
constexpr std::size_t kMaxTensorElements = std::size_t{1} << 27;

// The most numbers a whole lesson may hold at once: 2^29 doubles = 4 GiB. A lesson that keeps
// several tensors of the same large shape checks their total against it.
constexpr std::size_t kMaxLessonElements = std::size_t{1} << 29;

// The product of dims, or 0 if it would exceed kMaxTensorElements (never wraps).
std::size_t checked_numel(const Shape& shape);

std::string shape_str(const Shape& shape);  // "[4, 8]"

struct Tensor {
  Shape shape;
  std::vector<double> data;  // row-major, size == product of shape

  Tensor() = default;
  explicit Tensor(Shape s);                           // zeros
  Tensor(Shape s, std::vector<double> values);        // values.size() must match

  std::size_t rank() const { return shape.size(); }
  std::size_t numel() const { return data.size(); }
  std::size_t dim(std::size_t i) const { return shape.at(i); }

  // rank 2: (r, c); rank 3: (b, r, c)
  double& operator()(std::size_t r, std::size_t c) { return data[r * shape[1] + c]; }
  double operator()(std::size_t r, std::size_t c) const { return data[r * shape[1] + c]; }
  double& operator()(std::size_t b, std::size_t r, std::size_t c) {
    return data[(b * shape[1] + r) * shape[2] + c];
  }
  double operator()(std::size_t b, std::size_t r, std::size_t c) const {
    return data[(b * shape[1] + r) * shape[2] + c];
  }
};

// Where a large block (2 MiB or more) of numbers starts: on a 2 MiB boundary, whole huge pages,
// where tensor.cpp replaces operator new (Linux with glibc, no sanitizer); else 0 (the system's).
std::size_t large_block_alignment();

// ---- linear algebra -------------------------------------------------------------
// matmul: a (M, K) @ b (K, N) -> (M, N). Rank 1 a is treated as (1, K) and gives (N).
Tensor matmul(const Tensor& a, const Tensor& b);
// transpose: (M, N) -> (N, M)
Tensor transpose(const Tensor& a);
// matmul_bt: a (M, K) @ bᵀ for b (N, K) -> (M, N), the bits of matmul(a, transpose(b)). For a few
// rows (a decode step against a vocabulary's rows) each output is a dot product of two stored
// rows, with no transposed copy; for more rows, the transpose and the blocked kernel.
Tensor matmul_bt(const Tensor& a, const Tensor& b);
// add_bias: x (M, N) + b (N) broadcast over rows; x (N) + b (N) also works.
Tensor add_bias(const Tensor& x, const Tensor& b);
Tensor add_bias(Tensor&& x, const Tensor& b);  // the same bits, added in x's own memory (no copy)

// ---- elementwise (same shape in, same shape out) ----------------------------------
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor hadamard(const Tensor& a, const Tensor& b);  // a ⊙ b
Tensor scale(const Tensor& a, double s);            // s · a
void scale_in_place(Tensor& a, double s);           // a = s · a, on every thread (each number alone)
double max_abs_diff(const Tensor& a, const Tensor& b);  // max |a - b|, shapes must match
double max_abs(const Tensor& a);

// ---- attention pieces ---------------------------------------------------------------
// causal_mask: scores (T, T) or (H, T, T) -> same, with entry (i, j > i) set to -inf.
Tensor causal_mask(const Tensor& scores);
// softmax_rows: over the last axis, numerically stable (subtract the row max).
// Entries that are -inf get weight exactly 0; a row that is all -inf is an error.
Tensor softmax_rows(const Tensor& scores);

// ---- heads and blocks ---------------------------------------------------------------
// split_heads: x (T, H*Dh) -> (H, T, Dh); head i is the column block i*Dh .. (i+1)*Dh.
Tensor split_heads(const Tensor& x, std::size_t n_heads);
// merge_heads: x (H, T, Dh) -> (T, H*Dh), the inverse of split_heads (the "concat").
Tensor merge_heads(const Tensor& x);
// slice0: x (B, ...) -> (...), the i-th entry along the first axis (e.g. head i).
Tensor slice0(const Tensor& x, std::size_t i);
// slices_max_abs_diff: max |x[i] - x[j]| over the entries of two slices along the first axis,
// the number max_abs_diff(slice0(x, i), slice0(x, j)) gives, without the two copies.
double slices_max_abs_diff(const Tensor& x, std::size_t i, std::size_t j);
// stack0: n tensors of equal shape S -> (n, S...).
Tensor stack0(const std::vector<Tensor>& parts);
// col_block: w (R, C) -> (R, width), columns i*width .. (i+1)*width.
Tensor col_block(const Tensor& w, std::size_t i, std::size_t width);
// row_block: w (R, C) -> (height, C), rows i*height .. (i+1)*height.
Tensor row_block(const Tensor& w, std::size_t i, std::size_t height);
// concat_cols: parts (T, C_k) with equal T -> (T, sum C_k).
Tensor concat_cols(const std::vector<Tensor>& parts);
// repeat_kv: x (G, T, Dh) -> (H, T, Dh), query head i reading group i / (H / G).
Tensor repeat_kv(const Tensor& x, std::size_t n_heads);

// ---- activations (elementwise) ------------------------------------------------------
double gelu(double x);       // exact: x · Φ(x) = 0.5 x (1 + erf(x / √2))
double gelu_tanh(double x);  // tanh approximation: 0.5 x (1 + tanh(√(2/π)(x + 0.044715 x³)))
double silu(double x);       // x · σ(x)
double relu(double x);       // max(0, x)
double sigmoid(double x);    // 1 / (1 + e^-x), stable for large |x|
Tensor apply(const Tensor& x, double (*f)(double));

}  // namespace attn
