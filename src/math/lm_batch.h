#pragma once
// What gpt.h's and decoder.h's forward passes share around their layers: the batch's checks and
// the mean loss over the targets that count.
#include <cstddef>

namespace attn::lm {

// std::invalid_argument (prefixed by `who`) unless 0 < T ≤ n_positions, B > 0, every token in
// [0, V) and every target (if any) in [-1, V).
void check_batch(const char* who, const int* tokens, const int* targets, std::size_t B, std::size_t T, std::size_t V,
                 std::size_t n_positions);

// losses (N) = −log probs[target] (0 where the target is -1, gpt::crossentropy_forward); returns
// their mean over the targets that are not -1 (0 if none), summed in row order; *counted = how many.
// S is double or float (then the sum and the mean are float, the mean widened on return).
template <class S>
double mean_target_loss(S* losses, const S* probs, const int* targets, std::size_t N, std::size_t V,
                        std::size_t* counted);

}  // namespace attn::lm
