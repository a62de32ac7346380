#pragma once
// Per-row summaries of a (T, C) tensor, for narration: how big each token's vector is.
#include "tensor.h"

namespace attn {

// row_norms: x (T, C) -> (T), the Euclidean length of each row.
Tensor row_norms(const Tensor& x);

}  // namespace attn
