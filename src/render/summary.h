#pragma once
// How a large tensor is summarised, the same in every renderer (terminal, HTML): like numpy past
// 1000 numbers (the first and last 3 items of an axis), and always when a matrix would be wider
// or taller than a screen (16 columns, 32 rows, 16 blocks).
#include <cstddef>
#include <vector>

#include "tensor.h"

namespace attn {

constexpr std::size_t kSummaryEdge = 3;  // numpy's edgeitems

// Which axes of a tensor are summarised: its blocks (leading axes), rows and columns.
struct Summary {
  bool blocks, rows, cols;
  bool any() const { return blocks || rows || cols; }
};
// full: never summarise (--full, or the expanded "every number" table of a page).
Summary summary_for(const Tensor& t, bool full);

// The indices shown along an axis of length n: all of them, or the first and last kSummaryEdge
// with npos standing for "…".
std::vector<std::size_t> shown_indices(std::size_t n, bool summarize);

}  // namespace attn
