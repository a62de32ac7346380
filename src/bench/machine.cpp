#include "machine.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#if defined(__unix__)
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

namespace attn {

std::uint64_t parse_cache_size(const std::string& text) {
  std::uint64_t v = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (UINT64_MAX - 9) / 10) return 0;
    v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i == 0) return 0;
  std::string unit = text.substr(i);
  while (!unit.empty() && (unit.back() == '\n' || unit.back() == ' ')) unit.pop_back();
  std::uint64_t scale = unit.empty() ? 1 : unit == "K" ? 1ULL << 10 : unit == "M" ? 1ULL << 20 : unit == "G" ? 1ULL << 30 : 0;
  if (scale == 0 || v > UINT64_MAX / scale) return 0;
  return v * scale;
}

namespace {

// Linux's sysfs: the highest cache level listed for the CPUs this process may run on, summed over
// the distinct caches of that level (told apart by the CPUs each is shared by). A 2-vCPU guest
// whose cores share one L3 gets that L3 (32 MiB on the 2026-12-02 AMD EPYC guest, where glibc's
// sysconf says the host's 384); a 12-CCD EPYC on bare metal gets its twelve L3s together, as
// threads on every core can use them all. 0 if sysfs lists no cache of level 2 or more.
std::uint64_t sysfs_last_level_cache_bytes() {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool have_set = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  int best_level = 0;
  std::map<std::string, std::uint64_t> caches;  // the CPUs a cache is shared by -> its bytes
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (have_set ? !CPU_ISSET(cpu, &allowed) : cpu > 0) continue;
    for (int index = 0; index < 16; ++index) {
      std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index) + "/";
      std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size"), shared_file(dir + "shared_cpu_list");
      int level = 0;
      std::string type, size, shared;
      if (!(level_file >> level) || !(type_file >> type) || !std::getline(size_file, size) || !(shared_file >> shared)) continue;
      std::uint64_t bytes = parse_cache_size(size);
      if (type == "Instruction" || bytes == 0 || level < best_level) continue;
      if (level > best_level) best_level = level, caches.clear();
      caches[shared] = bytes;
    }
  }
  std::uint64_t total = 0;
  for (const auto& [cpus, bytes] : caches) total += bytes;
  if (best_level >= 2) return total;
#endif
  return 0;
}

std::uint64_t find_last_level_cache_bytes() {
  if (std::uint64_t b = sysfs_last_level_cache_bytes()) return b;
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    long v = sysconf(name);
    if (v > 0) return static_cast<std::uint64_t>(v);
  }
#endif
  return 0;
}

}  // namespace

std::uint64_t last_level_cache_bytes() {
  static const std::uint64_t bytes = find_last_level_cache_bytes();  // read once a run
  return bytes;
}

LoadAverage parse_load_average(const std::string& text) {
  LoadAverage l;
  std::istringstream in(text);
  if (in >> l.one >> l.five >> l.fifteen && l.one >= 0 && l.five >= 0 && l.fifteen >= 0) l.known = true;
  return l.known ? l : LoadAverage{};
}

LoadAverage load_average() {
  std::ifstream f("/proc/loadavg");
  std::string line;
  if (!std::getline(f, line)) return {};
  return parse_load_average(line);
}

}  // namespace attn
