#include "adamw.h"

#include <cmath>
#include <stdexcept>

#include "parallel.h"

namespace attn {

void adamw_step(AdamW& opt, std::vector<double>& params, const std::vector<double>& grads, double lr,
                const std::vector<std::uint8_t>* decay) {
  const std::size_t n = params.size();
  if (grads.size() != n || (decay && decay->size() != n))
    throw std::invalid_argument("adamw_step: params, grads and decay differ in size");
  if (opt.m.size() != n) opt.m.assign(n, 0.0), opt.v.assign(n, 0.0);
  ++opt.t;
  const double t = static_cast<double>(opt.t);
  const double bias1 = 1.0 - std::pow(opt.beta1, t), bias2 = 1.0 - std::pow(opt.beta2, t);
  const double step_size = lr / bias1, bias2_sqrt = std::sqrt(bias2), shrink = 1.0 - lr * opt.weight_decay;
  parallel_for(n, 16384, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      if (!decay || (*decay)[i]) params[i] *= shrink;
      const double g = grads[i];
      opt.m[i] = opt.m[i] * opt.beta1 + g * (1.0 - opt.beta1);
      opt.v[i] = opt.v[i] * opt.beta2 + g * g * (1.0 - opt.beta2);
      const double denom = std::sqrt(opt.v[i]) / bias2_sqrt + opt.eps;
      params[i] += -step_size * (opt.m[i] / denom);
    }
  });
}

}  // namespace attn
