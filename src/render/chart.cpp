// render_chart: a line chart of rank-1 tensors in a character grid, readable without colour.
#include <fmt/format.h>

#include "render/terminal.h"

namespace attn {

std::string render_chart(const Trace& trace, const Chart& chart, const RenderOptions& opt) {
  (void)opt;
  // Placeholder until the gelu lesson brings the plot: list the series.
  std::string out = "  " + chart.title + "\n";
  for (const std::string& y : chart.y) out += fmt::format("  {} vs {}\n", y, chart.x);
  (void)trace;
  return out;
}

}  // namespace attn
