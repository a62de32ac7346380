#pragma once
// What a benchmark reports about the machine it ran on: the last-level cache and the load.
#include <cstdint>
#include <string>

namespace attn {

// The last-level cache's size in bytes: the highest level Linux lists in sysfs, summed over its
// distinct caches on the CPUs this process may run on; else as the C library reports it (L3,
// else L2); 0 if unknown. Read once a run.
std::uint64_t last_level_cache_bytes();
// A sysfs cache size ("32768K", "2M", "512"): bytes, 0 if it is not one.
std::uint64_t parse_cache_size(const std::string& text);

// /proc/loadavg: runnable tasks averaged over 1, 5 and 15 minutes; known = false where there is none.
struct LoadAverage {
  bool known = false;
  double one = 0, five = 0, fifteen = 0;
};
LoadAverage load_average();
// The text of /proc/loadavg read as such ("1.40 1.99 2.73 2/301 1234"); not known if it is not one.
LoadAverage parse_load_average(const std::string& text);

}  // namespace attn
