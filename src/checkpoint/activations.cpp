// Activations checked for numbers double precision cannot hold. See activations.h.
#include "activations.h"

#include <algorithm>
#include <cmath>

#include "errors.h"

namespace attn {

namespace {

bool holds_only(const Tensor& t, FiniteRule rule) {
  const double* x = t.data.data();
  const std::size_t n = t.data.size();
  if (rule == FiniteRule::Causal && t.rank() >= 2) {
    // Row r of each (R, C) block up to column r + C − R: what the mask keeps.
    const std::size_t R = t.dim(t.rank() - 2), C = t.shape.back(), shift = C >= R ? C - R : 0;
    for (std::size_t base = 0; base < n; base += R * C)
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0, end = std::min(C, r + shift + 1); c < end; ++c)
          if (!std::isfinite(x[base + r * C + c])) return false;
    return true;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i]) || (rule == FiniteRule::Positive && !(x[i] > 0))) return false;
  return true;
}

}  // namespace

void require_finite_activation(const Tensor& t, const ActivationSite& at, const char* tensor, FiniteRule rule) {
  if (!holds_only(t, rule))
    throw UsageError("checkpoint.err.activation_not_finite", {{"folder", at.folder}, {"layer", at.layer + 1}, {"l0", at.layer}, {"tensor", tensor}});
}

}  // namespace attn
