#pragma once
// Rotary position embedding (RoPE), as in LLaMA and DeepSeek-V2/V3.
//   T = tokens (positions 0 … T−1), R = rotated width (even).
//
// Pairing convention: consecutive pairs. Within every R-wide block, the numbers (x_2i, x_2i+1),
// i = 0 … R/2 − 1, are one 2-D point, rotated by the angle  pos · θ_i  with
//   θ_i = base^(−2i / R),  base = 10000,
//     x'_2i   = x_2i · cos(pos·θ_i) − x_2i+1 · sin(pos·θ_i)
//     x'_2i+1 = x_2i · sin(pos·θ_i) + x_2i+1 · cos(pos·θ_i)
// This is Meta's LLaMA reference and DeepSeek-V3's inference/model.py (which view the pairs as
// complex numbers and multiply by e^{i·pos·θ}); Hugging Face's "rotate_half" pairs x_i with
// x_{i+R/2} instead — the same rotation on permuted coordinates, so scores agree only after that
// permutation is applied to the weights. Row t of a tensor is position t (the first token is 0,
// which is not rotated at all).
//
// The property attention relies on: RoPE(q, m) · RoPE(k, n) depends on m and n only through
// m − n, because each pair is rotated by R_m and R_n with R_mᵀ R_n = R_{n−m}.
#include "tensor.h"

namespace attn {

constexpr double kRopeBase = 10000.0;

// rope_theta: (R/2), θ_i = base^(−2i/R). R must be even and positive.
Tensor rope_theta(std::size_t d_R, double base = kRopeBase);
// rope_angles: (T, R/2), angle(t, i) = t · θ_i.
Tensor rope_angles(std::size_t T, std::size_t d_R, double base = kRopeBase);
// apply_rope: x (T, n·R) -> (T, n·R). Each of the n R-wide column blocks (one per head, or a
// single shared key when n = 1) is rotated pair by pair, row t by position t.
Tensor apply_rope(const Tensor& x, std::size_t d_R, double base = kRopeBase);

}  // namespace attn
