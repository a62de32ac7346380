#pragma once
// What this CPU can run, asked once (GCC/clang's __builtin_cpu_supports on x86-64; false
// elsewhere). The kernels that have an AVX2 or AVX-512 version pick it with these, and the .npz
// writer's CRC-32 its carry-less-multiply version.

namespace attn {

bool cpu_has_avx2();
bool cpu_has_fma();
bool cpu_has_avx512f();
bool cpu_has_pclmul();  // carry-less multiply (the .npz writer's CRC-32)

}  // namespace attn

// A function compiled three times, the best chosen when the program loads (GCC's and clang's
// target_clones): AVX-512, FMA (with AVX) and the baseline. Loops of std::fma then vectorize with the
// CPU's fused multiply-add in the first two; the baseline calls the C library's fma, which a CPU
// without FMA computes in software. All three give the same bits (one correct rounding each).
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#define ATTNLAB_FMA_CLONES __attribute__((target_clones("avx512f", "fma", "default")))
#else
#define ATTNLAB_FMA_CLONES
#endif
