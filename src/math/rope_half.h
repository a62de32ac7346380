#pragma once
// RoPE in Hugging Face's "rotate_half" convention (transformers' Llama, Mistral, Qwen2): within a
// head of width Dh, number i pairs with number i + Dh/2 (not with i + 1 as in rope.h), and the pair
// is rotated by the angle pos · θ_i, i = 0 … Dh/2 − 1:
//     x'_i        = x_i · cos(pos·θ_i) − x_{i+Dh/2} · sin(pos·θ_i)
//     x'_{i+Dh/2} = x_{i+Dh/2} · cos(pos·θ_i) + x_i · sin(pos·θ_i)
// θ_i = base^(−2i / Dh) (rope_theta in config.json), optionally rescaled (Llama 3.1's "llama3"
// rope_scaling, or "linear"). It is the same rotation as rope.h's on permuted coordinates; the
// checkpoints trained with it need this pairing.
//   n = heads, T = tokens (positions 0 … T−1), Dh = head width (even).
#include "tensor.h"

namespace attn {

// θ_i = base^(−2i / Dh): (Dh/2).
Tensor rope_inv_freq(std::size_t head_dim, double base);
// "linear" scaling: every θ_i / factor.
Tensor rope_scale_linear(const Tensor& inv_freq, double factor);
// Llama 3.1's "llama3" scaling: wavelengths 2π/θ_i longer than old_context / low_freq_factor are
// divided by factor, shorter than old_context / high_freq_factor kept, and those in between blended:
//   s = (old_context / wavelen − low) / (high − low),  θ' = (1 − s) · θ / factor + s · θ.
Tensor rope_scale_llama3(const Tensor& inv_freq, double factor, double low_freq_factor, double high_freq_factor,
                         double old_context);
// x (n, T, Dh) -> (n, T, Dh): row t of every head rotated for position first_position + t with the
// θ of inv_freq (Dh/2). first_position > 0: new rows decoded after a KV cache of that many tokens.
Tensor apply_rope_half(const Tensor& x, const Tensor& inv_freq, std::size_t first_position = 0);

}  // namespace attn
