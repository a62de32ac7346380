#include "text_task.h"
#include "libm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace attn::train {

namespace {
void put_window(Batch& b, std::size_t s, const std::vector<int>& ids, std::size_t at) {
  const std::size_t T = b.T;
  for (std::size_t t = 0; t < T; ++t) {
    b.tokens[s * T + t] = ids[at + t];
    b.targets[s * T + t] = ids[at + t + 1];
  }
}

Batch empty_batch(std::size_t B, std::size_t T) {
  Batch b;
  b.B = B, b.T = T;
  b.tokens.assign(B * T, 0);
  b.targets.assign(B * T, -1);
  b.repeat_targets.assign(B * T, -1);
  return b;
}
}  // namespace

void put_repeat_window(Batch& b, std::size_t s, const std::vector<int>& ids, std::size_t a, std::size_t k) {
  const std::size_t T = b.T;
  if (k < 1 || k >= T) throw std::invalid_argument("put_repeat_window: the lag must be in [1, T)");
  auto id = [&](std::size_t t) { return ids[a + (t < k ? t : t - k)]; };  // position t of the window (t ≤ T)
  for (std::size_t t = 0; t < T; ++t) {
    b.tokens[s * T + t] = id(t);
    b.targets[s * T + t] = id(t + 1);
    if (t >= k) b.repeat_targets[s * T + t] = id(t + 1);
  }
}

Batch text_batch(const std::vector<int>& ids, std::size_t B, std::size_t T, Rng& rng, double repeat_share) {
  if (ids.size() < T + 1) throw std::invalid_argument("text_batch: text shorter than a window");
  Batch b = empty_batch(B, T);
  const std::size_t starts = ids.size() - T;  // window starts 0 … ids.size() − T − 1
  for (std::size_t s = 0; s < B; ++s) {
    const auto a = static_cast<std::size_t>(rng.next_u64() % starts);
    if (repeat_share > 0.0 && rng.uniform() < repeat_share)
      put_repeat_window(b, s, ids, a, T / 4 + static_cast<std::size_t>(rng.next_u64() % (T / 2 + 1)));
    else
      put_window(b, s, ids, a);
  }
  return b;
}

Batch text_spread(const std::vector<int>& ids, std::size_t B, std::size_t T) {
  if (ids.size() < T + 1) throw std::invalid_argument("text_spread: text shorter than a window");
  Batch b = empty_batch(B, T);
  const std::size_t last = ids.size() - T - 1;
  for (std::size_t s = 0; s < B; ++s) put_window(b, s, ids, B > 1 ? last * s / (B - 1) : 0);
  return b;
}

double text_loss(const gpt::Gpt& m, const std::vector<int>& ids, std::size_t T, std::size_t batch, std::size_t* targets) {
  const std::size_t windows = ids.size() > T ? (ids.size() - 1) / T : 0;  // window w: ids[w·T … w·T + T]
  double sum = 0.0;
  std::size_t counted = 0;
  gpt::GptActs acts;
  for (std::size_t w0 = 0; w0 < windows; w0 += batch) {
    const std::size_t B = std::min(batch, windows - w0);
    Batch b = empty_batch(B, T);
    for (std::size_t s = 0; s < B; ++s) put_window(b, s, ids, (w0 + s) * T);
    gpt::gpt_forward(m, b.tokens.data(), b.targets.data(), B, T, acts);
    sum += acts.loss * static_cast<double>(B * T);  // acts.loss: the mean over the B·T targets
    counted += B * T;
  }
  if (targets != nullptr) *targets = counted;
  return counted ? sum / static_cast<double>(counted) : 0.0;
}

NgramLoss ngram_loss(const std::vector<int>& train, const std::vector<int>& heldout, std::size_t V) {
  std::vector<double> uni(V, 0.0), first(V, 0.0), followers(V, 0.0);
  // c(a, b), counted sparsely: the pairs the training text holds (key a·V + b), sorted, each with
  // its count. A dense V×V table would take 8·V² bytes whatever the text's length (22 GB at V = 53,000).
  std::vector<std::uint64_t> keys;  // [pairs seen]
  keys.reserve(train.size());
  for (int id : train) uni[static_cast<std::size_t>(id)] += 1;
  for (std::size_t i = 0; i + 1 < train.size(); ++i) {
    const auto a = static_cast<std::uint64_t>(train[i]), b = static_cast<std::uint64_t>(train[i + 1]);
    keys.push_back(a * V + b);
    first[a] += 1;  // c(a) as a first element of a pair
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint64_t> pair_key;  // [distinct pairs]
  std::vector<double> pair_count;       // [distinct pairs]
  for (std::uint64_t k : keys) {
    if (pair_key.empty() || pair_key.back() != k) {
      pair_key.push_back(k);
      pair_count.push_back(0);
      followers[k / V] += 1;
    }
    pair_count.back() += 1;
  }
  auto pair = [&](std::size_t a, std::size_t b) {
    const std::uint64_t k = static_cast<std::uint64_t>(a) * V + b;
    auto it = std::lower_bound(pair_key.begin(), pair_key.end(), k);
    return it != pair_key.end() && *it == k ? pair_count[static_cast<std::size_t>(it - pair_key.begin())] : 0.0;
  };
  const double N = static_cast<double>(train.size());
  auto p_uni = [&](std::size_t b) { return (uni[b] + 1) / (N + static_cast<double>(V)); };
  NgramLoss out;
  if (heldout.empty()) return out;
  for (std::size_t i = 0; i < heldout.size(); ++i) {
    const auto b = static_cast<std::size_t>(heldout[i]);
    out.unigram -= libm::log(p_uni(b));
    double p = p_uni(b);
    if (i > 0) {
      const auto a = static_cast<std::size_t>(heldout[i - 1]);
      if (first[a] > 0) p = (pair(a, b) + followers[a] * p_uni(b)) / (first[a] + followers[a]);
    }
    out.bigram -= libm::log(p);
  }
  out.unigram /= static_cast<double>(heldout.size());
  out.bigram /= static_cast<double>(heldout.size());
  return out;
}

}  // namespace attn::train
