#pragma once
// The chapter's variants as one trainable decoder, built like gpt.h (llm.c's train_gpt2.c): every
// parameter in one flat buffer, every activation in named buffers, one forward and one backward
// per layer, double precision, the same bits for every thread count.
//
//   B = sequences   T = positions   C = d_model   H = query heads   hs = head width
//   G = key-value heads (MHA: G = H, GQA: g groups, MQA: G = 1)   F = FFN width   V = vocabulary
//   Dc = MLA's KV latent width (kv_lora_rank)   R = MLA's decoupled RoPE width (qk_rope_head_dim)
//   L = layers   N = B·T rows
//
// The model: x = wte[token] (+ wpe[position] with learned positions); L pre-norm blocks
//   x = x + attention(norm_1(x)) W_O;   x = x + ffn(norm_2(x))
// logits = norm_f(x) · wteᵀ (tied unembedding); loss = mean cross-entropy over targets not -1.
//
// attention (one core, attention_core_forward, for every variant; query head i reads key-value
// head i / (H / G), the chapter's group map):
//   mha, gqa, mqa   Q = h W_Q (N, H·hs);  K = h W_K, V = h W_V (N, G·hs)
//   mla             c_KV = h W_DKV (N, Dc);  K_C = c_KV W_UK, V = c_KV W_UV (N, H·hs);  Q_C = h W_Q (N, H·hs)
//                   with R > 0: Q_R = RoPE(h W_QR) (N, H·R), K_R = RoPE(h W_KR) (N, R) shared by all heads;
//                   head i attends with query [Q_C,i | Q_R,i] and key [K_C,i | K_R] — mla.h's naive path
//                   (no RMSNorm on the latent, no query latent), so `lesson mla --weights` runs it as is.
//   scores = q·k / √(width of q), causal softmax, head outputs side by side (N, H·hs) @ W_O (H·hs, C).
// positions: learned (wpe) or RoPE in Hugging Face's rotate_half pairing (rope_half.h) on Q and K
//   (for MLA only on its R part: with RoPE positions MLA needs R > 0, with learned ones R = 0).
// ffn: gelu    gelu(h W_1) W_2 (GPT-2's tanh GELU)        (C, F), (F, C)
//      swiglu  (silu(h W_gate) ⊙ h W_up) W_down (LLaMA)   (C, F), (C, F), (F, C)
// norm: layernorm (weight and bias) or rmsnorm (weight), eps 1e-5 both.
// No bias in any projection. Weights are stored (in, out), applied as x @ W.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpt.h"

namespace attn::decoder {

enum class Attention { Mha, Gqa, Mqa, Mla };
enum class Positions { Learned, Rope };
enum class Ffn { Gelu, Swiglu };
enum class Norm { LayerNorm, RmsNorm };

constexpr double kNormEps = 1e-5;

struct DecoderConfig {
  std::size_t vocab = 32, n_positions = 32, d_model = 64, n_layer = 2, n_head = 4;
  std::size_t head_dim = 0;    // hs; 0 = d_model / n_head
  Attention attention = Attention::Mha;
  std::size_t n_kv_head = 0;   // G for gqa (H for mha, 1 for mqa whatever is set)
  std::size_t kv_lora_rank = 0, rope_dim = 0;  // Dc and R, mla only
  Positions positions = Positions::Learned;
  Ffn ffn = Ffn::Gelu;
  Norm norm = Norm::LayerNorm;
  std::size_t d_ff = 0;        // F; 0 = 4·d_model
  double rope_theta = 10000.0;

  std::size_t hs() const { return head_dim ? head_dim : d_model / n_head; }
  std::size_t F() const { return d_ff ? d_ff : 4 * d_model; }
  // Key-value heads of the attention core: G (mla: H, its keys and values are per head).
  std::size_t kv_heads() const;
  // Width of a query and key in the core: hs, or hs + R for mla.
  std::size_t qk_dim() const;
  // Numbers cached per token per layer at inference: 2·G·hs, or Dc + R for mla (its latent and RoPE key).
  std::size_t cache_per_token() const;
};

// Why a config cannot be trained ("" if it can): zero sizes, H not a multiple of G, odd RoPE widths,
// mla without a latent, RoPE positions on mla without R (or learned ones with R).
std::string check_config(const DecoderConfig& c);

// Offsets of one layer's parameters in the flat buffer (0 where the variant has none).
struct LayerOffsets {
  std::size_t norm1w = 0, norm1b = 0, norm2w = 0, norm2b = 0;
  std::size_t wq = 0, wk = 0, wv = 0, wdkv = 0, wuk = 0, wuv = 0, wqr = 0, wkr = 0, wo = 0;
  std::size_t w1 = 0, w2 = 0, wgate = 0, wup = 0, wdown = 0;
};
struct DecoderLayout {
  std::vector<gpt::ParamTensor> tensors;  // in buffer order; names below
  std::size_t wte = 0, wpe = 0, normfw = 0, normfb = 0, total = 0;
  std::vector<LayerOffsets> layers;
};
// Names: wte (V, C), wpe (P, C), layers.l.norm_1.weight/.bias, layers.l.attn.W_Q, W_K, W_V, W_DKV,
// W_UK, W_UV, W_QR, W_KR, W_O, layers.l.norm_2.*, layers.l.ffn.W_1, W_2, W_gate, W_up, W_down,
// norm_f.weight/.bias — the chapter's names, each (in, out).
DecoderLayout decoder_layout(const DecoderConfig& c);

// Initial weights: every matrix N(0, 0.02²) except the two residual projections (W_O and W_2 /
// W_down) N(0, (0.02/√(2L))²); norm weights 1, biases 0. Drawn from Rng(seed) tensor by tensor
// in layout order (GPT-2's rule, gpt_init).
std::vector<double> decoder_init(const DecoderConfig& c, std::uint64_t seed);

struct Decoder {
  DecoderConfig config;
  DecoderLayout layout;
  std::vector<double> params;
};
Decoder make_decoder(const DecoderConfig& c, std::uint64_t seed);

// ---- the layers the variants add to gpt.h's ----------------------------------------------------

// out = inp · rstd ⊙ w per row, rstd = 1/√(mean(inp²) + eps) kept (N) for the backward.
void rmsnorm_forward(double* out, double* rstd, const double* inp, const double* w, std::size_t N, std::size_t C);
void rmsnorm_backward(double* dinp, double* dw, const double* dout, const double* inp, const double* w,
                      const double* rstd, std::size_t N, std::size_t C);

// RoPE (rotate_half) in place on x (N rows of `stride` numbers): in each row, n_vec vectors of
// width d starting at offset, offset + step, …; row n is position n % T. inverse = the backward
// (rotation by −angle). cos_sin (T, d/2, 2) from rope_table.
std::vector<double> rope_table(std::size_t T, std::size_t d, double theta);
void rope_apply(double* x, const double* cos_sin, std::size_t N, std::size_t T, std::size_t stride, std::size_t offset,
                std::size_t n_vec, std::size_t step, std::size_t d, bool inverse);

// out (n) = silu(gate) ⊙ up; backward adds into dgate, dup.
void swiglu_forward(double* out, const double* gate, const double* up, std::size_t n);
void swiglu_backward(double* dgate, double* dup, const double* dout, const double* gate, const double* up, std::size_t n);

// The one attention core, causal: q (N, H, dq), k (N, G, dq), v (N, G, dv) -> out (N, H, dv),
// att (B, H, T, T) the softmax weights (0 above the diagonal). Head h reads key-value head h / (H/G).
// scale = 1/√dq. head_gate (H) or null: head h's output times head_gate[h] (0 ablates it).
void attention_core_forward(double* out, double* att, const double* q, const double* k, const double* v, std::size_t B,
                            std::size_t T, std::size_t H, std::size_t G, std::size_t dq, std::size_t dv,
                            const double* head_gate = nullptr);
// Adds into dq, dk, dv. Threads own whole key-value heads, so a shared key's gradient sums its
// query heads in order h = 0, 1, …: deterministic.
void attention_core_backward(double* dq, double* dk, double* dv, const double* dout, const double* q, const double* k,
                             const double* v, const double* att, std::size_t B, std::size_t T, std::size_t H,
                             std::size_t G, std::size_t dq_width, std::size_t dv_width);

// ---- the whole model -----------------------------------------------------------------------------
struct DecoderActs {
  std::size_t B = 0, T = 0;
  std::vector<double> encoded;                 // (N, C)
  // per layer, each (L, …)
  std::vector<double> norm1, norm1_mean, norm1_rstd;   // (N, C), (N), (N)
  std::vector<double> q, k, v;                 // (N, H·dq), (N, Gk·dq), (N, Gk·hs) as the core reads them
  std::vector<double> ckv;                     // mla: (N, Dc)
  std::vector<double> att, atty, attproj, residual2;   // (B, H, T, T), (N, H·hs), (N, C), (N, C)
  std::vector<double> norm2, norm2_mean, norm2_rstd;
  std::vector<double> fc_a, fc_b, fc_act, fcproj, residual3;  // gelu: fc_a = h W_1; swiglu: gate, up; act (N, F)
  std::vector<double> normf, normf_mean, normf_rstd, logits, probs, losses;
  std::vector<double> wte_t;                   // (C, V)
  std::vector<double> rope;                    // rope_table for T
  double loss = 0.0;
  std::size_t counted = 0;
};

// tokens (B, T), T ≤ n_positions, every token < vocab; targets (B, T) or null (no loss).
// ablate: per layer H gates or empty.
void decoder_forward(const Decoder& m, const int* tokens, const int* targets, std::size_t B, std::size_t T,
                     DecoderActs& a, const std::vector<std::vector<double>>* ablate = nullptr);
// grads (layout.total) is overwritten with d loss / d params for the last forward pass (with targets).
void decoder_backward(const Decoder& m, const int* tokens, const int* targets, const DecoderActs& a,
                      std::vector<double>& grads);

// Parameters (== decoder_layout(c).total), in double so absurd sizes do not wrap.
double decoder_param_count(const DecoderConfig& c);

// The variant's short name: "mha", "gqa-2" (G), "mqa", "mla-32" (Dc), with "+swiglu"/"+gelu" etc.
// left to the caller.
std::string attention_name(const DecoderConfig& c);

}  // namespace attn::decoder
