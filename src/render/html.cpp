// The HTML renderer (see html.h). Everything is written in one pass into a string; the page's
// size is kept in check by summarising large tensors like the terminal does and by a budget of
// numbers for the full tables behind "every number".
#include "html.h"

#include "summary.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "terminal.h"

namespace attn {

namespace {

constexpr std::size_t kHeatmapMax = 64;   // larger matrices are not drawn (the numbers stay)
constexpr std::size_t kHeatmapBlocks = 16;

std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// The exact double, as the JSON trace writes it (shortest round-trip form).
std::string exact(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x < 0 ? "-Infinity" : "Infinity";
  return fmt::format("{}", x);
}

std::string num(double x, int precision, bool integer) {
  if (std::isinf(x)) return x < 0 ? "-\u221e" : "\u221e";
  if (integer) return fmt::format("{}", static_cast<long long>(x));
  return fixed(x, precision);
}

// Viridis at 9 stops (matplotlib's table), interpolated in sRGB.
constexpr std::array<std::array<int, 3>, 9> kViridis = {{{68, 1, 84},
                                                         {71, 44, 122},
                                                         {59, 81, 139},
                                                         {44, 113, 142},
                                                         {33, 144, 141},
                                                         {39, 173, 129},
                                                         {92, 200, 99},
                                                         {170, 220, 50},
                                                         {253, 231, 37}}};
// Blue – white – red (ColorBrewer RdBu, reversed), 9 stops for t in [-1, 1].
constexpr std::array<std::array<int, 3>, 9> kDiverging = {{{33, 102, 172},
                                                           {67, 147, 195},
                                                           {146, 197, 222},
                                                           {209, 229, 240},
                                                           {247, 247, 247},
                                                           {253, 219, 199},
                                                           {244, 165, 130},
                                                           {214, 96, 77},
                                                           {178, 24, 43}}};

std::string lerp_map(const std::array<std::array<int, 3>, 9>& map, double t) {
  if (!std::isfinite(t)) t = t > 0 ? 1.0 : 0.0;
  t = std::clamp(t, 0.0, 1.0) * 8.0;
  auto i = std::min<std::size_t>(7, static_cast<std::size_t>(t));
  double f = t - static_cast<double>(i);
  std::array<int, 3> c{};
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<int>(std::lround(map[i][k] + f * (map[i + 1][k] - map[i][k])));
  return fmt::format("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
}

constexpr int kLevels = 16;  // colour classes per map in the tables

// The page's style sheet: themes by prefers-color-scheme, a CJK font stack, print rules, and the
// cell colour classes (v0…v15 viridis, d0…d16 diverging).
std::string css() {
  std::string s = R"(
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1f;--dim:#5c5f66;--rule:#d0d4da;--code:#f3f4f6;--accent:#2c6e9b}
@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e6e6e6;--dim:#a0a4ab;--rule:#3a3f47;--code:#22252b;--accent:#7fb5dd}}
body{margin:0 auto;max-width:72rem;padding:1rem 1.5rem 3rem;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","Source Han Sans SC","PingFang SC","Microsoft YaHei",sans-serif;overflow-wrap:anywhere}
:lang(zh) body,body:lang(zh){font-family:"Noto Sans CJK SC","Source Han Sans SC","PingFang SC","Hiragino Sans GB","Microsoft YaHei",system-ui,sans-serif;line-height:1.7}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.2rem;margin:2rem 0 .4rem;padding-top:.6rem;border-top:1px solid var(--rule)}
h3{font-size:1rem;margin:1rem 0 .2rem}h3 code{font-size:1rem}.shape{color:var(--accent);font-family:ui-monospace,monospace;margin:0 .5rem}
.meaning{color:var(--dim)}.id{color:var(--dim);font-size:.8rem;font-weight:normal;margin-left:.5rem}
p.text{white-space:pre-wrap;margin:.3rem 0}nav ol{columns:2;column-gap:2rem;margin:.3rem 0}
.config{display:flex;flex-wrap:wrap;gap:.2rem 1.2rem;color:var(--dim);font-size:.9rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font:12px/1.3 ui-monospace,"SFMono-Regular",Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;margin:.3rem 0}
td,th{padding:1px 5px;text-align:right;white-space:nowrap}th{color:var(--dim);font-weight:normal}
th.r{text-align:left}table.grid td{min-width:3.5em}table.rows td,table.rows th{text-align:left;border-bottom:1px solid var(--rule)}
table.rows td.n{text-align:right}.blk{color:#9a6b00;font-size:.85rem;margin:.4rem 0 0}
details{margin:.2rem 0}summary{cursor:pointer;color:var(--accent);font-size:.85rem}
.heatmaps{display:flex;flex-wrap:wrap;gap:.8rem 1.2rem;margin:.5rem 0;align-items:flex-start}
figure{margin:0}figcaption{font-size:.8rem;color:var(--dim);text-align:center}
svg text{fill:var(--fg);font-size:10px;font-family:inherit}svg .ax{stroke:var(--dim);stroke-width:1;fill:none}
svg.hm rect:hover{stroke:#ff2d95;stroke-width:.12}
output.hover{display:block;min-height:1.4em;font:12px ui-monospace,monospace;color:var(--fg)}
.legend{display:flex;align-items:center;gap:.5rem;font-size:.8rem;color:var(--dim)}
ul.notes{padding-left:1.2rem}ul.notes li::marker{content:"\2192  "}
dl.values{display:grid;grid-template-columns:max-content auto;gap:0 1rem;margin:.4rem 0}dl.values dt{color:var(--dim)}dl.values dd{margin:0;font-weight:600}
pre.report{font:13px/1.45 ui-monospace,"Noto Sans Mono CJK SC",monospace;white-space:pre;overflow-x:auto}
footer{margin-top:2rem;color:var(--dim);font-size:.85rem}
@media print{body{max-width:none;padding:0;font-size:11pt}nav,output.hover,summary,footer{display:none}h2{break-after:avoid}
 figure,table,svg{break-inside:avoid}.scroll{overflow:visible}:root{--bg:#fff;--fg:#000}}
)";
  for (int i = 0; i < kLevels; ++i) {
    double t = (i + 0.5) / kLevels;
    s += fmt::format(".v{}{{background:{};color:{}}}", i, lerp_map(kViridis, t), t < 0.55 ? "#fff" : "#000");
  }
  for (int i = 0; i <= kLevels; ++i) {
    double t = static_cast<double>(i) / kLevels;
    s += fmt::format(".d{}{{background:{};color:{}}}", i, lerp_map(kDiverging, t),
                     std::fabs(t - 0.5) > 0.38 ? "#fff" : "#000");
  }
  return s + "\n";
}

// Hover on a heatmap cell: its (query, key) tokens and exact value in the figure's <output>.
const char* kScript = R"(
document.addEventListener('mouseover',function(e){var r=e.target;if(!r.dataset||r.dataset.v===undefined)return;
var s=r.closest('svg'),f=s.closest('figure.heatmap'),o=f&&f.querySelector('output');if(!o)return;
var q=JSON.parse(s.dataset.q),k=JSON.parse(s.dataset.k),i=+r.getAttribute('y'),j=+r.getAttribute('x');
o.textContent=s.dataset.head+'  '+s.dataset.ql+' '+(q[i]||i+1)+' \u00b7 '+s.dataset.kl+' '+(k[j]||j+1)+' = '+r.dataset.v;});
)";

std::string page_head(const std::string& lang, const std::string& title) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"" + esc(lang) + "\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"attnlab " ATTNLAB_VERSION "\">\n";
  out += "<title>" + esc(title) + "</title>\n<style>" + css() + "</style>\n</head>\n<body>\n";
  return out;
}

std::string page_tail(bool script) {
  return std::string(script ? std::string("<script>") + kScript + "</script>\n" : "") + "</body>\n</html>\n";
}

// A legend: a gradient bar with its end labels.
std::string legend(bool signed_map, double max_abs, const std::string& caption, int id) {
  const auto& map = signed_map ? kDiverging : kViridis;
  std::string g = fmt::format("<svg width=\"160\" height=\"26\" viewBox=\"0 0 160 26\" role=\"img\"><defs><linearGradient id=\"lg{}\">", id);
  for (int i = 0; i <= 8; ++i)
    g += fmt::format("<stop offset=\"{}%\" stop-color=\"{}\"/>", i * 12.5, lerp_map(map, i / 8.0));
  g += fmt::format("</linearGradient></defs><rect x=\"4\" y=\"2\" width=\"152\" height=\"10\" fill=\"url(#lg{})\"/>", id);
  std::string lo = signed_map ? "-" + fixed(max_abs, 2) : "0", hi = signed_map ? fixed(max_abs, 2) : "1";
  g += "<text x=\"4\" y=\"24\">" + lo + "</text><text x=\"156\" y=\"24\" text-anchor=\"end\">" + hi + "</text>";
  if (signed_map) g += "<text x=\"80\" y=\"24\" text-anchor=\"middle\">0</text>";
  g += "</svg>";
  return "<div class=\"legend\">" + g + "<span>" + esc(caption) + "</span></div>\n";
}

struct Page {
  const Trace& trace;
  const HtmlOptions& opt;
  std::size_t numbers = 0;  // numbers written in full tables so far
  int legend_id = 0;
  std::string out;
};

enum class Shade { None, Weights, Signed };

struct TensorView {
  const Tensor& t;
  const Labels& labels;
  std::size_t B, R, C;
  bool integers;
  Shade shade;
  double max_abs;
};

std::string cell_class(const TensorView& v, double x) {
  if (v.shade == Shade::None || !std::isfinite(x)) return "";
  if (v.shade == Shade::Weights)
    return fmt::format(" class=v{}", std::min(static_cast<int>(std::clamp(x, 0.0, 1.0) * kLevels), kLevels - 1));
  double t = v.max_abs > 0 ? std::clamp(x / v.max_abs, -1.0, 1.0) : 0.0;  // clamped before the cast (x is finite)
  return fmt::format(" class=d{}", static_cast<int>(std::lround((t + 1.0) * 0.5 * kLevels)));
}

// One (R, C) matrix as a table; rows and columns either all or the summary's.
void matrix_table(std::string& out, const TensorView& v, std::size_t b, bool sum_rows, bool sum_cols, int precision) {
  std::vector<std::size_t> rows = shown_indices(v.R, sum_rows), cols = shown_indices(v.C, sum_cols);
  bool rl = v.labels.rows.size() == v.R, cl = v.labels.cols.size() == v.C;
  out += "<div class=\"scroll\"><table class=\"grid\">";
  if (cl) {
    out += "<tr>";
    if (rl) out += "<th>";
    for (std::size_t c : cols) out += "<th>" + (c == std::string::npos ? std::string("\u2026") : esc(v.labels.cols[c]));
  }
  for (std::size_t r : rows) {
    out += "<tr>";
    if (rl) out += "<th class=r>" + (r == std::string::npos ? std::string() : esc(v.labels.rows[r]));
    for (std::size_t c : cols) {
      if (r == std::string::npos) {
        out += c == std::string::npos ? "<td>" : "<td>\u22ee";
      } else if (c == std::string::npos) {
        out += "<td>\u2026";
      } else {
        double x = v.t.data[(b * v.R + r) * v.C + c];
        out += "<td" + cell_class(v, x) + ">" + num(x, precision, v.integers);
      }
    }
  }
  out += "</table></div>\n";
}

std::string block_title(const TensorView& v, const Trace& trace, std::size_t b) {
  std::string word = v.labels.block.empty() ? trace.ui_word("block") : v.labels.block;
  if (v.t.rank() == 3) return fmt::format("{} {}", word, b + 1);
  return fmt::format("{} [{}, {}]", word, b / v.t.dim(1) + 1, b % v.t.dim(1) + 1);
}

// All blocks of a tensor, summarised or not.
void tensor_tables(Page& p, std::string& out, const TensorView& v, bool summarize) {
  Summary s = summary_for(v.t, !summarize);
  for (std::size_t b : shown_indices(v.B, s.blocks)) {
    if (b == std::string::npos) {
      out += "<p class=\"blk\">\u2026 " + esc(p.trace.ui_word("blocks_omitted")) + "</p>\n";
      continue;
    }
    if (v.t.rank() >= 3) out += "<p class=\"blk\">" + esc(block_title(v, p.trace, b)) + "</p>\n";
    matrix_table(out, v, b, s.rows, s.cols, p.opt.precision);
  }
}

// One heatmap per block, side by side, token labels on both axes; each cell carries its exact
// value for the hover line.
void heatmaps(Page& p, const std::string& name, const TensorView& v) {
  std::string& out = p.out;
  if (v.R > kHeatmapMax || v.C > kHeatmapMax || v.B > kHeatmapBlocks) return;
  auto label = [](const std::vector<std::string>& l, std::size_t i, std::size_t n) {
    std::string s = l.size() == n ? l[i] : std::to_string(i + 1);
    // at most 10 columns wide, cut at a character boundary
    std::string cut;
    std::size_t w = 0;
    for (std::size_t k = 0; k < s.size();) {
      unsigned char c = static_cast<unsigned char>(s[k]);
      std::size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      std::string ch = s.substr(k, len);
      w += display_width(ch);
      if (w > 10) return cut + "\u2026";
      cut += ch;
      k += len;
    }
    return cut;
  };
  const std::vector<std::string>& cols = v.labels.cols.size() == v.C ? v.labels.cols : v.labels.rows;
  std::size_t lw = 0, kw = 0;
  for (std::size_t r = 0; r < v.R; ++r) lw = std::max(lw, display_width(label(v.labels.rows, r, v.R)));
  for (std::size_t c = 0; c < v.C; ++c) kw = std::max(kw, display_width(label(cols, c, v.C)));
  double cell = std::clamp(220.0 / static_cast<double>(std::max(v.R, v.C)), 6.0, 28.0);
  double left = 8.0 + 6.0 * static_cast<double>(lw), top = 8.0 + 4.6 * static_cast<double>(kw);
  double W = left + cell * static_cast<double>(v.C) + 4, H = top + cell * static_cast<double>(v.R) + 4;
  auto json_list = [&](const std::vector<std::string>& l, std::size_t n) {
    std::string s = "[";
    for (std::size_t i = 0; i < n; ++i) {
      std::string w = l.size() == n ? l[i] : std::to_string(i + 1), e;
      for (char c : w) {
        if (c == '"' || c == '\\') e += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) e += c;
      }
      s += (i ? ",\"" : "\"") + e + "\"";
    }
    return esc(s + "]");
  };
  std::string ql = esc(p.trace.ui_word("html_query")), kl = esc(p.trace.ui_word("html_key"));
  std::string q = json_list(v.labels.rows, v.R), k = json_list(cols, v.C);
  out += "<figure class=\"heatmap\" data-tensor=\"" + esc(name) + "\"><div class=\"heatmaps\">\n";
  for (std::size_t b = 0; b < v.B; ++b) {
    std::string head = v.B > 1 ? block_title(v, p.trace, b) : name;
    out += "<figure>";
    out += fmt::format("<svg class=\"hm\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.1f} {:.1f}\" role=\"img\" ", W, H, W, H);
    out += "data-head=\"" + esc(head) + "\" data-ql=\"" + ql + "\" data-kl=\"" + kl + "\" data-q=\"" + q + "\" data-k=\"" + k + "\">";
    out += "<title>" + esc(name + " \u00b7 " + head) + "</title>";
    for (std::size_t r = 0; r < v.R; ++r)
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>", left - 4,
                         top + cell * (static_cast<double>(r) + 0.5), esc(label(v.labels.rows, r, v.R)));
    for (std::size_t c = 0; c < v.C; ++c) {
      double x = left + cell * (static_cast<double>(c) + 0.5), y = top - 4;
      out += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-60)\">{}</text>", x, y, esc(label(cols, c, v.C)));
    }
    out += fmt::format("<g shape-rendering=\"crispEdges\" transform=\"translate({:.1f},{:.1f}) scale({:.3f})\">", left, top, cell);
    for (std::size_t r = 0; r < v.R; ++r)
      for (std::size_t c = 0; c < v.C; ++c) {
        double x = v.t.data[(b * v.R + r) * v.C + c];
        std::string fill = std::isnan(x)                ? std::string("none")  // no number: a gap
                           : v.shade == Shade::Signed ? lerp_map(kDiverging, v.max_abs > 0 ? 0.5 + 0.5 * x / v.max_abs : 0.5)
                                                      : lerp_map(kViridis, x);
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"1\" height=\"1\" fill=\"{}\" data-v=\"{}\"/>", c, r, fill, exact(x));
      }
    out += "</g></svg><figcaption>" + esc(head) + "</figcaption></figure>\n";
  }
  out += "</div><output class=\"hover\">" + esc(p.trace.ui_word("html_hover")) + "</output>";
  out += legend(v.shade == Shade::Signed, v.max_abs,
                p.trace.ui_word(v.shade == Shade::Signed ? "html_legend_signed" : "html_legend_weights"), p.legend_id++);
  out += "</figure>\n";
}

void tensor_section(Page& p, const std::string& name) {
  const TraceTensor& tt = p.trace.at(name);
  const Tensor& t = tt.tensor;
  std::string& out = p.out;
  out += "<section class=\"tensor\" data-tensor=\"" + esc(name) + "\"><h3><code>" + esc(name) + "</code><span class=\"shape\">" +
         esc(shape_str(t.shape)) + "</span><span class=\"meaning\">" + esc(tt.meaning) + "</span></h3>\n";
  if (t.numel() == 0) {
    out += "</section>\n";
    return;
  }
  std::size_t R = t.rank() >= 2 ? t.shape[t.rank() - 2] : 1, C = t.shape.back();
  double max_abs = 0;
  bool negative = false, integers = true;
  for (double x : t.data) {
    if (std::isfinite(x)) max_abs = std::max(max_abs, std::fabs(x));
    negative = negative || x < 0;
    integers = integers && std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15;
  }
  Shade shade = tt.labels.heatmap ? (negative ? Shade::Signed : Shade::Weights) : negative && !integers ? Shade::Signed : Shade::None;
  TensorView v{t, tt.labels, t.numel() / (R * C), R, C, integers, shade, max_abs};
  if (tt.labels.heatmap && t.rank() >= 2) heatmaps(p, name, v);
  if (summary_for(t, false).any()) {
    std::string summary;
    tensor_tables(p, summary, v, true);
    out += summary;
    if (t.numel() <= p.opt.tensor_budget && p.numbers + t.numel() <= p.opt.number_budget) {
      p.numbers += t.numel();
      out += fmt::format("<details><summary>{} ({})</summary>\n", esc(p.trace.ui_word("html_every_number")), with_commas(I(t.numel())));
      tensor_tables(p, out, v, false);
      out += "</details>\n";
    } else {
      out += "<p class=\"meaning\">" + esc(p.trace.ui_word("html_over_budget")) + "</p>\n";
    }
  } else {
    tensor_tables(p, out, v, false);
  }
  if (shade == Shade::Signed && !tt.labels.heatmap)
    out += legend(true, max_abs, p.trace.ui_word("html_legend_signed"), p.legend_id++);
  out += "</section>\n";
}

// A nice step for axis ticks: 1, 2 or 5 times a power of ten; always finite and above 0 (tick()
// casts its logarithm), 1 where the span is none of those (overflowed, or too small to divide).
double nice_step(double span, int ticks) {
  if (!(span > 0) || !std::isfinite(span)) return 1.0;
  double raw = span / ticks, p10 = std::pow(10.0, std::floor(std::log10(raw))), f = raw / p10;
  double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p10;
  return step > 0 && std::isfinite(step) ? step : 1.0;
}

// Ticks drawn on one axis at most: a step that is 1 for lack of a better one must still end.
constexpr int kMaxTicks = 64;

std::string tick(double x, double step) {
  int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  return fixed(x, std::min(decimals, 6));
}

constexpr std::array<const char*, 6> kSeries = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"};

void line_chart(Page& p, const Chart& ch) {
  const Tensor& xs = p.trace.at(ch.x).tensor;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (double x : xs.data)
    if (std::isfinite(x)) x0 = std::min(x0, x), x1 = std::max(x1, x);
  for (const std::string& y : ch.y)
    for (double v : p.trace.at(y).tensor.data)
      if (std::isfinite(v)) y0 = std::min(y0, v), y1 = std::max(y1, v);
  if (!(x0 < x1)) x0 -= 1, x1 += 1;
  if (!(y0 < y1)) y0 -= 1, y1 += 1;
  double sx = nice_step(x1 - x0, 6), sy = nice_step(y1 - y0, 5);
  double X0 = std::floor(x0 / sx) * sx, X1 = std::ceil(x1 / sx) * sx, Y0 = std::floor(y0 / sy) * sy, Y1 = std::ceil(y1 / sy) * sy;
  const double L = 56, T = 12, Wp = 460, Hp = 220;
  auto px = [&](double x) { return L + (x - X0) / (X1 - X0) * Wp; };
  auto py = [&](double y) { return T + (Y1 - y) / (Y1 - Y0) * Hp; };
  std::string& out = p.out;
  out += "<figure class=\"chart\"><figcaption>" + esc(ch.title) + "</figcaption>";
  out += fmt::format("<svg class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\">", L + Wp + 16, T + Hp + 40);
  out += "<title>" + esc(ch.title) + "</title>";
  out += fmt::format("<path class=\"ax\" d=\"M{0} {1}V{2}H{3}\"/>", L, T, T + Hp, L + Wp);
  int n = 0;
  for (double x = X0; x <= X1 + sx * 1e-6 && n < kMaxTicks; x += sx, ++n)
    out += fmt::format("<path class=\"ax\" d=\"M{0:.1f} {1}v4\"/><text x=\"{0:.1f}\" y=\"{2}\" text-anchor=\"middle\">{3}</text>", px(x),
                       T + Hp, T + Hp + 16, tick(x, sx));
  n = 0;
  for (double y = Y0; y <= Y1 + sy * 1e-6 && n < kMaxTicks; y += sy, ++n)
    out += fmt::format("<path class=\"ax\" d=\"M{0} {1:.1f}h-4\" /><text x=\"{2}\" y=\"{1:.1f}\" text-anchor=\"end\" dominant-baseline=\"middle\">{3}</text>",
                       L, py(y), L - 6, tick(y, sy));
  if (Y0 < 0 && Y1 > 0) out += fmt::format("<path class=\"ax\" stroke-dasharray=\"3 3\" d=\"M{} {:.1f}H{}\"/>", L, py(0), L + Wp);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", L + Wp / 2, T + Hp + 34, esc(ch.x));
  for (std::size_t s = 0; s < ch.y.size(); ++s) {
    const Tensor& ys = p.trace.at(ch.y[s]).tensor;
    std::string d;
    bool pen = false;
    for (std::size_t i = 0; i < xs.numel() && i < ys.numel(); ++i) {
      if (!std::isfinite(xs.data[i]) || !std::isfinite(ys.data[i])) {
        pen = false;
        continue;
      }
      d += fmt::format("{}{:.2f} {:.2f}", pen ? "L" : "M", px(xs.data[i]), py(ys.data[i]));
      pen = true;
    }
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" data-series=\"{}\"/>", d,
                       kSeries[s % kSeries.size()], esc(ch.y[s]));
  }
  out += "</svg><div class=\"legend\">";
  // Each series by its tensor name and, as the terminal's legend does, its meaning in the run's language.
  for (std::size_t s = 0; s < ch.y.size(); ++s) {
    auto it = p.trace.tensors.find(ch.y[s]);
    const std::string meaning = it == p.trace.tensors.end() ? "" : it->second.meaning;
    out += fmt::format("<svg width=\"18\" height=\"4\"><rect width=\"18\" height=\"4\" fill=\"{}\"/></svg><code>{}</code>{}",
                       kSeries[s % kSeries.size()], esc(ch.y[s]), meaning.empty() ? "" : "<span>" + esc(meaning) + "</span>");
  }
  out += "</div></figure>\n";
}

void data_table(std::string& out, const Table& t, int precision) {
  out += "<div class=\"scroll\"><table class=\"rows\"><tr>";
  for (const std::string& h : t.header) out += "<th>" + esc(h);
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const Scalar& c : row)
      out += std::string(std::holds_alternative<std::string>(c) ? "<td>" : "<td class=n>") + esc(format_scalar(c, precision));
  }
  out += "</table></div>\n";
}

std::string anchor(std::size_t i) { return fmt::format("step-{}", i + 1); }

}  // namespace

std::string viridis(double t) { return lerp_map(kViridis, t); }
std::string diverging(double t) { return lerp_map(kDiverging, 0.5 + 0.5 * t); }

std::string render_html(const Trace& trace, const HtmlOptions& opt) {
  Page p{trace, opt, 0, 0, {}};
  std::string& out = p.out;
  std::string title = trace.ui_word("header");
  out += page_head(trace.lang.code, title);
  out += "<header><h1>" + esc(title) + "</h1>\n<div class=\"config\">";
  for (const Value& v : trace.config) {
    if (v.name == "tokens") continue;
    out += "<span>" + esc(v.label.empty() ? v.name : v.label) + " = <b>" + esc(format_scalar(v.value, opt.precision, &trace)) + "</b></span>";
  }
  out += "</div>";
  for (const std::string& n : trace.header_notes) out += "<p class=\"note\">" + esc(n) + "</p>";
  out += "</header>\n<nav><h2>" + esc(trace.ui_word("html_contents")) + "</h2><ol>\n";
  for (std::size_t i = 0; i < trace.steps.size(); ++i)
    out += "<li><a href=\"#" + anchor(i) + "\">" + esc(trace.steps[i].title) + "</a></li>\n";
  out += "</ol></nav>\n<main>\n";
  for (std::size_t i = 0; i < trace.steps.size(); ++i) {
    const Step& s = trace.steps[i];
    out += "<section class=\"step\" id=\"" + anchor(i) + "\"><h2>" + esc(s.heading.empty() ? s.title : s.heading) +
           "<span class=\"id\">" + esc(s.id) + "</span></h2>\n";
    if (!s.text.empty()) out += "<p class=\"text\">" + esc(s.text) + "</p>\n";
    for (const std::string& name : s.tensors) tensor_section(p, name);
    if (!s.values.empty()) {
      out += "<dl class=\"values\">";
      for (const Value& v : s.values)
        out += "<dt>" + esc(v.label.empty() ? v.name : v.label) + "</dt><dd data-value=\"" + esc(v.name) + "\">" +
               esc(format_scalar(v.value, opt.precision, &trace)) + "</dd>";
      out += "</dl>\n";
    }
    for (const Table& t : s.tables) data_table(out, t, opt.precision);
    for (const Chart& c : s.charts) line_chart(p, c);
    if (!s.notes.empty()) {
      out += "<ul class=\"notes\">";
      for (const std::string& n : s.notes) out += "<li>" + esc(n) + "</li>";
      out += "</ul>\n";
    }
    out += "</section>\n";
  }
  out += "</main>\n<footer>" + esc(trace.ui_word("footer")) + "</footer>\n";
  return out + page_tail(true);
}

std::string render_html_report(const HtmlReport& r) {
  auto word = [&](const std::string& k) {
    auto it = r.ui.find(k);
    return it == r.ui.end() ? k : it->second;
  };
  std::string out = page_head(r.lang, r.title);
  out += "<header><h1>" + esc(r.title) + "</h1></header>\n<main>\n";
  for (const HtmlBarChart& ch : r.charts) {
    double max = 0;
    std::size_t lw = 0;
    for (const Bar& b : ch.bars) max = std::max(max, b.value), lw = std::max(lw, display_width(b.label));
    const double L = 12 + 7.0 * static_cast<double>(std::min<std::size_t>(lw, 28)), W = 420, row = 22;
    double H = row * static_cast<double>(ch.bars.size()) + 8;
    out += "<figure class=\"bars\"><figcaption>" + esc(ch.title) + "</figcaption>";
    out += fmt::format("<svg class=\"bars\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\">", L + W + 200, H);
    for (std::size_t i = 0; i < ch.bars.size(); ++i) {
      const Bar& b = ch.bars[i];
      double y = 4 + row * static_cast<double>(i), w = max > 0 ? b.value / max * W : 0;
      if (!std::isfinite(w)) w = 0;  // no number (or ∞/∞): no bar
      if (b.value > 0) w = std::max(w, 1.5);
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>", L - 6, y + row / 2 - 2,
                         esc(b.label));
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" data-v=\"{}\"><title>{}</title></rect>", L, y,
                         w, row - 6, lerp_map(kViridis, 0.35), exact(b.value), esc(b.label + ": " + b.note));
      out += fmt::format("<text x=\"{:.2f}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>", L + w + 6, y + row / 2 - 2, esc(b.note));
    }
    out += "</svg></figure>\n";
  }
  out += "<pre class=\"report\">" + esc(r.text) + "</pre>\n</main>\n<footer>" + esc(word("html_report_footer")) + "</footer>\n";
  return out + page_tail(false);
}

}  // namespace attn
