#pragma once
// The terminal renderer: reads a finished Trace and returns the text to print. It knows
// colours and widths; lessons know neither.
#include <string>

#include "tensor.h"
#include "trace.h"

namespace attn {

struct RenderOptions {
  int precision = 4;   // decimals, as numpy's precision
  bool color = false;  // ANSI colours (decided by the CLI: --color, NO_COLOR, isatty)
  bool full = false;   // never summarize large tensors
};

// The whole lesson: a header, then each step with its text, tensors, values, tables, notes.
std::string render_trace(const Trace& trace, const RenderOptions& opt);

// One tensor the way numpy prints it: aligned columns, rows labelled, rank 3 as one block per
// entry of the first axis, large tensors summarized with the first/last rows and columns and "…".
std::string render_tensor(const std::string& name, const TraceTensor& t, const Trace& trace, const RenderOptions& opt);

// A (T, T) or (H, T, T) tensor of values in [0, 1] as a heatmap: coloured cells when colour is
// on, a character ramp " .:-=+*#%@" otherwise.
std::string render_heatmap(const TraceTensor& t, const Trace& trace, const RenderOptions& opt);

// A line chart of rank-1 tensors in a character grid (see render/chart.cpp).
std::string render_chart(const Trace& trace, const Chart& chart, const RenderOptions& opt);

// A scalar as text: integers with thousands separators, reals with `precision` decimals (or in
// scientific notation when smaller than that shows; exactly 0 prints as "0").
std::string format_scalar(const Scalar& v, int precision, const Trace* trace = nullptr);

// A table with aligned columns: text left-aligned, numbers right-aligned.
std::string render_table(const Table& t, int precision, const std::string& indent = "  ");

// Wrap text to `width` terminal columns (CJK-aware), each line prefixed with indent.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent);

}  // namespace attn
