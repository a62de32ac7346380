#include "backprop.h"

#include <cmath>
#include <stdexcept>

#include "attention.h"

namespace attn {

MhaActs mha_forward(const Tensor& X, const MhaWeights& w, std::size_t n_heads) {
  MhaActs a;
  a.Q_heads = split_heads(matmul(X, w.W_Q), n_heads);     // (H, T, Dh)
  a.K_heads = split_heads(matmul(X, w.W_K), n_heads);     // (H, T, Dh)
  a.V_heads = split_heads(matmul(X, w.W_V), n_heads);     // (H, T, Dh)
  HeadsAttention h = multi_head_attention(a.Q_heads, a.K_heads, a.V_heads, false);
  a.weights = std::move(h.weights);                       // (H, T, T)
  a.concat = merge_heads(h.heads);                        // (T, H*Dh)
  a.output = matmul(a.concat, w.W_O);                     // (T, D)
  return a;
}

double mse_loss(const Tensor& output, const Tensor& Y) {
  double s = 0.0;
  for (std::size_t i = 0; i < output.numel(); ++i) s += (output.data[i] - Y.data[i]) * (output.data[i] - Y.data[i]);
  return s / static_cast<double>(output.numel());
}

Tensor mse_backward(const Tensor& output, const Tensor& Y) {
  return scale(sub(output, Y), 2.0 / static_cast<double>(output.numel()));  // (T, D)
}

void matmul_backward(const Tensor& dout, const Tensor& inp, const Tensor& W, Tensor* dinp, Tensor* dW) {
  if (dinp != nullptr) *dinp = matmul(dout, transpose(W));  // (M, K)
  if (dW != nullptr) *dW = matmul(transpose(inp), dout);      // (K, N)
}

Tensor softmax_backward(const Tensor& w, const Tensor& dw) {
  if (w.shape != dw.shape) throw std::invalid_argument("softmax_backward: shapes " + shape_str(w.shape) + " and " + shape_str(dw.shape));
  std::size_t N = w.shape.back();
  Tensor ds(w.shape);
  for (std::size_t r = 0; r < w.numel() / N; ++r) {
    const double* wr = &w.data[r * N];
    const double* dwr = &dw.data[r * N];
    double dot = 0.0;  // Σ_j dw_j w_j
    for (std::size_t j = 0; j < N; ++j) dot += dwr[j] * wr[j];
    for (std::size_t j = 0; j < N; ++j) ds.data[r * N + j] = wr[j] * (dwr[j] - dot);
  }
  return ds;
}

MhaWeights mha_backward(const Tensor& X, const MhaWeights& w, const MhaActs& a, const Tensor& doutput,
                        std::size_t n_heads) {
  MhaWeights g;
  // backward pass 1: output = concat W_O
  Tensor dconcat;  // (T, H*Dh)
  matmul_backward(doutput, a.concat, w.W_O, &dconcat, &g.W_O);
  // backward pass 2: per head, heads_i = weights_i V_i and weights_i = softmax(Q_i K_iᵀ / √Dh)
  Tensor dheads = split_heads(dconcat, n_heads);  // (H, T, Dh)
  double inv_sqrt_dk = 1.0 / std::sqrt(static_cast<double>(a.Q_heads.dim(2)));
  std::vector<Tensor> dQ, dK, dV;
  for (std::size_t h = 0; h < n_heads; ++h) {
    Tensor wts = slice0(a.weights, h), dh = slice0(dheads, h);          // (T, T), (T, Dh)
    Tensor Qh = slice0(a.Q_heads, h), Kh = slice0(a.K_heads, h), Vh = slice0(a.V_heads, h);  // (T, Dh)
    Tensor dweights, dVh;                                                // (T, T), (T, Dh)
    matmul_backward(dh, wts, Vh, &dweights, &dVh);
    Tensor dscores = scale(softmax_backward(wts, dweights), inv_sqrt_dk);  // (T, T), with the 1/√Dh
    dQ.push_back(matmul(dscores, Kh));             // (T, Dh)
    dK.push_back(matmul(transpose(dscores), Qh));  // (T, Dh)
    dV.push_back(dVh);
  }
  // backward pass 3: Q = X W_Q, K = X W_K, V = X W_V (dX is not needed: X is the input)
  matmul_backward(merge_heads(stack0(dQ)), X, w.W_Q, nullptr, &g.W_Q);
  matmul_backward(merge_heads(stack0(dK)), X, w.W_K, nullptr, &g.W_K);
  matmul_backward(merge_heads(stack0(dV)), X, w.W_V, nullptr, &g.W_V);
  return g;
}

void sgd_step(MhaWeights& w, const MhaWeights& g, double lr) {
  w.W_Q = sub(w.W_Q, scale(g.W_Q, lr));
  w.W_K = sub(w.W_K, scale(g.W_K, lr));
  w.W_V = sub(w.W_V, scale(g.W_V, lr));
  w.W_O = sub(w.W_O, scale(g.W_O, lr));
}

}  // namespace attn
