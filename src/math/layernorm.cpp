#include "layernorm.h"

#include <cmath>
#include <stdexcept>

namespace attn {

LayerNormPass layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  if (x.rank() != 2 || gamma.shape != Shape{x.dim(1)} || beta.shape != Shape{x.dim(1)})
    throw std::invalid_argument("layernorm: x " + shape_str(x.shape) + ", gamma " + shape_str(gamma.shape) +
                                ", beta " + shape_str(beta.shape) + " do not fit (T, D), (D), (D)");
  std::size_t T = x.dim(0), D = x.dim(1);
  LayerNormPass p{Tensor({T}), Tensor({T}), Tensor({T, D}), Tensor({T, D})};
  for (std::size_t t = 0; t < T; ++t) {
    // pass 1: the mean
    double m = 0.0;
    for (std::size_t i = 0; i < D; ++i) m += x(t, i);
    m /= static_cast<double>(D);
    // pass 2: the (biased) variance
    double v = 0.0;
    for (std::size_t i = 0; i < D; ++i) v += (x(t, i) - m) * (x(t, i) - m);
    v /= static_cast<double>(D);
    double s = 1.0 / std::sqrt(v + eps);
    // pass 3: normalize, then scale by γ and shift by β
    for (std::size_t i = 0; i < D; ++i) {
      p.xhat(t, i) = (x(t, i) - m) * s;
      p.out(t, i) = p.xhat(t, i) * gamma.data[i] + beta.data[i];
    }
    p.mean.data[t] = m;
    p.rstd.data[t] = s;
  }
  return p;
}

}  // namespace attn
