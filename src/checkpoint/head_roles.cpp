// Head role scores. See head_roles.h.
#include "head_roles.h"

#include <algorithm>
#include <stdexcept>

namespace attn {

void score_positional_roles(const std::vector<Tensor>& weights, HeadRoleScores& out) {
  std::size_t L = weights.size(), H = L ? weights[0].dim(0) : 0, T = L ? weights[0].dim(1) : 0;
  if (T < 2) throw std::invalid_argument("head roles need at least 2 tokens");
  out.previous = Tensor({L, H});
  out.first = Tensor({L, H});
  out.self = Tensor({L, H});
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      double p = 0, f = 0, s = 0;
      for (std::size_t i = 1; i < T; ++i) {
        p += weights[l](h, i, i - 1);
        f += weights[l](h, i, 0);
        s += weights[l](h, i, i);
      }
      double n = static_cast<double>(T - 1);
      out.previous(l, h) = p / n;
      out.first(l, h) = f / n;
      out.self(l, h) = s / n;
    }
}

Tensor induction_scores(const std::vector<Tensor>& weights, std::size_t T0) {
  std::size_t L = weights.size(), H = L ? weights[0].dim(0) : 0;
  if (T0 < 2 || (L && weights[0].dim(1) != 2 * T0)) throw std::invalid_argument("induction needs the doubled text");
  Tensor out({L, H});
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      double s = 0;
      for (std::size_t i = T0; i < 2 * T0; ++i) s += weights[l](h, i, i - T0 + 1);
      out(l, h) = s / static_cast<double>(T0);
    }
  return out;
}

void score_inner_repeats(const std::vector<Tensor>& weights, const std::vector<std::int64_t>& ids, HeadRoleScores& out) {
  const std::size_t L = weights.size(), H = L ? weights[0].dim(0) : 0, T = ids.size();
  if (L && weights[0].dim(1) != T) throw std::invalid_argument("score_inner_repeats: weights and ids differ in length");
  // targets[i]: the positions that followed an earlier occurrence of ids[i] (j + 1 for ids[j] = ids[i], j < i)
  std::vector<std::vector<std::size_t>> targets(T);
  for (std::size_t i = 1; i < T; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (ids[j] == ids[i]) targets[i].push_back(j + 1);  // j + 1 ≤ i: the query may see it; distinct as j is
  out.repeat_queries = 0;
  out.repeat_even = 0.0;
  for (std::size_t i = 0; i < T; ++i)
    if (!targets[i].empty()) {
      ++out.repeat_queries;
      out.repeat_even += static_cast<double>(targets[i].size()) / static_cast<double>(i + 1);
    }
  if (out.repeat_queries == 0) {
    out.repeat = Tensor();
    return;
  }
  const auto n = static_cast<double>(out.repeat_queries);
  out.repeat_even /= n;
  out.repeat = Tensor({L, H});
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      double s = 0;
      for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j1 : targets[i]) s += weights[l](h, i, j1);
      out.repeat(l, h) = s / n;
    }
}

std::vector<HeadRef> top_heads(const Tensor& scores, std::size_t k) {
  std::vector<HeadRef> all;
  for (std::size_t l = 0; l < scores.dim(0); ++l)
    for (std::size_t h = 0; h < scores.dim(1); ++h) all.push_back({l, h, scores(l, h)});
  std::stable_sort(all.begin(), all.end(), [](const HeadRef& a, const HeadRef& b) { return a.score > b.score; });
  if (all.size() > k) all.resize(k);
  return all;
}

double even_share(std::size_t T, std::size_t from) {
  double s = 0;
  for (std::size_t i = from; i < T; ++i) s += 1.0 / static_cast<double>(i + 1);
  return T > from ? s / static_cast<double>(T - from) : 0.0;
}

double role_threshold(double even) { return std::max(kRoleShare, kRoleOverEven * even); }

std::vector<HeadRef> heads_with_role(const Tensor& scores, double threshold) {
  std::vector<HeadRef> all = top_heads(scores, scores.numel()), out;
  for (const HeadRef& h : all)
    if (h.score >= threshold) out.push_back(h);
  return out;
}

}  // namespace attn
