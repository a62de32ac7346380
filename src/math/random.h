#pragma once
// Deterministic randomness: our own generator (SplitMix64) and our own normal sampler
// (Box–Muller), so the same --seed gives the same numbers under libstdc++ and libc++
// (std::normal_distribution is implementation-defined and differs between them).
#include <cstddef>
#include <cstdint>

#include "tensor.h"

namespace attn {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();  // SplitMix64
  double uniform();          // in [0, 1), 53 random bits
  double normal();           // N(0, 1), Box–Muller (both values of a pair are used)
  // out[i] = std * normal() for i = 0 … n-1: exactly the numbers, and the generator state after,
  // of that loop, but large fills are split across threads (SplitMix64's state after n steps is
  // seed + n·γ, so each thread can start where the sequential loop would be).
  void fill_normal(double* out, std::size_t n, double std);

 private:
  std::uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// A tensor of N(0, std²) numbers, drawn in row-major order.
Tensor randn(Rng& rng, const Shape& shape, double std = 1.0);
// A weight matrix (d_in, d_out) drawn from N(0, 1/d_in) (LeCun/Xavier-style scale), so a
// projection keeps the input's scale and attention scores come out of order 1: patterns are
// visibly non-uniform. (GPT-2's 0.02 would make every attention row look uniform at d = 8.)
Tensor init_weight(Rng& rng, std::size_t d_in, std::size_t d_out);

}  // namespace attn
