#pragma once
// The position-wise feed-forward network of a transformer layer, in its two forms, and the
// arithmetic around it. Row-vector convention as in the rest of attnlab: x is (D) or (T, D),
// a layer is x @ W with W (D_in, D_out).
//   D = d_model, F = FFN hidden width d_ff (4·D in GPT-2; ≈ 8·D/3 for SwiGLU)
//
//   standard (GPT-2):  y = act(x W_1 + b_1) W_2 + b_2         W_1 (D, F), W_2 (F, D)
//   SwiGLU (LLaMA):    y = (SiLU(x W_gate) ⊙ (x W_up)) W_down  W_gate, W_up (D, F), W_down (F, D)
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "row_stats.h"  // row_norms
#include "tensor.h"

namespace attn {

// ---- activations by name --------------------------------------------------------------------
enum class Activation { Gelu, GeluTanh, Relu, Silu };
// "gelu", "gelu-tanh", "relu", "silu" -> Activation; anything else -> nothing.
std::optional<Activation> activation_from_name(std::string_view name);
const char* activation_name(Activation a);     // the inverse: "gelu", …
double (*activation_fn(Activation a))(double);  // gelu, gelu_tanh, relu or silu from tensor.h

// ---- the standard FFN -------------------------------------------------------------------------
struct FfnPass {
  Tensor z;  // (F) or (T, F): x W_1 + b_1, "expand"
  Tensor h;  // (F) or (T, F): act(z)
  Tensor y;  // (D) or (T, D): h W_2 + b_2, "compress"
};
// x (D) or (T, D); W_1 (D, F), b_1 (F), W_2 (F, D), b_2 (D).
FfnPass ffn_forward(const Tensor& x, const Tensor& W_1, const Tensor& b_1, const Tensor& W_2, const Tensor& b_2,
                    Activation act);

// ---- SwiGLU -----------------------------------------------------------------------------------
struct SwigluPass {
  Tensor gate_pre;  // (F) or (T, F): x W_gate
  Tensor gate;      // (F) or (T, F): SiLU(gate_pre)
  Tensor up;        // (F) or (T, F): x W_up
  Tensor hidden;    // (F) or (T, F): gate ⊙ up
  Tensor y;         // (D) or (T, D): hidden W_down
};
// x (D) or (T, D); W_gate (D, F), W_up (D, F), W_down (F, D). No biases (LLaMA has none).
SwigluPass swiglu_forward(const Tensor& x, const Tensor& W_gate, const Tensor& W_up, const Tensor& W_down);

// ---- parameter counts -------------------------------------------------------------------------
struct FfnParams {
  std::int64_t W_1, b_1, W_2, b_2, total;
};
// The standard FFN with biases: W_1 D·F, b_1 F, W_2 F·D, b_2 D. (768, 3072): total 4,722,432.
FfnParams ffn_param_count(std::int64_t d_model, std::int64_t d_ff);
// SwiGLU without biases: W_gate, W_up and W_down are D·F each, so 3·D·F.
std::int64_t swiglu_param_count(std::int64_t d_model, std::int64_t hidden);
// The SwiGLU hidden width as LLaMA's reference code computes it: ⌊2·(4·D)/3⌋ (= ⌊8D/3⌋), then
// rounded up to a multiple of `multiple_of` (1: no rounding). D = 4096, 256 -> 10922 -> 11008.
std::int64_t swiglu_hidden(std::int64_t d_model, std::int64_t multiple_of);

// ---- the FFN as a key-value memory (Geva et al. 2021) -------------------------------------------
// In the row-vector convention key j is column j of W_1 (with bias b_1[j]) and value j is row j
// of W_2. Then y = Σ_j act(x·k_j + b_j) v_j + b_2: the FFN output is a sum of F value vectors,
// each weighted by how strongly its key fired.
struct MemoryRead {
  Tensor match;         // (F): x·k_j + b_1[j], every key against the input (equals z)
  Tensor activation;    // (F): act(match)
  Tensor contribution;  // (F, D): row j = activation[j] · v_j
  Tensor y;             // (D): Σ_j contribution[j] + b_2
  Tensor top_keys;      // (K): indices (0-based) of the K largest activations, largest first
};
// x (D); W_1 (D, F), b_1 (F), W_2 (F, D), b_2 (D); 1 <= top_k <= F. Sums over j in plain
// loops, independently of matmul, so comparing y with ffn_forward's y checks the identity.
MemoryRead ffn_as_memory(const Tensor& x, const Tensor& W_1, const Tensor& b_1, const Tensor& W_2,
                         const Tensor& b_2, Activation act, std::size_t top_k);

// ---- small helpers for narration --------------------------------------------------------------
// Indices of the k largest entries of a rank-1 tensor, largest first (ties: lower index first).
std::vector<std::size_t> top_k_indices(const Tensor& v, std::size_t k);
// v[i] / Σ_j v[j] for a rank-1 tensor of non-negative numbers (0 if they sum to 0).
double fraction_of_total(const Tensor& v, std::size_t i);
// Evenly spaced points lo, lo + step, …, hi: n >= 2 of them -> (n).
Tensor linspace(double lo, double hi, std::size_t n);
// Round to `decimals` places, halves away from zero (as the chapter rounds by hand).
double round_to(double x, int decimals);

}  // namespace attn

// ---- counts and picks for narration (rank-1 tensors) ------------------------------------------
namespace attn {
// How many entries of v (N) are > threshold.
std::size_t count_above(const Tensor& v, double threshold);
// The largest |h_j| over the j with z_j <= 0 (0 if there are none). z, h (N).
double max_abs_where_nonpositive(const Tensor& z, const Tensor& h);
// The index of the smallest entry of v (N) that is > threshold, or nothing.
std::optional<std::size_t> smallest_above(const Tensor& v, double threshold);
// The index of the smallest entry of v (N) (ties: lower index).
std::size_t index_of_min(const Tensor& v);

// Printed GELU values checked against the computed ones: z, printed (N); `decimals` as printed.
struct GeluCheck {
  Tensor exact;                     // (N): GELU(z), exact erf form
  Tensor approx;                    // (N): GELU(z), tanh approximation
  Tensor rounded;                   // (N): exact rounded to `decimals` places
  std::vector<bool> right;          // (N): rounded == printed
  std::vector<bool> tanh_explains;  // (N): the tanh form, rounded, gives the printed value
  std::size_t wrong = 0;            // how many are not right
};
GeluCheck check_printed_gelu(const Tensor& z, const Tensor& printed, int decimals);
}  // namespace attn
