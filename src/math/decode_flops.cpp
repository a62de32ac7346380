// Exact multiply-add counts per layer and per variant. See decode_flops.h.
#include "decode_flops.h"

namespace attn {

std::vector<LayerFlops> layer_flops(const FlopDims& d, std::uint64_t rows, std::uint64_t pairs) {
  const std::uint64_t D = d.D, H = d.H, Dh = d.Dh, C = d.C, R = d.R, Cq = d.Cq;
  const std::uint64_t ffn = rows * (d.gated ? 3 : 2) * D * d.F;
  auto mha_like = [&](const char* id, std::uint64_t heads, std::uint64_t groups, std::uint64_t width) {
    return LayerFlops{id, rows * D * heads * width, rows * D * 2 * groups * width, pairs * heads * width, pairs * heads,
                      pairs * heads * width, rows * heads * width * D, ffn};
  };
  std::uint64_t q_mla = Cq > 0 ? rows * (D * Cq + Cq * H * (Dh + R)) : rows * D * H * (Dh + R);
  LayerFlops naive{"mla_naive", q_mla, rows * (D * (C + R) + C * 2 * H * Dh), pairs * H * (Dh + R), pairs * H,
                   pairs * H * Dh, rows * H * Dh * D, ffn};
  LayerFlops absorbed{"mla_absorbed", q_mla + rows * H * Dh * C, rows * D * (C + R), pairs * H * (C + R), pairs * H,
                      pairs * H * C, rows * (H * C * Dh + H * Dh * D), ffn};
  return {mha_like("mha", H, H, Dh), mha_like("gqa", H, d.G, Dh), mha_like("mqa", H, 1, Dh), naive, absorbed,
          mha_like("one_head", 1, 1, H * Dh)};
}

std::vector<LayerFlops> prefill_flops(const FlopDims& d, std::uint64_t T) { return layer_flops(d, T, T * (T + 1) / 2); }

std::vector<LayerFlops> decode_flops(const FlopDims& d, std::uint64_t n) { return layer_flops(d, 1, n); }

}  // namespace attn
