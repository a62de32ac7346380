// Plain-text horizontal bar charts (see bars.h).
#include "bars.h"

#include <algorithm>
#include <cmath>

#include "text.h"

namespace attn {

std::string bar_chart(const std::vector<Bar>& bars, std::size_t width, const std::string& indent) {
  static const char* eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  double top = 0;
  std::size_t label_w = 0;
  for (const auto& b : bars) {
    top = std::max(top, b.value);
    label_w = std::max(label_w, display_width(b.label));
  }
  std::string out;
  for (const auto& b : bars) {
    // The bar's share of the longest, in [0, 1]; a NaN (no number, or ∞/∞) draws no bar: never cast.
    double share = top > 0 ? b.value / top : 0.0;
    share = std::isnan(share) ? 0.0 : std::clamp(share, 0.0, 1.0);
    long units = std::lround(share * static_cast<double>(width) * 8.0);
    if (b.value > 0 && units == 0) units = 1;
    std::string bar;
    for (long i = 0; i < units / 8; ++i) bar += "█";
    bar += eighths[units % 8];
    out += indent + pad_right(b.label, label_w) + "  " + pad_right(bar, width) + "  " + b.note + "\n";
  }
  return out;
}

}  // namespace attn
