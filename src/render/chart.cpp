// render_chart: a line chart of rank-1 tensors in a character grid, readable without colour.
// Each series has its own marker (* o # x @ …), so the curves can be told apart on paper or in
// a terminal without colour; with colour each marker is also tinted. Axes cross at (0, 0) when
// 0 is in range (always on the y axis, unless the chart fits its series: Chart::fit); the y axis
// is labelled at its top, at 0 and at its bottom, the x axis at its ends and at 0.
//
//    4.00 |                                  *
//         |                              ****
//    0.00 +---------oooo*****************-----
//   -0.28 |   ooo
//         -4                0                4
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "style.h"
#include "terminal.h"

namespace attn {

namespace {

constexpr std::size_t kWidth = 61;   // plot columns
constexpr std::size_t kHeight = 17;  // plot rows
constexpr const char* kMarkers = "*o#x@%&=";

std::string tint(const std::string& s, std::size_t series, bool color) {
  switch (series % 4) {
    case 0: return style::cyan(s, color);
    case 1: return style::yellow(s, color);
    case 2: return style::green(s, color);
    default: return style::red(s, color);
  }
}

// y of a series at position x, by linear interpolation between the samples (xs ascending).
double sample_at(const Tensor& xs, const Tensor& ys, double x) {
  auto it = std::lower_bound(xs.data.begin(), xs.data.end(), x);
  if (it == xs.data.begin()) return ys.data.front();
  if (it == xs.data.end()) return ys.data.back();
  std::size_t i = static_cast<std::size_t>(it - xs.data.begin());
  double x0 = xs.data[i - 1], x1 = xs.data[i];
  double t = x1 > x0 ? (x - x0) / (x1 - x0) : 0.0;
  return ys.data[i - 1] + t * (ys.data[i] - ys.data[i - 1]);
}

// The cell of a fraction along an axis of n cells (0: the first, 1: the last, clamped between);
// n, which no cell has, for a NaN (a range so wide that it overflows gives ∞/∞): never cast.
std::size_t cell_of(double fraction, std::size_t n) {
  if (std::isnan(fraction)) return n;
  return static_cast<std::size_t>(std::lround(std::clamp(fraction, 0.0, 1.0) * static_cast<double>(n - 1)));
}

const Tensor& series_tensor(const Trace& trace, const std::string& name, std::size_t n) {
  const Tensor& t = trace.at(name).tensor;
  if (t.rank() != 1 || (n != 0 && t.numel() != n))
    throw std::logic_error(fmt::format("chart: tensor '{}' {} must be rank 1 of length {}", name,
                                       shape_str(t.shape), n));
  return t;
}

}  // namespace

std::string render_chart(const Trace& trace, const Chart& chart, const RenderOptions& opt) {
  const Tensor& xs = series_tensor(trace, chart.x, 0);
  std::size_t n = xs.numel();
  if (n < 2 || chart.y.empty()) throw std::logic_error("chart '" + chart.title + "' needs 2 points and a series");
  double xlo = xs.data.front(), xhi = xs.data.back();
  // 0 in range, so the x axis shows, unless the chart fits its series (then the axis starts at
  // the lowest value drawn and ends at the highest)
  double ylo = chart.fit ? INFINITY : 0.0, yhi = chart.fit ? -INFINITY : 0.0;
  std::vector<const Tensor*> ys;
  for (const std::string& name : chart.y) {
    ys.push_back(&series_tensor(trace, name, n));
    for (double v : ys.back()->data)
      if (std::isfinite(v)) ylo = std::min(ylo, v), yhi = std::max(yhi, v);
  }
  if (!(ylo <= yhi)) ylo = 0.0, yhi = 0.0;  // a fitted chart with nothing finite
  if (yhi == ylo) yhi = ylo + 1.0;
  auto row_of = [&](double y) { return cell_of((yhi - y) / (yhi - ylo), kHeight); };  // kHeight: none
  auto x_at = [&](std::size_t c) { return xlo + (xhi - xlo) * static_cast<double>(c) / static_cast<double>(kWidth - 1); };
  // pass 1: the axes
  std::vector<std::vector<std::string>> grid(kHeight, std::vector<std::string>(kWidth, " "));
  std::size_t zero_row = ylo <= 0.0 && 0.0 <= yhi ? row_of(0.0) : kHeight;  // kHeight: 0 is not on a fitted axis
  std::size_t zero_col = kWidth;  // none unless 0 is within the x range (at its left end the frame's | is the axis)
  if (xlo < 0.0 && xhi >= 0.0) zero_col = cell_of(-xlo / (xhi - xlo), kWidth);
  if (zero_row < kHeight)
    for (std::size_t c = 0; c < kWidth; ++c) grid[zero_row][c] = "-";
  if (zero_col < kWidth)
    for (std::size_t r = 0; r < kHeight; ++r) grid[r][zero_col] = r == zero_row ? "+" : "|";
  // pass 2: the series, the last first, so that where curves overlap the first listed shows
  for (std::size_t k = ys.size(); k-- > 0;)
    for (std::size_t c = 0; c < kWidth; ++c) {
      double y = sample_at(xs, *ys[k], x_at(c));
      std::size_t row = std::isfinite(y) ? row_of(y) : kHeight;  // a gap (NaN) is not drawn
      if (row < kHeight) grid[row][c] = tint(std::string(1, kMarkers[k % 8]), k, opt.color);
    }
  // pass 3: the lines, y labels on the left
  std::string top = fixed(yhi, 2), zero = fixed(0.0, 2), bottom = fixed(ylo, 2);
  std::size_t label_w = std::max({top.size(), zero.size(), bottom.size()});
  std::string out = "  " + style::bold(chart.title, opt.color) + "\n";
  for (std::size_t r = 0; r < kHeight; ++r) {
    std::string label = r == 0 ? top : r == zero_row ? zero : r == kHeight - 1 ? bottom : "";
    std::string line = "  " + pad_left(label, label_w) + " |";
    for (const std::string& cell : grid[r]) line += cell;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  // x labels: the two ends and 0
  std::string xl(kWidth + 2, ' ');
  auto put = [&](std::size_t at, const std::string& s) { xl.replace(at, s.size(), s); };  // at: grid column + 2
  std::string left = fixed(xlo, 1), right = fixed(xhi, 1);
  if (left.size() + right.size() + 4 > kWidth) left.clear(), right.clear();  // absurd ranges: no labels
  put(2, left);
  if (zero_col < kWidth && zero_col > left.size() + 1 && zero_col + right.size() + 2 < kWidth) put(zero_col + 2, "0");
  put(kWidth + 2 - right.size(), right);
  while (!xl.empty() && xl.back() == ' ') xl.pop_back();
  out += "  " + std::string(label_w, ' ') + xl + "   " + style::dim(chart.x, opt.color) + "\n";
  // legend
  std::size_t name_w = 0;
  for (const std::string& name : chart.y) name_w = std::max(name_w, display_width(name));
  for (std::size_t k = 0; k < chart.y.size(); ++k)
    out += "    " + tint(std::string(1, kMarkers[k % 8]), k, opt.color) + "  " + pad_right(chart.y[k], name_w) + "  " +
           style::dim(trace.at(chart.y[k]).meaning, opt.color) + "\n";
  if (chart.y.size() > 1)
    out += style::dim("    " + trace.ui_word("curves_overlap"), opt.color) + "\n";
  return out;
}

}  // namespace attn
