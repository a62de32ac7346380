#include "roofline.h"

#include <algorithm>

namespace attn {

double flop_per_byte(std::uint64_t flops, std::uint64_t bytes) {
  return bytes == 0 ? 0.0 : static_cast<double>(flops) / static_cast<double>(bytes);
}

Bound bound_of(double fpb, double balance) { return fpb < balance ? Bound::Memory : Bound::Compute; }

const char* bound_name(Bound b) { return b == Bound::Memory ? "memory" : "compute"; }

double roofline_seconds(std::uint64_t bytes, std::uint64_t flops, double gb_per_s, double gflop_per_s) {
  return std::max(static_cast<double>(bytes) / (gb_per_s * 1e9), static_cast<double>(flops) / (gflop_per_s * 1e9));
}

BandwidthMark bandwidth_mark(double gb_per_s, double memory_gb_per_s, bool smaller_than_twice_llc) {
  if (smaller_than_twice_llc) return BandwidthMark::InCache;
  return gb_per_s > memory_gb_per_s ? BandwidthMark::Over : BandwidthMark::None;
}

std::uint64_t longest_context_within(const std::vector<BenchVariant>& variants, std::uint64_t B, int bytes_per_number,
                                     std::uint64_t cap_bytes, std::uint64_t longest) {
  std::uint64_t per_token = 0;  // the largest variant's bytes per cached token
  for (const BenchVariant& v : variants)
    per_token = std::max(per_token, bench_cache_numbers(v, B, 1) * static_cast<std::uint64_t>(bytes_per_number));
  if (per_token == 0) return longest;
  std::uint64_t n = std::min(longest, cap_bytes / per_token);
  if (n == longest) return n;
  return n >= 1024 ? n / 1024 * 1024 : n / 64 * 64;
}

}  // namespace attn
