#include "adamw.h"
#include "libm.h"

#include <cmath>
#include <stdexcept>

#include "parallel.h"

namespace attn {

template <class S>
void adamw_step(AdamWT<S>& opt, std::vector<S>& params, const std::vector<S>& grads, double lr,
                const std::vector<std::uint8_t>* decay) {
  const std::size_t n = params.size();
  if (grads.size() != n || (decay && decay->size() != n))
    throw std::invalid_argument("adamw_step: params, grads and decay differ in size");
  if (opt.m.size() != n) opt.m.assign(n, S(0)), opt.v.assign(n, S(0));
  ++opt.t;
  const double t = static_cast<double>(opt.t);
  const double bias1 = 1.0 - libm::pow(opt.beta1, t), bias2 = 1.0 - libm::pow(opt.beta2, t);
  // the step's scalars, rounded once to S (no rounding at all in double)
  const S step_size = static_cast<S>(lr / bias1), bias2_sqrt = static_cast<S>(std::sqrt(bias2)),
          shrink = static_cast<S>(1.0 - lr * opt.weight_decay), beta1 = static_cast<S>(opt.beta1),
          beta2 = static_cast<S>(opt.beta2), one_minus_beta1 = static_cast<S>(1.0 - opt.beta1),
          one_minus_beta2 = static_cast<S>(1.0 - opt.beta2), eps = static_cast<S>(opt.eps);
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      if (!decay || (*decay)[i]) params[i] *= shrink;
      const S g = grads[i];
      opt.m[i] = opt.m[i] * beta1 + g * one_minus_beta1;
      opt.v[i] = opt.v[i] * beta2 + g * g * one_minus_beta2;
      const S denom = std::sqrt(opt.v[i]) / bias2_sqrt + eps;
      params[i] += -step_size * (opt.m[i] / denom);
    }
  });
}

template void adamw_step(AdamWT<double>&, std::vector<double>&, const std::vector<double>&, double,
                         const std::vector<std::uint8_t>*);
template void adamw_step(AdamWT<float>&, std::vector<float>&, const std::vector<float>&, double,
                         const std::vector<std::uint8_t>*);

}  // namespace attn
