#pragma once
// This machine's roofline, from figures measured in the same rounds as the variants: a step reads
// `bytes` and does `flops`; with bandwidth W (GB/s) and compute peak P (GFLOP/s) it takes at least
// max(bytes / W, flops / P). The balance point P / W (FLOP per byte) divides the two bounds.
#include <cstdint>
#include <vector>

#include "decode_bench.h"

namespace attn {

enum class Bound { Memory, Compute };
double flop_per_byte(std::uint64_t flops, std::uint64_t bytes);
// Memory-bound below the balance point, compute-bound at or above it.
Bound bound_of(double flop_per_byte, double balance_flop_per_byte);
const char* bound_name(Bound b);  // "memory" | "compute"
// The roofline's least time for a step, in seconds.
double roofline_seconds(std::uint64_t bytes, std::uint64_t flops, double gb_per_s, double gflop_per_s);

// The mark a row's share of the measured bandwidth gets: none; InCache (*) when its cache is
// smaller than twice the last-level cache (part of it is read from there, so a share above 100%
// is possible); Over (†) when it is above 100% although the cache cannot sit in the last-level
// cache (the bandwidth samples caught slower moments than the kernel: noise, not a result).
enum class BandwidthMark { None, InCache, Over };
BandwidthMark bandwidth_mark(double gb_per_s, double memory_gb_per_s, bool smaller_than_twice_llc);

// The longest context (cached tokens per sequence) at most `longest`, at which every variant's
// cache is at most `cap_bytes`: a multiple of 1,024 from 1,024 up, else of 64; 0 if not even 64 fits.
std::uint64_t longest_context_within(const std::vector<BenchVariant>& variants, std::uint64_t B, int bytes_per_number,
                                     std::uint64_t cap_bytes, std::uint64_t longest);

}  // namespace attn
