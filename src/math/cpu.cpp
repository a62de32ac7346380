// See cpu.h.
#include "cpu.h"

namespace attn {

#if defined(__x86_64__) && defined(__GNUC__)
namespace {
struct Features {
  bool avx2, fma, avx512f, pclmul;
  Features() {
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2");
    fma = __builtin_cpu_supports("fma");
    avx512f = __builtin_cpu_supports("avx512f");
    pclmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
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
bool cpu_has_pclmul() { return features().pclmul; }
#else
bool cpu_has_avx2() { return false; }
bool cpu_has_fma() { return false; }
bool cpu_has_avx512f() { return false; }
bool cpu_has_pclmul() { return false; }
#endif

}  // namespace attn
