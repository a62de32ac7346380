#pragma once
// Horizontal bar charts in plain text: readable without colour, in any terminal font.
//   MHA  ████████████████████████████████  4.0 MiB
//   MLA  ▋                                  72.0 KiB
#include <string>
#include <vector>

namespace attn {

struct Bar {
  std::string label;   // left of the bar
  double value = 0;    // bar length is value / max value · width
  std::string note;    // right of the bar, e.g. "4.0 MiB (100%)"
};

// Bars scaled to the largest value over `width` columns, drawn with █ and eighth blocks;
// a positive value never disappears (at least one thin block).
std::string bar_chart(const std::vector<Bar>& bars, std::size_t width, const std::string& indent = "  ");

}  // namespace attn
