#include "gate.h"

#include <cmath>
#include <stdexcept>

namespace attn {

GatedAttentionPass gated_attention(const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
                                   const Tensor& W_O, const Tensor& W_G, std::size_t n_heads, bool causal) {
  GatedAttentionPass g;
  // pass 1: ordinary multi-head attention up to the concat (and its ungated output)
  g.attn = grouped_attention(X, W_Q, W_K, W_V, W_O, n_heads, n_heads, causal);
  g.output_ungated = g.attn.output;             // (T, D) concat W_O
  // pass 2: the gate, computed from the same input as Q, K and V
  g.gate_logits = matmul(X, W_G);               // (T, H*Dh)
  g.gate = apply(g.gate_logits, sigmoid);       // (T, H*Dh) = gate_values(X, W_G)
  // pass 3: scale each head's output, channel by channel, then merge the heads with W_O
  g.gated = hadamard(g.attn.concat, g.gate);    // (T, H*Dh)
  g.output = matmul(g.gated, W_O);              // (T, D)
  return g;
}

namespace {

// Solve A a = b for a small dense A (n, n) by Gaussian elimination with partial pivoting.
// Throws when A is (numerically) singular.
std::vector<double> solve(Tensor A, std::vector<double> b) {
  std::size_t n = A.dim(0);
  double scale = max_abs(A);
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t piv = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(A(r, col)) > std::fabs(A(piv, col))) piv = r;
    if (std::fabs(A(piv, col)) <= 1e-12 * scale)
      throw std::invalid_argument("close_gate: the token vectors are linearly dependent (more tokens than d_model?)");
    for (std::size_t c = 0; c < n; ++c) std::swap(A(col, c), A(piv, c));
    std::swap(b[col], b[piv]);
    for (std::size_t r = col + 1; r < n; ++r) {
      double f = A(r, col) / A(col, col);
      for (std::size_t c = col; c < n; ++c) A(r, c) -= f * A(col, c);
      b[r] -= f * b[col];
    }
  }
  std::vector<double> a(n);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t c = i + 1; c < n; ++c) s -= A(i, c) * a[c];
    a[i] = s / A(i, i);
  }
  return a;
}

}  // namespace

Tensor close_gate(const Tensor& X, const Tensor& W_G, std::size_t s, double logit) {
  std::size_t T = X.dim(0), D = X.dim(1), C = W_G.dim(1);
  if (T > D) throw std::invalid_argument("close_gate: needs at most d_model tokens");
  // pass 1: the dual vector u = Xᵀ a with (X Xᵀ) a = e_s
  std::vector<double> e(T, 0.0);
  e[s] = 1.0;
  std::vector<double> a = solve(matmul(X, transpose(X)), e);  // (T)
  Tensor u = matmul(Tensor({T}, a), X);                        // (D)
  // pass 2: how far token s's logits are from the target
  Tensor delta = matmul(row_block(X, s, 1), W_G);              // (1, C) x_s W_G
  for (double& v : delta.data) v = logit - v;
  // pass 3: W_G + u ⊗ delta
  Tensor out = W_G;                                            // (D, C)
  for (std::size_t i = 0; i < D; ++i)
    for (std::size_t c = 0; c < C; ++c) out(i, c) += u.data[i] * delta.data[c];
  return out;
}

Tensor gate_values(const Tensor& X, const Tensor& W_G) {
  return apply(matmul(X, W_G), sigmoid);  // (T, C)
}

ValueGatedPass value_gated_attention(const AttentionPass& p, const Tensor& gate, const Tensor& W_O) {
  if (p.V.shape != gate.shape || p.weights.rank() != 3)
    throw std::invalid_argument("value_gated_attention: gate " + shape_str(gate.shape) + " must match V " +
                                shape_str(p.V.shape) + " (one value head per query head)");
  std::size_t H = p.weights.dim(0);
  ValueGatedPass v;
  v.V_gated = hadamard(p.V, gate);                         // (T, H*Dh)
  v.heads = bmm(p.weights, split_heads(v.V_gated, H));     // (H, T, Dh)
  v.concat = merge_heads(v.heads);                         // (T, H*Dh)
  v.output = matmul(v.concat, W_O);                        // (T, D)
  return v;
}

std::int64_t gate_param_count(std::int64_t d_model, std::int64_t n_heads, std::int64_t head_dim) {
  return d_model * n_heads * head_dim;
}

}  // namespace attn
