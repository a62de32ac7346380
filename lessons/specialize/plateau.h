#pragma once
// The numbers the specialize task's first plateau is made of, from its length and vocabulary
// (lessons specialize and symmetry). prev-minus-first asks for a target at t = 1 … T − 1; at t = 1
// it is (x_0 − x_0) mod V = 0 whatever the tokens, at every other position it is uniform over V.
#include <cmath>
#include <cstddef>

#include "libm.h"

namespace attn {

struct FirstPlateau {
  std::size_t positions = 0;  // positions with a target: T − 1
  std::size_t rest = 0;       // those past t = 1: T − 2
  double loss = 0.0;          // t = 1 known, a uniform guess elsewhere: (rest / positions) · ln V
  double frequency_loss = 0.0;  // only the answers' frequencies known: the entropy of their mix
  double uniform_weight = 0.0;  // mean over t = 1 … T − 1 of 1/(t + 1): even attention's weight on one position
};

inline FirstPlateau first_plateau(std::size_t T, std::size_t V) {
  FirstPlateau p;
  p.positions = T - 1;
  p.rest = T - 2;
  const double n = static_cast<double>(p.positions), r = static_cast<double>(p.rest), v = static_cast<double>(V);
  p.loss = r / n * libm::log(v);
  const double q = r / (n * v);  // each answer at a position past t = 1
  const double p0 = 1.0 / n + q;  // answer 0: always at t = 1, and its share elsewhere
  p.frequency_loss = -p0 * libm::log(p0) - (v - 1.0) * q * libm::log(q);
  for (std::size_t t = 1; t < T; ++t) p.uniform_weight += 1.0 / static_cast<double>(t + 1);
  p.uniform_weight /= n;
  return p;
}

// One head's relation from its mean weights on x_0 and x_{t-1}: a relation at 0.6 or more (first
// token, previous token, or the two together); below that, leaning to one of them (at least twice
// what even attention gives it, `uniform`), or spread out.
enum class HeadRelation { first, prev, split, leans_first, leans_prev, spread };

inline HeadRelation head_relation(double first, double prev, double uniform) {
  if (first >= 0.6) return HeadRelation::first;
  if (prev >= 0.6) return HeadRelation::prev;
  if (first + prev >= 0.6) return HeadRelation::split;
  if (first >= prev && first >= 2.0 * uniform) return HeadRelation::leans_first;
  if (prev > first && prev >= 2.0 * uniform) return HeadRelation::leans_prev;
  return HeadRelation::spread;
}

}  // namespace attn
