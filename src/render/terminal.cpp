#include "terminal.h"

#include "summary.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "style.h"
#include "table.h"

namespace attn {

namespace {

bool all_integers(const Tensor& t) {
  return std::all_of(t.data.begin(), t.data.end(),
                     [](double v) { return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15; });
}

// One cell of the matrix starting at data offset `base` with C columns, as printed.
std::string cell_text(const Tensor& t, std::size_t base, std::size_t C, std::size_t r, std::size_t c, bool integers,
                      const RenderOptions& opt) {
  double v = t.data[base + r * C + c];
  return integers ? fmt::format("{}", static_cast<long long>(v)) : fixed(v, opt.precision);
}

// The column width of one matrix (R, C) at `base`: its widest shown cell or column label.
std::size_t matrix_width(const Tensor& t, std::size_t base, std::size_t R, std::size_t C, const Labels& labels,
                         bool integers, const Summary& s, const RenderOptions& opt) {
  std::vector<std::size_t> rows = shown_indices(R, s.rows), cols = shown_indices(C, s.cols);
  std::size_t width = 1;
  for (std::size_t r : rows)
    for (std::size_t c : cols)
      if (r != std::string::npos && c != std::string::npos)
        width = std::max(width, cell_text(t, base, C, r, c, integers, opt).size());
  if (labels.cols.size() == C)
    for (std::size_t c : cols)
      if (c != std::string::npos) width = std::max(width, display_width(labels.cols[c]));
  return width;
}

// One matrix (R, C) starting at data offset `base`, rows labelled, as aligned lines, every column
// `width` wide (like numpy: one width for the whole tensor, every block of a rank-3 one included).
std::string render_matrix(const Tensor& t, std::size_t base, std::size_t R, std::size_t C, const Labels& labels,
                          bool integers, const Summary& s, const RenderOptions& opt, const std::string& indent,
                          std::size_t width) {
  std::vector<std::size_t> rows = shown_indices(R, s.rows), cols = shown_indices(C, s.cols);
  auto cell = [&](std::size_t r, std::size_t c) { return cell_text(t, base, C, r, c, integers, opt); };
  bool col_labels = labels.cols.size() == C;
  bool row_labels = labels.rows.size() == R;
  std::size_t label_w = 0;
  if (row_labels)
    for (std::size_t r : rows)
      if (r != std::string::npos) label_w = std::max(label_w, display_width(labels.rows[r]));
  std::string lead = indent + (row_labels ? std::string(label_w + 2, ' ') : "");
  // pass 2: the lines
  std::string out;
  if (col_labels) {
    std::string line = lead;
    for (std::size_t c : cols)
      line += "  " + pad_left(c == std::string::npos ? "…" : labels.cols[c], width);
    out += style::dim(line, opt.color) + "\n";
  }
  for (std::size_t r : rows) {
    std::string line = indent;
    if (row_labels) line += pad_right(r == std::string::npos ? "" : labels.rows[r], label_w) + "  ";
    for (std::size_t c : cols) {
      if (r == std::string::npos) line += "  " + pad_left(c == std::string::npos ? "" : "⋮", width);
      else line += "  " + pad_left(c == std::string::npos ? "…" : cell(r, c), width);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// A rank-1 tensor as one row, or a rank-2 one, with its own column width.
std::string render_single(const Tensor& t, const Labels& labels, bool integers, const Summary& s, const RenderOptions& opt) {
  std::size_t R = t.rank() == 1 ? 1 : t.dim(0), C = t.shape.back();
  return render_matrix(t, 0, R, C, labels, integers, s, opt, "  ", matrix_width(t, 0, R, C, labels, integers, s, opt));
}

}  // namespace

std::string render_tensor(const std::string& name, const TraceTensor& tt, const Trace& trace, const RenderOptions& opt) {
  const Tensor& t = tt.tensor;
  std::string out = fmt::format("{}  {}  {}\n", style::bold(name, opt.color), style::cyan(shape_str(t.shape), opt.color),
                                style::dim(tt.meaning, opt.color));
  Summary s = summary_for(t, opt.full);
  bool integers = all_integers(t);
  // Gaps are counted in a series only (rank 1): a scan of every number of a (12, 1024, 1024)
  // tensor for nothing was most of the terminal renderer's time in `lesson mha --seq-len 1024`.
  std::size_t gaps = 0;
  if (t.rank() == 1) gaps = static_cast<std::size_t>(std::count_if(t.data.begin(), t.data.end(), [](double v) { return std::isnan(v); }));
  if (2 * gaps > t.numel()) {
    // A chart series that is mostly gaps (NaN where nothing is drawn, e.g. one marker on a
    // roofline): only its numbers are printed, each under its index.
    out += style::dim("  " + trace.ui_word("series_gaps"), opt.color) + "\n";
    if (gaps == t.numel()) return out;
    Tensor kept({t.numel() - gaps});
    Labels labels;
    for (std::size_t i = 0, k = 0; i < t.numel(); ++i)
      if (!std::isnan(t.data[i])) {
        kept.data[k++] = t.data[i];
        labels.cols.push_back(fmt::format("[{}]", i));
      }
    return out + render_single(kept, labels, integers, summary_for(kept, opt.full), opt);
  }
  if (t.rank() <= 2) return out + render_single(t, tt.labels, integers, s, opt);
  // rank 3 (or 4): one block per entry of the leading axes, all with the same column width
  std::size_t R = t.shape[t.rank() - 2], C = t.shape.back(), B = t.numel() / (R * C);
  std::string word = tt.labels.block.empty() ? trace.ui_word("block") : tt.labels.block;
  std::size_t width = 1;
  for (std::size_t b : shown_indices(B, s.blocks))
    if (b != std::string::npos) width = std::max(width, matrix_width(t, b * R * C, R, C, tt.labels, integers, s, opt));
  for (std::size_t b : shown_indices(B, s.blocks)) {
    if (b == std::string::npos) {
      out += fmt::format("  … {}\n", trace.ui_word("blocks_omitted"));
      continue;
    }
    std::string title = t.rank() == 3 ? fmt::format("{} {}", word, b + 1)
                                      : fmt::format("{} [{}, {}]", word, b / t.dim(1) + 1, b % t.dim(1) + 1);
    out += "  " + style::yellow(title, opt.color) + "\n";
    out += render_matrix(t, b * R * C, R, C, tt.labels, integers, s, opt, "  ", width);
  }
  return out;
}

std::string render_heatmap(const TraceTensor& tt, const Trace& trace, const RenderOptions& opt) {
  static const char* ramp = " .:-=+*#%@";  // 10 levels for [0, 1]
  const Tensor& t = tt.tensor;
  std::size_t R = t.shape[t.rank() - 2], C = t.shape.back(), B = t.numel() / (R * C);
  if (R > 48 || C > 48) return "";  // too large to read as a picture; the numbers above stay
  bool row_labels = tt.labels.rows.size() == R;
  auto first = static_cast<std::size_t>(tt.labels.first);  // the number of column 1
  std::size_t label_w = 0;
  if (row_labels)
    for (const std::string& l : tt.labels.rows) label_w = std::max(label_w, display_width(l));
  std::string out;
  for (std::size_t b = 0; b < B; ++b) {
    std::string head = B > 1 ? fmt::format("{} {}", tt.labels.block, b + 1) : "";
    std::string word = trace.ui_word("heatmap");
    out += "  " + style::yellow(head.empty() ? word : head + " · " + word, opt.color) + "\n";
    // Column numbers, one 2-wide cell each: from 10 columns on the tens digit goes on a line of
    // its own above the units ("1" over "0" is column 10), so the numbers never run together.
    // They count from labels.first: 1, or 0 where the rows are positions counted from 0.
    std::string lead = "  " + std::string(row_labels ? label_w + 2 : 0, ' ');
    if (C - 1 + first >= 10) {  // the last column's number has two digits
      std::string tens = lead;
      for (std::size_t c = first; c < C + first; ++c) tens += c >= 10 ? fmt::format("{:>2}", c / 10 % 10) : "  ";
      out += style::dim(tens, opt.color) + "\n";
    }
    std::string header = lead;
    for (std::size_t c = first; c < C + first; ++c) header += fmt::format("{:>2}", C >= 10 ? c % 10 : c);
    out += style::dim(header, opt.color) + "\n";
    for (std::size_t r = 0; r < R; ++r) {
      std::string line = "  " + (row_labels ? pad_right(tt.labels.rows[r], label_w) + "  " : "");
      for (std::size_t c = 0; c < C; ++c) {
        const double x = t.data[(b * R + r) * C + c];
        if (std::isnan(x)) {  // not a number: a gap with a mark of its own, never a level (nor a cast)
          line += style::kHeatGap;
          continue;
        }
        double v = std::clamp(x, 0.0, 1.0);  // ±inf clamp to the ends (a masked score is -inf)
        int level = std::min(9, static_cast<int>(v * 10.0));
        line += opt.color ? style::heat_cell(v) : std::string(2, ramp[level]);
      }
      out += line + "\n";
    }
  }
  out += style::dim("  " + trace.ui_word(opt.color ? "heatmap_legend_color" : "heatmap_legend_ramp"), opt.color) + "\n";
  return out;
}

std::string format_scalar(const Scalar& v, int precision, const Trace* trace) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return with_commas(*i);
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* b = std::get_if<Bool>(&v)) {
    std::string word = b->value ? "true" : "false";
    return trace != nullptr ? trace->ui_word(word) : word;
  }
  if (auto* l = std::get_if<std::vector<std::string>>(&v)) {
    std::string out;
    for (const std::string& w : *l) out += (out.empty() ? "" : " ") + w;
    return out;
  }
  double x = std::get<double>(v);
  if (x == 0.0) return "0";
  if (std::isfinite(x) && std::fabs(x) < 0.5 * std::pow(10.0, -precision)) return fmt::format("{:.2e}", x);
  return fixed(x, precision);
}

std::string render_table(const Table& t, int precision, const std::string& indent) {
  // Format the cells, then lay them out with the plain-table renderer: a column is
  // right-aligned unless one of its cells is text.
  TextTable out;
  out.header = t.header;
  out.indent = indent;
  out.rule = "-";
  out.right.assign(t.header.size(), true);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < t.header.size() && c < row.size(); ++c) {
      cells.push_back(format_scalar(row[c], precision));
      if (std::holds_alternative<std::string>(row[c])) out.right[c] = false;
    }
    out.rows.push_back(cells);
  }
  return render_table(out);
}

}  // namespace attn
