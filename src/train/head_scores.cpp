#include "head_scores.h"

#include <stdexcept>

namespace attn::train {

void add_head_scores(const Tensor& w, const int* tokens, ScoreSums& s) {
  const std::size_t T = w.dim(0);
  for (std::size_t t = 1; t < T; ++t) {
    s.prev += w(t, t - 1);
    s.first += w(t, 0);
    s.self += w(t, t);
    ++s.n_rows;
    for (std::size_t j = t - 1; j-- > 0;) {  // j from t − 2 down to 0
      if (tokens[j] == tokens[t]) {
        s.induction += w(t, j + 1);
        ++s.n_induction;
        break;
      }
    }
  }
}

HeadScores head_scores(const gpt::Gpt& m, const gpt::GptActs& a, const std::vector<int>& tokens) {
  const std::size_t L = m.config.n_layer, H = m.config.n_head;
  HeadScores r{Tensor({L, H}), Tensor({L, H}), Tensor({L, H}), Tensor({L, H})};
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      ScoreSums s;
      for (std::size_t b = 0; b < a.B; ++b) add_head_scores(gpt::attention_of(m, a, l, h, b), tokens.data() + b * a.T, s);
      auto mean = [](double x, std::size_t n) { return n ? x / static_cast<double>(n) : 0.0; };
      r.prev_token(l, h) = mean(s.prev, s.n_rows);
      r.first_token(l, h) = mean(s.first, s.n_rows);
      r.self(l, h) = mean(s.self, s.n_rows);
      r.induction(l, h) = mean(s.induction, s.n_induction);
    }
  return r;
}

std::vector<long> pair_repeat_targets(const std::vector<int>& tokens) {
  std::vector<long> out(tokens.size(), -1);
  for (std::size_t t = 3; t < tokens.size(); ++t)
    for (std::size_t j = t - 2; j-- > 1;)  // j from t − 3 down to 1
      if (tokens[j] == tokens[t] && tokens[j - 1] == tokens[t - 1]) {
        out[t] = static_cast<long>(j + 1);
        break;
      }
  return out;
}

Tensor pair_induction_scores(const Tensor& attention, const std::vector<long>& targets, double* even) {
  const std::size_t L = attention.dim(0), H = attention.dim(1), T = attention.dim(2);
  if (targets.size() != T) throw std::invalid_argument("pair_induction_scores: one target per position");
  Tensor out({L, H});
  std::size_t n = 0;
  double spread = 0.0;
  for (std::size_t t = 0; t < T; ++t)
    if (targets[t] >= 0) ++n, spread += 1.0 / static_cast<double>(t + 1);
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      double s = 0.0;
      for (std::size_t t = 0; t < T; ++t)
        if (targets[t] >= 0) s += attention.data[((l * H + h) * T + t) * T + static_cast<std::size_t>(targets[t])];
      out(l, h) = n ? s / static_cast<double>(n) : 0.0;
    }
  if (even) *even = n ? spread / static_cast<double>(n) : 0.0;
  return out;
}

BestHead best_head(const Tensor& s, std::size_t from, std::size_t to) {
  BestHead b;
  for (std::size_t l = from; l < to; ++l)
    for (std::size_t h = 0; h < s.dim(1); ++h)
      if (s(l, h) > b.score) b = {l, h, s(l, h)};
  return b;
}

}  // namespace attn::train
