#include "ffn.h"
#include "fused.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace attn {

// ---- activations by name --------------------------------------------------------------------

std::optional<Activation> activation_from_name(std::string_view name) {
  if (name == "gelu") return Activation::Gelu;
  if (name == "gelu-tanh") return Activation::GeluTanh;
  if (name == "relu") return Activation::Relu;
  if (name == "silu") return Activation::Silu;
  return std::nullopt;
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::Gelu: return "gelu";
    case Activation::GeluTanh: return "gelu-tanh";
    case Activation::Relu: return "relu";
    case Activation::Silu: return "silu";
  }
  throw std::logic_error("activation_name: unknown activation");
}

double (*activation_fn(Activation a))(double) {
  switch (a) {
    case Activation::Gelu: return gelu;
    case Activation::GeluTanh: return gelu_tanh;
    case Activation::Relu: return relu;
    case Activation::Silu: return silu;
  }
  throw std::logic_error("activation_fn: unknown activation");
}

// ---- forward passes ---------------------------------------------------------------------------

FfnPass ffn_forward(const Tensor& x, const Tensor& W_1, const Tensor& b_1, const Tensor& W_2, const Tensor& b_2,
                    Activation act) {
  FfnPass p;
  p.z = add_bias(matmul(x, W_1), b_1);        // (F) or (T, F)
  p.h = apply(p.z, activation_fn(act));       // (F) or (T, F)
  p.y = add_bias(matmul(p.h, W_2), b_2);      // (D) or (T, D)
  return p;
}

SwigluPass swiglu_forward(const Tensor& x, const Tensor& W_gate, const Tensor& W_up, const Tensor& W_down) {
  if (W_gate.shape != W_up.shape)
    throw std::invalid_argument(fmt::format("swiglu_forward: W_gate {} and W_up {} must have the same shape",
                                            shape_str(W_gate.shape), shape_str(W_up.shape)));
  SwigluPass p;
  p.gate_pre = matmul(x, W_gate);             // (F) or (T, F)
  p.gate = apply(p.gate_pre, silu);           // (F) or (T, F)
  p.up = matmul(x, W_up);                     // (F) or (T, F)
  p.hidden = hadamard(p.gate, p.up);          // (F) or (T, F)
  p.y = matmul(p.hidden, W_down);             // (D) or (T, D)
  return p;
}

// ---- parameter counts -------------------------------------------------------------------------

FfnParams ffn_param_count(std::int64_t d_model, std::int64_t d_ff) {
  FfnParams p{d_model * d_ff, d_ff, d_ff * d_model, d_model, 0};
  p.total = p.W_1 + p.b_1 + p.W_2 + p.b_2;
  return p;
}

std::int64_t swiglu_param_count(std::int64_t d_model, std::int64_t hidden) { return 3 * d_model * hidden; }

std::int64_t swiglu_hidden(std::int64_t d_model, std::int64_t multiple_of) {
  if (d_model <= 0 || multiple_of <= 0)
    throw std::invalid_argument(fmt::format("swiglu_hidden: d_model {} and multiple_of {} must be positive",
                                            d_model, multiple_of));
  std::int64_t hidden = 2 * (4 * d_model) / 3;                        // LLaMA: int(2 * hidden_dim / 3)
  return (hidden + multiple_of - 1) / multiple_of * multiple_of;     // round up
}

// ---- key-value memory ---------------------------------------------------------------------------

MemoryRead ffn_as_memory(const Tensor& x, const Tensor& W_1, const Tensor& b_1, const Tensor& W_2,
                         const Tensor& b_2, Activation act, std::size_t top_k) {
  // x (D), W_1 (D, F), b_1 (F), W_2 (F, D), b_2 (D)
  if (x.rank() != 1 || W_1.rank() != 2 || W_2.rank() != 2 || b_1.rank() != 1 || b_2.rank() != 1 ||
      W_1.dim(0) != x.dim(0) || W_2.dim(0) != W_1.dim(1) || W_2.dim(1) != x.dim(0) || b_1.dim(0) != W_1.dim(1) ||
      b_2.dim(0) != x.dim(0))
    throw std::invalid_argument(fmt::format("ffn_as_memory: x {}, W_1 {}, b_1 {}, W_2 {}, b_2 {} do not fit",
                                            shape_str(x.shape), shape_str(W_1.shape), shape_str(b_1.shape),
                                            shape_str(W_2.shape), shape_str(b_2.shape)));
  std::size_t D = x.dim(0), F = W_1.dim(1);
  if (top_k == 0 || top_k > F)
    throw std::invalid_argument(fmt::format("ffn_as_memory: top_k {} must be in 1 … {}", top_k, F));
  double (*f)(double) = activation_fn(act);
  MemoryRead m{Tensor({F}), Tensor({F}), Tensor({F, D}), b_2, Tensor({top_k})};
  // pass 1: each key k_j (column j of W_1) against x, then the activation
  for (std::size_t j = 0; j < F; ++j) {
    double s = b_1.data[j];
    for (std::size_t i = 0; i < D; ++i) s = fused(x.data[i], W_1(i, j), s);
    m.match.data[j] = s;
    m.activation.data[j] = f(s);
  }
  // pass 2: each value v_j (row j of W_2) scaled by its key's activation
  for (std::size_t j = 0; j < F; ++j)
    for (std::size_t i = 0; i < D; ++i) m.contribution(j, i) = m.activation.data[j] * W_2(j, i);
  // pass 3: the output is the sum of the contributions (plus b_2)
  for (std::size_t j = 0; j < F; ++j)
    for (std::size_t i = 0; i < D; ++i) m.y.data[i] += m.contribution(j, i);
  std::vector<std::size_t> top = top_k_indices(m.activation, top_k);
  for (std::size_t k = 0; k < top_k; ++k) m.top_keys.data[k] = static_cast<double>(top[k]);
  return m;
}

// ---- helpers --------------------------------------------------------------------------------

std::vector<std::size_t> top_k_indices(const Tensor& v, std::size_t k) {
  if (v.rank() != 1) throw std::invalid_argument("top_k_indices: expected rank 1, got " + shape_str(v.shape));
  std::vector<std::size_t> idx(v.numel());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  k = std::min(k, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](std::size_t a, std::size_t b) { return v.data[a] > v.data[b] || (v.data[a] == v.data[b] && a < b); });
  idx.resize(k);
  return idx;
}

double fraction_of_total(const Tensor& v, std::size_t i) {
  if (v.rank() != 1 || i >= v.numel())
    throw std::invalid_argument(fmt::format("fraction_of_total: index {} out of {}", i, shape_str(v.shape)));
  double total = 0.0;
  for (double x : v.data) total += x;
  return total > 0.0 ? v.data[i] / total : 0.0;
}

Tensor linspace(double lo, double hi, std::size_t n) {
  if (n < 2) throw std::invalid_argument("linspace: need at least 2 points");
  Tensor out({n});
  for (std::size_t i = 0; i < n; ++i)
    out.data[i] = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1);
  return out;
}

double round_to(double x, int decimals) {
  double s = 1.0;  // 10^decimals, exact up to 10^22
  for (int i = 0; i < decimals; ++i) s *= 10.0;
  return std::round(x * s) / s;
}

}  // namespace attn

namespace attn {

std::size_t count_above(const Tensor& v, double threshold) {
  std::size_t n = 0;
  for (double x : v.data) n += x > threshold ? 1 : 0;
  return n;
}

double max_abs_where_nonpositive(const Tensor& z, const Tensor& h) {
  double worst = 0.0;
  for (std::size_t j = 0; j < z.numel(); ++j)
    if (z.data[j] <= 0) worst = std::max(worst, std::fabs(h.data[j]));
  return worst;
}

std::optional<std::size_t> smallest_above(const Tensor& v, double threshold) {
  std::optional<std::size_t> best;
  for (std::size_t j = 0; j < v.numel(); ++j)
    if (v.data[j] > threshold && (!best || v.data[j] < v.data[*best])) best = j;
  return best;
}

std::size_t index_of_min(const Tensor& v) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < v.numel(); ++j)
    if (v.data[j] < v.data[best]) best = j;
  return best;
}

GeluCheck check_printed_gelu(const Tensor& z, const Tensor& printed, int decimals) {
  GeluCheck c;
  c.exact = apply(z, gelu);         // (N)
  c.approx = apply(z, gelu_tanh);   // (N)
  c.rounded = Tensor(z.shape);      // (N)
  for (std::size_t i = 0; i < z.numel(); ++i) {
    c.rounded.data[i] = round_to(c.exact.data[i], decimals);
    c.right.push_back(std::fabs(c.rounded.data[i] - printed.data[i]) < 1e-9);
    c.tanh_explains.push_back(std::fabs(round_to(c.approx.data[i], decimals) - printed.data[i]) < 1e-9);
    c.wrong += c.right.back() ? 0 : 1;
  }
  return c;
}

}  // namespace attn
