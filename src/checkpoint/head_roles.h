#pragma once
// The chapter's head roles (section 1.4), measured on a real model's attention weights.
// For one head's weights A (T, T) (causal; row i = query i), averaged over the queries i ≥ 1
// (query 0 can only look at itself, so it says nothing about a role):
//   previous-token  mean A[i, i-1]     first-token (sentence start)  mean A[i, 0]
//   self            mean A[i, i]
//   induction       on the text repeated twice (length 2T0), for the queries i ≥ T0 of the second
//                   copy: mean A[i, i - T0 + 1], the token that followed this one the first time.
//   repeat          induction on the text itself: for each query i whose token occurred earlier
//                   (ids[j] = ids[i], j < i), the weight A[i, j + 1] summed over the distinct
//                   positions j + 1 that followed an earlier occurrence; the mean over those queries.
// Each score is between 0 and 1: the share of attention the role takes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor.h"

namespace attn {

struct HeadRoleScores {
  Tensor previous, first, self;  // (L, H) each
  Tensor induction;              // (L, H), empty when not measured
  Tensor repeat;                 // (L, H), empty when no token of the text occurs twice
  std::size_t repeat_queries = 0;  // the queries the repeat score averages over
  double repeat_even = 0.0;        // what an evenly spread head would score on them
};

// The repeat score (above) on `ids`' own attention weights, one (H, T, T) per layer; sets
// out.repeat, out.repeat_queries and out.repeat_even (the mean of targets / (i + 1)).
void score_inner_repeats(const std::vector<Tensor>& weights, const std::vector<std::int64_t>& ids, HeadRoleScores& out);

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

// What a role's score would be for a head that spreads its attention evenly over what it may see:
// the mean of 1/(i+1) over the queries i = from … T − 1 (from = 1 for the positional roles on T
// tokens; from = T0 for induction on the doubled text of length T = 2·T0).
double even_share(std::size_t T, std::size_t from);
// A head is named for a role when the role takes at least kRoleShare of its attention and at least
// kRoleOverEven times an even spread's share (so a short text cannot name a head by chance).
constexpr double kRoleShare = 0.3, kRoleOverEven = 3.0;
double role_threshold(double even);
// Every head whose score reaches the threshold, largest first (as top_heads orders them).
std::vector<HeadRef> heads_with_role(const Tensor& scores, double threshold);

}  // namespace attn
