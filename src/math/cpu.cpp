// See cpu.h.
#include "cpu.h"

namespace attn {

#if defined(__x86_64__) && defined(__GNUC__)
namespace {
struct Features {
  bool avx2, fma, avx512f;
  Features() {
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2");
    fma = __builtin_cpu_supports("fma");
    avx512f = __builtin_cpu_supports("avx512f");
  }
};
const Features& features() {
  static const Features f;
  return f;
}
}  // namespace

bool cpu_has_avx2() { return features().avx2; }
bool cpu_has_fma() { return features().fma; }
bool cpu_has_avx512f() { return features().avx512f; }
#else
bool cpu_has_avx2() { return false; }
bool cpu_has_fma() { return false; }
bool cpu_has_avx512f() { return false; }
#endif

}  // namespace attn
