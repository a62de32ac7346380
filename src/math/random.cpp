#include "random.h"

#include <cmath>

namespace attn {

std::uint64_t Rng::next_u64() {
  // SplitMix64 (Steele, Lea, Flood 2014): a counter passed through a bijective mixer.
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u1 = uniform();
  while (u1 == 0.0) u1 = uniform();  // log(0) is -inf
  double u2 = uniform();
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = 2.0 * M_PI * u2;
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

Tensor randn(Rng& rng, const Shape& shape, double std) {
  Tensor t(shape);
  for (double& v : t.data) v = std * rng.normal();
  return t;
}

Tensor init_weight(Rng& rng, std::size_t d_in, std::size_t d_out) {
  return randn(rng, {d_in, d_out}, 1.0 / std::sqrt(static_cast<double>(d_in)));
}

}  // namespace attn
