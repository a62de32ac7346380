#include "symmetry.h"

#include <algorithm>
#include <cmath>

namespace attn {

HeadWeights draw_head(Rng& rng, std::size_t D, std::size_t Dh, double std) {
  HeadWeights h;
  h.W_Q = randn(rng, {D, Dh}, std);  // (D, Dh)
  h.W_K = randn(rng, {D, Dh}, std);  // (D, Dh)
  h.W_V = randn(rng, {D, Dh}, std);  // (D, Dh)
  h.W_O = randn(rng, {Dh, D}, std);  // (Dh, D)
  return h;
}

MhaWeights assemble_heads(const std::vector<HeadWeights>& heads) {
  std::vector<Tensor> q, k, v, o;
  for (const HeadWeights& h : heads) {
    q.push_back(h.W_Q);
    k.push_back(h.W_K);
    v.push_back(h.W_V);
    o.push_back(transpose(h.W_O));  // rows of W_O become columns, to reuse concat_cols
  }
  return {concat_cols(q), concat_cols(k), concat_cols(v), transpose(concat_cols(o))};
}

HeadWeights head_of(const MhaWeights& w, std::size_t n_heads, std::size_t i) {
  std::size_t Dh = w.W_Q.dim(1) / n_heads;
  return {col_block(w.W_Q, i, Dh), col_block(w.W_K, i, Dh), col_block(w.W_V, i, Dh), row_block(w.W_O, i, Dh)};
}

double head_gap(const MhaWeights& w, std::size_t n_heads, std::size_t a, std::size_t b) {
  HeadWeights A = head_of(w, n_heads, a), B = head_of(w, n_heads, b);
  return std::max({max_abs_diff(A.W_Q, B.W_Q), max_abs_diff(A.W_K, B.W_K), max_abs_diff(A.W_V, B.W_V),
                   max_abs_diff(A.W_O, B.W_O)});
}

std::vector<double> grad_max(const MhaWeights& g) {
  return {max_abs(g.W_Q), max_abs(g.W_K), max_abs(g.W_V), max_abs(g.W_O)};
}

Starts make_starts(Rng& rng, std::size_t D, std::size_t H, std::size_t Dh, double std) {
  HeadWeights first = draw_head(rng, D, Dh, std);
  std::vector<HeadWeights> same(H, first), different{first};
  for (std::size_t i = 1; i < H; ++i) different.push_back(draw_head(rng, D, Dh, std));
  MhaWeights zero{Tensor({D, H * Dh}), Tensor({D, H * Dh}), Tensor({D, H * Dh}), Tensor({H * Dh, D})};
  return {assemble_heads(same), assemble_heads(different), zero};
}

Tensor teacher_target(Rng& rng, const Tensor& X, std::size_t H, std::size_t Dh) {
  std::size_t D = X.dim(1);
  std::vector<HeadWeights> heads;
  for (std::size_t i = 0; i < H; ++i) heads.push_back(draw_head(rng, D, Dh, 1.0 / std::sqrt(static_cast<double>(D))));
  return mha_forward(X, assemble_heads(heads), H).output;  // (T, D)
}

TrainRun train_toy(const Tensor& X, const Tensor& Y, MhaWeights w, std::size_t n_heads, std::size_t steps, double lr) {
  TrainRun run;
  for (std::size_t step = 0;; ++step) {
    MhaActs a = mha_forward(X, w, n_heads);
    run.loss.push_back(mse_loss(a.output, Y));
    run.gap.push_back(head_gap(w, n_heads, 0, 1));
    if (step == steps) break;
    MhaWeights g = mha_backward(X, w, a, mse_backward(a.output, Y), n_heads);
    if (step == 0) run.first_grads = g;
    sgd_step(w, g, lr);
    for (const Tensor* t : {&w.W_Q, &w.W_K, &w.W_V, &w.W_O})
      for (double v : t->data)
        if (!(std::fabs(v) <= kDivergedWeight)) run.diverged_at = step + 1;  // also catches NaN
    if (run.diverged_at) break;
  }
  run.final = w;
  return run;
}

}  // namespace attn
