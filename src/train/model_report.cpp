#include "model_report.h"

#include <algorithm>

namespace attn::train {

Batch evaluation_batch(const TrainConfig& c) { return evaluation_batch(c, c.task); }

Batch evaluation_batch(const TrainConfig& c, Task task) {
  Rng eval_rng(c.seed ^ 0x8CB92BA72F3D8DD7ULL);  // as train() seeds it (trainer.cpp)
  return make_batch(task, c.eval_batch, c.model.n_positions, c.model.vocab, eval_rng);
}

RepeatSpan repeat_span(const Batch& b, std::size_t s) {
  RepeatSpan r;
  const int* rt = b.repeat_targets.data() + s * b.T;
  std::size_t n = 0;
  for (std::size_t t = 0; t < b.T; ++t)
    if (rt[t] >= 0) {
      if (n == 0) r.second = t;
      ++n;
    }
  if (n == 0) return r;
  r.length = n + 1;  // the targets run from the second copy's first token to its next-to-last
  r.first = r.second - r.length;
  return r;
}

void add_offset_score(const Tensor& w, std::size_t k, double& sum, std::size_t& n) {
  for (std::size_t t = k; t < w.dim(0); ++t) {
    sum += w(t, t - k);
    ++n;
  }
}

namespace {

double repeat_mean(const gpt::GptActs& a, const Batch& b, std::size_t V) {
  std::vector<double> losses(b.B * b.T, 0.0);
  gpt::crossentropy_forward(losses.data(), a.probs.data(), b.repeat_targets.data(), b.B * b.T, V);
  double s = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < losses.size(); ++i)
    if (b.repeat_targets[i] >= 0) s += losses[i], ++n;
  return n ? s / static_cast<double>(n) : 0.0;
}

// train()'s choice: every head past layer 1 scoring ≥ 0.5, or the best one past layer 1.
std::vector<std::pair<std::size_t, std::size_t>> induction_heads(const Tensor& ind) {
  const std::size_t L = ind.dim(0), H = ind.dim(1), from = L > 1 ? 1 : 0;
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::pair<std::size_t, std::size_t> best{from, 0};
  for (std::size_t l = from; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      if (ind(l, h) >= 0.5) out.push_back({l, h});
      if (ind(l, h) > ind(best.first, best.second)) best = {l, h};
    }
  if (out.empty()) out.push_back(best);
  return out;
}

}  // namespace

ModelReport analyse_model(const gpt::Gpt& m, const Batch& eval, std::size_t shown) {
  const std::size_t L = m.config.n_layer, H = m.config.n_head, T = eval.T, V = m.config.vocab;
  gpt::GptActs a;
  gpt::gpt_forward(m, eval.tokens.data(), eval.targets.data(), eval.B, eval.T, a);
  ModelReport r;
  r.loss = a.loss;
  r.repeat_loss = repeat_mean(a, eval, V);
  r.scores = head_scores(m, a, eval.tokens);
  r.offset = Tensor({L, H});
  r.attention = Tensor({L, H, T, T});
  const std::size_t k = T / 2 - 1;
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      double sum = 0.0;
      std::size_t n = 0;
      for (std::size_t b = 0; b < eval.B; ++b) add_offset_score(gpt::attention_of(m, a, l, h, b), k, sum, n);
      r.offset(l, h) = n ? sum / static_cast<double>(n) : 0.0;
      Tensor w = gpt::attention_of(m, a, l, h, shown);  // (T, T)
      std::copy(w.data.begin(), w.data.end(), r.attention.data.begin() + static_cast<std::ptrdiff_t>((l * H + h) * T * T));
    }
  r.ablated = induction_heads(r.scores.induction);
  std::vector<std::vector<double>> gates(L);
  for (auto [l, h] : r.ablated) {
    if (gates[l].empty()) gates[l].assign(H, 1.0);
    gates[l][h] = 0.0;
  }
  gpt::gpt_forward(m, eval.tokens.data(), eval.targets.data(), eval.B, eval.T, a, &gates);
  r.repeat_loss_ablated = repeat_mean(a, eval, V);
  return r;
}

}  // namespace attn::train
