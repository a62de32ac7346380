#include "rope_half.h"
#include "libm.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace attn {

Tensor rope_inv_freq(std::size_t head_dim, double base) {
  if (head_dim == 0 || head_dim % 2 != 0) throw std::invalid_argument("rope_inv_freq: head_dim must be even and positive");
  Tensor f({head_dim / 2});  // (Dh/2)
  for (std::size_t i = 0; i < head_dim / 2; ++i)
    f.data[i] = 1.0 / libm::pow(base, static_cast<double>(2 * i) / static_cast<double>(head_dim));
  return f;
}

Tensor rope_scale_linear(const Tensor& inv_freq, double factor) { return scale(inv_freq, 1.0 / factor); }

Tensor rope_scale_llama3(const Tensor& inv_freq, double factor, double low_freq_factor, double high_freq_factor,
                         double old_context) {
  double low_wavelen = old_context / low_freq_factor, high_wavelen = old_context / high_freq_factor;
  Tensor out = inv_freq;
  for (double& f : out.data) {
    double wavelen = 2.0 * std::numbers::pi / f;
    if (wavelen > low_wavelen) {
      f = f / factor;  // long wavelengths: stretched
    } else if (wavelen >= high_wavelen) {
      double s = (old_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
      f = (1.0 - s) * f / factor + s * f;  // in between: blended
    }  // short wavelengths: unchanged
  }
  return out;
}

Tensor apply_rope_half(const Tensor& x, const Tensor& inv_freq, std::size_t first_position) {
  if (x.rank() != 3 || x.dim(2) % 2 != 0 || inv_freq.shape != Shape{x.dim(2) / 2})
    throw std::invalid_argument("apply_rope_half: x " + shape_str(x.shape) + ", inv_freq " + shape_str(inv_freq.shape) +
                                " do not fit (n, T, Dh), (Dh/2)");
  std::size_t n = x.dim(0), T = x.dim(1), half = x.dim(2) / 2;
  Tensor out(x.shape);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < half; ++i) {
      double a = static_cast<double>(first_position + t) * inv_freq.data[i], c = libm::cos(a), s = libm::sin(a);
      for (std::size_t h = 0; h < n; ++h) {
        double lo = x(h, t, i), hi = x(h, t, i + half);
        out(h, t, i) = lo * c - hi * s;
        out(h, t, i + half) = hi * c + lo * s;
      }
    }
  return out;
}

}  // namespace attn
