#include "summary.h"

#include <string>

namespace attn {

Summary summary_for(const Tensor& t, bool full) {
  if (full) return {false, false, false};
  bool big = t.numel() > 1000;
  std::size_t R = t.rank() >= 2 ? t.shape[t.rank() - 2] : 1, C = t.shape.back();
  std::size_t B = t.numel() / (R * C);
  const std::size_t e = 2 * kSummaryEdge;
  return {big ? B > e : B > 16, big ? R > e : R > 32, big ? C > e : C > 16};
}

std::vector<std::size_t> shown_indices(std::size_t n, bool summarize) {
  std::vector<std::size_t> idx;
  if (!summarize || n <= 2 * kSummaryEdge) {
    for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  for (std::size_t i = 0; i < kSummaryEdge; ++i) idx.push_back(i);
  idx.push_back(std::string::npos);
  for (std::size_t i = n - kSummaryEdge; i < n; ++i) idx.push_back(i);
  return idx;
}

}  // namespace attn
