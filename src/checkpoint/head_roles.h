#pragma once
// The chapter's head roles (section 1.4), measured on a real model's attention weights.
// For one head's weights A (T, T) (causal; row i = query i), averaged over the queries i ≥ 1
// (query 0 can only look at itself, so it says nothing about a role):
//   previous-token  mean A[i, i-1]     first-token (sentence start)  mean A[i, 0]
//   self            mean A[i, i]
//   induction       on the text repeated twice (length 2T0), for the queries i ≥ T0 of the second
//                   copy: mean A[i, i - T0 + 1], the token that followed this one the first time.
// Each score is between 0 and 1: the share of attention the role takes.
#include <cstddef>
#include <vector>

#include "tensor.h"

namespace attn {

struct HeadRoleScores {
  Tensor previous, first, self;  // (L, H) each
  Tensor induction;              // (L, H), empty when not measured
};

// weights: one (H, T, T) tensor per layer, T ≥ 2.
void score_positional_roles(const std::vector<Tensor>& weights, HeadRoleScores& out);
// weights on the doubled sequence (T = 2·T0), one (H, T, T) per layer.
Tensor induction_scores(const std::vector<Tensor>& weights, std::size_t T0);

// The k largest entries of an (L, H) score grid, largest first (ties: lower layer, then head).
struct HeadRef {
  std::size_t layer, head;
  double score;
};
std::vector<HeadRef> top_heads(const Tensor& scores, std::size_t k);

}  // namespace attn
