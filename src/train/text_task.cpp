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

namespace {
// Sorted distinct keys with their counts, and the number of distinct keys per key / V (the followers
// of each context). keys: every n-gram of the text as a number (sorted here).
struct SparseCounts {
  std::vector<std::uint64_t> key;    // [distinct n-grams]
  std::vector<double> count;         // [distinct n-grams]
  std::vector<std::uint64_t> ctx;    // [distinct contexts]: key / V
  std::vector<double> ctx_count;     // [distinct contexts]: c(context) as the first n − 1 of an n-gram
  std::vector<double> ctx_followers; // [distinct contexts]: distinct n-grams with that context
};

SparseCounts sparse_counts(std::vector<std::uint64_t> keys, std::uint64_t V) {
  std::sort(keys.begin(), keys.end());
  SparseCounts c;
  for (std::uint64_t k : keys) {
    const bool new_key = c.key.empty() || c.key.back() != k;
    if (new_key) {
      c.key.push_back(k);
      c.count.push_back(0);
    }
    c.count.back() += 1;
    if (c.ctx.empty() || c.ctx.back() != k / V) {
      c.ctx.push_back(k / V);
      c.ctx_count.push_back(0);
      c.ctx_followers.push_back(0);
    }
    c.ctx_count.back() += 1;
    if (new_key) c.ctx_followers.back() += 1;
  }
  return c;
}

double find(const std::vector<std::uint64_t>& keys, const std::vector<double>& values, std::uint64_t k) {
  auto it = std::lower_bound(keys.begin(), keys.end(), k);
  return it != keys.end() && *it == k ? values[static_cast<std::size_t>(it - keys.begin())] : 0.0;
}
}  // namespace

NgramLoss ngram_loss(const std::vector<int>& train, const std::vector<int>& heldout, std::size_t V) {
  if (V >= (std::size_t{1} << 21)) throw std::invalid_argument("ngram_loss: V^3 must fit 64 bits");
  const auto U = static_cast<std::uint64_t>(V);
  std::vector<double> uni(V, 0.0);
  for (int id : train) uni[static_cast<std::size_t>(id)] += 1;
  // c(a, b) and c(a, b, c), counted sparsely: a dense V×V table would take 8·V² bytes whatever the
  // text's length (22 GB at V = 53,000).
  std::vector<std::uint64_t> keys2, keys3;  // [pairs in the text], [triples in the text]
  keys2.reserve(train.size());
  keys3.reserve(train.size());
  auto id = [&](std::size_t i) { return static_cast<std::uint64_t>(train[i]); };
  for (std::size_t i = 0; i + 1 < train.size(); ++i) keys2.push_back(id(i) * U + id(i + 1));
  for (std::size_t i = 0; i + 2 < train.size(); ++i) keys3.push_back((id(i) * U + id(i + 1)) * U + id(i + 2));
  const SparseCounts bi = sparse_counts(std::move(keys2), U), tri = sparse_counts(std::move(keys3), U);
  const double N = static_cast<double>(train.size());
  auto p_uni = [&](std::size_t b) { return (uni[b] + 1) / (N + static_cast<double>(V)); };
  auto p_bi = [&](std::uint64_t a, std::uint64_t b) {
    const double ca = find(bi.ctx, bi.ctx_count, a);
    if (ca == 0) return p_uni(b);
    const double na = find(bi.ctx, bi.ctx_followers, a);
    return (find(bi.key, bi.count, a * U + b) + na * p_uni(b)) / (ca + na);
  };
  auto p_tri = [&](std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    const std::uint64_t ab = a * U + b;
    const double cab = find(tri.ctx, tri.ctx_count, ab);
    if (cab == 0) return p_bi(b, c);
    const double nab = find(tri.ctx, tri.ctx_followers, ab);
    return (find(tri.key, tri.count, ab * U + c) + nab * p_bi(b, c)) / (cab + nab);
  };
  NgramLoss out;
  if (heldout.empty()) return out;
  auto h = [&](std::size_t i) { return static_cast<std::uint64_t>(heldout[i]); };
  for (std::size_t i = 0; i < heldout.size(); ++i) {
    const double pu = p_uni(h(i));
    const double pb = i > 0 ? p_bi(h(i - 1), h(i)) : pu;
    const double pt = i > 1 ? p_tri(h(i - 2), h(i - 1), h(i)) : pb;
    out.unigram -= libm::log(pu);
    out.bigram -= libm::log(pb);
    out.trigram -= libm::log(pt);
  }
  const double n = static_cast<double>(heldout.size());
  out.unigram /= n;
  out.bigram /= n;
  out.trigram /= n;
  return out;
}

}  // namespace attn::train
