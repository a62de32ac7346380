#include "clones.h"

#include <algorithm>
#include <cmath>

namespace attn::train {

namespace {
// Visit every entry head h of layer l owns, with the matching entry of head 0: f(entry of h, entry of 0).
template <class F>
void for_head_entries(const gpt::Gpt& m, std::size_t l, std::size_t h, F&& f) {
  const std::size_t C = m.config.d_model, hs = m.config.head_size();
  const gpt::LayerOffsets& o = m.layout.layers[l];
  for (std::size_t part = 0; part < 3; ++part)  // q, k, v
    for (std::size_t j = 0; j < hs; ++j) {
      const std::size_t col = part * C + h * hs + j, col0 = part * C + j;
      for (std::size_t i = 0; i < C; ++i) f(o.qkvw + i * 3 * C + col, o.qkvw + i * 3 * C + col0);  // c_attn.weight (C, 3C)
      f(o.qkvb + col, o.qkvb + col0);                                                            // c_attn.bias (3C)
    }
  for (std::size_t j = 0; j < hs; ++j)
    for (std::size_t i = 0; i < C; ++i) f(o.projw + (h * hs + j) * C + i, o.projw + j * C + i);  // c_proj.weight (C, C): rows
}
}  // namespace

void make_heads_identical(gpt::Gpt& m) {
  for (std::size_t l = 0; l < m.config.n_layer; ++l)
    for (std::size_t h = 1; h < m.config.n_head; ++h)
      for_head_entries(m, l, h, [&m](std::size_t at, std::size_t at0) { m.params[at] = m.params[at0]; });
}

double max_head_gap(const gpt::Gpt& m) {
  double gap = 0.0;
  for (std::size_t l = 0; l < m.config.n_layer; ++l)
    for (std::size_t h = 1; h < m.config.n_head; ++h)
      for_head_entries(m, l, h, [&](std::size_t at, std::size_t at0) {
        gap = std::max(gap, std::fabs(m.params[at] - m.params[at0]));
      });
  return gap;
}

}  // namespace attn::train
