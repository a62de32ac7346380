#include "rope.h"
#include "libm.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace attn {

namespace {

void require_even(const char* op, std::size_t d_R) {
  if (d_R == 0 || d_R % 2 != 0)
    throw std::invalid_argument(fmt::format("{}: the rotated width must be even and positive, got {}", op, d_R));
}

}  // namespace

Tensor rope_theta(std::size_t d_R, double base) {
  require_even("rope_theta", d_R);
  Tensor theta({d_R / 2});  // (R/2)
  for (std::size_t i = 0; i < d_R / 2; ++i)
    theta.data[i] = libm::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d_R));
  return theta;
}

Tensor rope_angles(std::size_t T, std::size_t d_R, double base) {
  Tensor theta = rope_theta(d_R, base);  // (R/2)
  Tensor angles({T, d_R / 2});           // (T, R/2)
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < d_R / 2; ++i) angles(t, i) = static_cast<double>(t) * theta.data[i];
  return angles;
}

Tensor apply_rope(const Tensor& x, std::size_t d_R, double base) {
  require_even("apply_rope", d_R);
  if (x.rank() != 2 || x.dim(1) % d_R != 0)
    throw std::invalid_argument(
        fmt::format("apply_rope: expected (T, n·{}), got {}", d_R, shape_str(x.shape)));
  Tensor angles = rope_angles(x.dim(0), d_R, base);  // (T, R/2)
  Tensor out = x;                                    // (T, n·R)
  for (std::size_t t = 0; t < x.dim(0); ++t)
    for (std::size_t b = 0; b < x.dim(1) / d_R; ++b)
      for (std::size_t i = 0; i < d_R / 2; ++i) {
        double c = libm::cos(angles(t, i)), s = libm::sin(angles(t, i));
        std::size_t j = b * d_R + 2 * i;
        double x0 = x(t, j), x1 = x(t, j + 1);
        out(t, j) = x0 * c - x1 * s;
        out(t, j + 1) = x0 * s + x1 * c;
      }
  return out;
}

}  // namespace attn
