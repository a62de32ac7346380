#include "lm_batch.h"

#include <stdexcept>
#include <string>

#include "gpt.h"

namespace attn::lm {

void check_batch(const char* who, const int* tokens, const int* targets, std::size_t B, std::size_t T, std::size_t V,
                 std::size_t n_positions) {
  const std::string w(who);
  if (T == 0 || B == 0 || T > n_positions)
    throw std::invalid_argument(w + ": B " + std::to_string(B) + ", T " + std::to_string(T) + " do not fit n_positions " +
                                std::to_string(n_positions));
  const int v = static_cast<int>(V);
  for (std::size_t n = 0; n < B * T; ++n) {
    if (tokens[n] < 0 || tokens[n] >= v) throw std::invalid_argument(w + ": token out of range");
    if (targets && (targets[n] < -1 || targets[n] >= v)) throw std::invalid_argument(w + ": target out of range");
  }
}

template <class S>
double mean_target_loss(S* losses, const S* probs, const int* targets, std::size_t N, std::size_t V,
                        std::size_t* counted) {
  gpt::crossentropy_forward(losses, probs, targets, N, V);
  S sum = 0;
  std::size_t c = 0;
  for (std::size_t n = 0; n < N; ++n)
    if (targets[n] >= 0) {
      sum += losses[n];
      ++c;
    }
  *counted = c;
  return c ? static_cast<double>(sum / static_cast<S>(c)) : 0.0;
}
template double mean_target_loss(double*, const double*, const int*, std::size_t, std::size_t, std::size_t*);
template double mean_target_loss(float*, const float*, const int*, std::size_t, std::size_t, std::size_t*);

}  // namespace attn::lm
