#pragma once
// Synthetic next-token tasks for `attnlab train`, drawn from our own generator (deterministic).
//   induction    each sequence: a random prefix of length p, then h distinct tokens (none of them in
//                the prefix), then the same h tokens again, then random filler to T; h and p drawn
//                per sequence, so the repeat starts anywhere and position cannot help: only a
//                previous-token head feeding an induction head predicts the second copy.
//   repeat-half  a random first half, then the same half again: the repeat always starts at T/2,
//                so one positional head (t attends to t − T/2 + 1) solves it — the shortcut.
//   prev-minus-first  random tokens; the target at t ≥ 1 is (x_{t−1} − x_0) mod V: it needs two
//                relations at once (the previous token and the first), one head each.
//   prev-minus-two-back  random tokens; the target at t ≥ 2 is (x_{t−1} − x_{t−2}) mod V: two
//                relations again, both relative, so position 0 cannot tell one value from the other.
// Loss is taken on every next-token position (target -1 where there is none).
#include <cstddef>
#include <string>
#include <vector>

#include "random.h"

namespace attn::train {

//   text         windows of a real text, one character a token (text_task.h): the next character
//                at every position.
enum class Task { Induction, RepeatHalf, PrevMinusFirst, PrevMinusTwoBack, Text };

std::vector<std::string> task_names();                 // "induction", "repeat-half", "prev-minus-first", "prev-minus-two-back"
bool parse_task(const std::string& name, Task& out);   // false if unknown
std::string task_name(Task t);

struct Batch {
  std::size_t B = 0, T = 0;
  std::vector<int> tokens;          // (B, T)
  std::vector<int> targets;         // (B, T): the next token, -1 where none is asked for
  std::vector<int> repeat_targets;  // (B, T): the targets inside the second copy only (predictable
                                    // from the first), -1 elsewhere; all -1 for the two difference tasks
};

// The smallest vocabulary and length each task needs (the CLI checks them first).
std::size_t task_min_vocab(Task t, std::size_t T);
std::size_t task_min_seq_len(Task t);
// Induction's repeat length h is drawn from [lo, hi]: [8, 15] at T = 32, scaled with T.
void induction_span(std::size_t T, std::size_t& lo, std::size_t& hi);

Batch make_batch(Task task, std::size_t B, std::size_t T, std::size_t V, Rng& rng);

}  // namespace attn::train
