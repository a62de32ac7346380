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
