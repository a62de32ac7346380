#include "row_stats.h"

#include <cmath>
#include <stdexcept>

namespace attn {

Tensor row_norms(const Tensor& x) {
  if (x.rank() != 2) throw std::invalid_argument("row_norms: expected (T, C), got " + shape_str(x.shape));
  Tensor out({x.dim(0)});  // (T)
  for (std::size_t i = 0; i < x.dim(0); ++i) {
    double s = 0.0;
    for (std::size_t c = 0; c < x.dim(1); ++c) s += x(i, c) * x(i, c);
    out.data[i] = std::sqrt(s);
  }
  return out;
}

}  // namespace attn
