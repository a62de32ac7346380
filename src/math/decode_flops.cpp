// Exact multiply-add counts per layer and per variant. See decode_flops.h.
#include "decode_flops.h"

#include <initializer_list>
#include <stdexcept>

namespace attn {

namespace {

// The product of xs, or std::overflow_error when it does not fit in 64 bits.
std::uint64_t prod(std::initializer_list<std::uint64_t> xs) {
  std::uint64_t r = 1;
  for (std::uint64_t x : xs)
    if (__builtin_mul_overflow(r, x, &r)) throw std::overflow_error("multiply-adds overflow 64 bits");
  return r;
}

std::uint64_t sum(std::initializer_list<std::uint64_t> xs) {
  std::uint64_t r = 0;
  for (std::uint64_t x : xs)
    if (__builtin_add_overflow(r, x, &r)) throw std::overflow_error("multiply-adds overflow 64 bits");
  return r;
}

}  // namespace

std::vector<LayerFlops> layer_flops(const FlopDims& d, std::uint64_t rows, std::uint64_t pairs) {
  const std::uint64_t D = d.D, H = d.H, Dh = d.Dh, C = d.C, R = d.R, Cq = d.Cq;
  const std::uint64_t ffn = prod({rows, d.gated ? 3u : 2u, D, d.F});
  auto mha_like = [&](const char* id, std::uint64_t heads, std::uint64_t groups, std::uint64_t width) {
    return LayerFlops{id, prod({rows, D, heads, width}), prod({rows, D, 2, groups, width}), prod({pairs, heads, width}),
                      prod({pairs, heads}), prod({pairs, heads, width}), prod({rows, heads, width, D}), ffn};
  };
  std::uint64_t q_mla = Cq > 0 ? prod({rows, sum({prod({D, Cq}), prod({Cq, H, sum({Dh, R})})})})
                               : prod({rows, D, H, sum({Dh, R})});
  LayerFlops naive{"mla_naive", q_mla, prod({rows, sum({prod({D, sum({C, R})}), prod({C, 2, H, Dh})})}),
                   prod({pairs, H, sum({Dh, R})}), prod({pairs, H}), prod({pairs, H, Dh}), prod({rows, H, Dh, D}), ffn};
  LayerFlops absorbed{"mla_absorbed", sum({q_mla, prod({rows, H, Dh, C})}), prod({rows, D, sum({C, R})}),
                      prod({pairs, H, sum({C, R})}), prod({pairs, H}), prod({pairs, H, C}),
                      prod({rows, sum({prod({H, C, Dh}), prod({H, Dh, D})})}), ffn};
  std::vector<LayerFlops> all = {mha_like("mha", H, H, Dh), mha_like("gqa", H, d.G, Dh), mha_like("mqa", H, 1, Dh),
                                 naive, absorbed, mha_like("one_head", 1, 1, prod({H, Dh}))};
  for (const LayerFlops& f : all)  // the total and FLOP = 2 · multiply-adds fit too
    prod({2, sum({f.q_proj, f.kv_proj, f.scores, f.weighted_sum, f.out_proj, f.ffn})});
  return all;
}

std::vector<LayerFlops> prefill_flops(const FlopDims& d, std::uint64_t T) {
  return layer_flops(d, T, prod({T, T + 1}) / 2);
}

std::vector<LayerFlops> decode_flops(const FlopDims& d, std::uint64_t n) { return layer_flops(d, 1, n); }

}  // namespace attn
