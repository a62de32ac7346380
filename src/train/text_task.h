#pragma once
// Next-character prediction on a real text (`attnlab train --task text`): the text arrives here as
// ids already (its tokenizer is src/tokenizer/char_vocab.h); this file draws the windows, measures
// held-out loss and the n-gram baselines a trained model must beat.
//
//   ids      the corpus as character ids, in order
//   window   T + 1 consecutive ids: tokens are the first T, targets the next T (loss on every position)
#include <cstddef>
#include <vector>

#include "gpt.h"
#include "random.h"
#include "tasks.h"

namespace attn::train {

struct TextData {
  std::vector<int> train;    // the first 95% of the text: the only part training sees
  std::vector<int> heldout;  // the last 5%: evaluation only
  std::size_t vocab = 0;
};

// B windows at positions drawn uniformly from [0, ids.size() − T − 1] (rng: one draw per window).
// With repeat_share > 0, each window is also drawn a number u in [0, 1) and, when u < repeat_share,
// a lag k in [⌊T/4⌋, ⌊T/4⌋ + ⌊T/2⌋]: from position k on, the window starts over, so it reads
//   ids[a], …, ids[a + k − 1], ids[a], ids[a + 1], …, ids[a + T − k − 1]
// and the copy's targets are also its repeat_targets. Real text, with a repeat at a random lag: what
// an induction head is for, without a position that gives the repeat away (the repeat-half task).
Batch text_batch(const std::vector<int>& ids, std::size_t B, std::size_t T, Rng& rng, double repeat_share = 0.0);
// The window of a text_batch that starts at ids[a] and starts over at position k (1 ≤ k < T).
void put_repeat_window(Batch& b, std::size_t s, const std::vector<int>& ids, std::size_t a, std::size_t k);
// B windows spread evenly over ids (the fixed evaluation batch; no randomness).
Batch text_spread(const std::vector<int>& ids, std::size_t B, std::size_t T);
// The mean cross-entropy per character (nats) over every whole window of T + 1 ids, the windows
// tiling ids with one id of overlap (each target predicted once); batches of `batch` windows.
// Also the number of targets counted.
double text_loss(const gpt::Gpt& m, const std::vector<int>& ids, std::size_t T, std::size_t batch, std::size_t* targets);

// Character n-gram models of the training ids, scored on the held-out ids (nats per character):
//   unigram  add-one: (c(b) + 1) / (N + V)
//   bigram   Witten-Bell interpolation with that unigram:
//            P(b | a) = (c(a, b) + n(a) · P_uni(b)) / (c(a) + n(a)),  n(a) = distinct followers of a
//            (a never seen as a first element: P_uni(b))
//   trigram  Witten-Bell interpolation with that bigram:
//            P(c | a, b) = (c(a, b, c) + n(a, b) · P_bi(c | b)) / (c(a, b) + n(a, b)),
//            c(a, b) = the pair's count as the first two of a triple, n(a, b) = its distinct followers
//            (a pair never seen so: P_bi(c | b))
// The first held-out character is scored by the unigram alone, the second by the bigram.
// Counts are sparse (the pairs and triples the text holds); V³ must fit 64 bits (V < 2^21).
struct NgramLoss {
  double unigram = 0.0, bigram = 0.0, trigram = 0.0;
};
NgramLoss ngram_loss(const std::vector<int>& train, const std::vector<int>& heldout, std::size_t V);

}  // namespace attn::train
