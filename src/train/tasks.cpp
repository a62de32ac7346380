#include "tasks.h"

#include <algorithm>
#include <stdexcept>

namespace attn::train {

std::vector<std::string> task_names() { return {"induction", "repeat-half", "prev-minus-first", "prev-minus-two-back", "text"}; }

std::string task_name(Task t) {
  switch (t) {
    case Task::Induction: return "induction";
    case Task::RepeatHalf: return "repeat-half";
    case Task::PrevMinusFirst: return "prev-minus-first";
    case Task::PrevMinusTwoBack: return "prev-minus-two-back";
    case Task::Text: return "text";
  }
  return "";
}

bool parse_task(const std::string& name, Task& out) {
  for (Task t : {Task::Induction, Task::RepeatHalf, Task::PrevMinusFirst, Task::PrevMinusTwoBack, Task::Text})
    if (task_name(t) == name) {
      out = t;
      return true;
    }
  return false;
}

void induction_span(std::size_t T, std::size_t& lo, std::size_t& hi) {
  lo = std::max<std::size_t>(2, T / 4);
  hi = std::max(lo, (T * 15) / 32);
}

std::size_t task_min_seq_len(Task t) { return t == Task::Induction ? 8 : 4; }

std::size_t task_min_vocab(Task t, std::size_t T) {
  if (t != Task::Induction) return 2;
  std::size_t lo = 0, hi = 0;
  induction_span(T, lo, hi);
  return hi + 2;  // h distinct tokens and at least two others for the prefix
}

namespace {
std::size_t below(Rng& rng, std::size_t n) { return static_cast<std::size_t>(rng.next_u64() % n); }
}  // namespace

Batch make_batch(Task task, std::size_t B, std::size_t T, std::size_t V, Rng& rng) {
  if (task == Task::Text) throw std::invalid_argument("make_batch: the text task draws its windows from the text (text_task.h)");
  if (T < task_min_seq_len(task) || V < task_min_vocab(task, T)) throw std::invalid_argument("make_batch: sizes too small");
  Batch b;
  b.B = B;
  b.T = T;
  b.tokens.assign(B * T, 0);
  b.targets.assign(B * T, -1);
  b.repeat_targets.assign(B * T, -1);
  for (std::size_t s = 0; s < B; ++s) {
    int* x = b.tokens.data() + s * T;
    int* y = b.targets.data() + s * T;
    int* r = b.repeat_targets.data() + s * T;
    if (task == Task::PrevMinusFirst) {
      for (std::size_t t = 0; t < T; ++t) x[t] = static_cast<int>(below(rng, V));
      for (std::size_t t = 1; t < T; ++t)
        y[t] = static_cast<int>((static_cast<std::size_t>(x[t - 1]) + V - static_cast<std::size_t>(x[0])) % V);
      continue;
    }
    if (task == Task::PrevMinusTwoBack) {
      for (std::size_t t = 0; t < T; ++t) x[t] = static_cast<int>(below(rng, V));
      for (std::size_t t = 2; t < T; ++t)
        y[t] = static_cast<int>((static_cast<std::size_t>(x[t - 1]) + V - static_cast<std::size_t>(x[t - 2])) % V);
      continue;
    }
    std::size_t h = T / 2, p = 0;
    if (task == Task::Induction) {
      std::size_t lo = 0, hi = 0;
      induction_span(T, lo, hi);
      h = lo + below(rng, hi - lo + 1);
      p = below(rng, T - 2 * h + 1);
      // h distinct tokens: a partial Fisher-Yates shuffle of 0 … V-1
      std::vector<int> pool(V);
      for (std::size_t i = 0; i < V; ++i) pool[i] = static_cast<int>(i);
      for (std::size_t i = 0; i < h; ++i) std::swap(pool[i], pool[i + below(rng, V - i)]);
      for (std::size_t t = 0; t < p; ++t) x[t] = pool[h + below(rng, V - h)];
      for (std::size_t i = 0; i < h; ++i) x[p + i] = x[p + h + i] = pool[i];
      for (std::size_t t = p + 2 * h; t < T; ++t) x[t] = static_cast<int>(below(rng, V));
    } else {
      for (std::size_t i = 0; i < h; ++i) x[i] = static_cast<int>(below(rng, V));
      for (std::size_t i = h; i < T; ++i) x[i] = x[i - h];
    }
    for (std::size_t t = 0; t + 1 < T; ++t) y[t] = x[t + 1];
    for (std::size_t t = p + h; t + 1 < p + 2 * h; ++t) r[t] = x[t + 1];
  }
  return b;
}

}  // namespace attn::train
