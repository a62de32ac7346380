#include "rmsnorm.h"

#include <cmath>
#include <stdexcept>

namespace attn {

RmsNormPass rmsnorm(const Tensor& x, const Tensor& gamma, double eps) {
  if (x.rank() != 2 || gamma.shape != Shape{x.dim(1)})
    throw std::invalid_argument("rmsnorm: x " + shape_str(x.shape) + ", gamma " + shape_str(gamma.shape) +
                                " do not fit (T, D), (D)");
  std::size_t T = x.dim(0), D = x.dim(1);
  RmsNormPass p{Tensor({T}), Tensor({T, D})};
  for (std::size_t t = 0; t < T; ++t) {
    double ms = 0.0;  // mean of the squares
    for (std::size_t i = 0; i < D; ++i) ms += x(t, i) * x(t, i);
    ms /= static_cast<double>(D);
    double s = 1.0 / std::sqrt(ms + eps);
    for (std::size_t i = 0; i < D; ++i) p.out(t, i) = x(t, i) * s * gamma.data[i];
    p.rstd.data[t] = s;
  }
  return p;
}

}  // namespace attn
