#pragma once
// The HTML renderer: a finished Trace (or a calculator's report) as one self-contained page —
// inline CSS, inline SVG, a few lines of inline JavaScript, and a Content-Security-Policy that
// forbids every network request, so the file works from file:// and prints cleanly. Like the
// terminal renderer it translates nothing: its words come from trace.ui (the "render" catalog).
#include <map>
#include <string>
#include <vector>

#include "bars.h"
#include "trace.h"

namespace attn {

struct HtmlOptions {
  int precision = 4;  // decimals in the tables (hover shows the exact double)
  // Full tables (behind "every number") are written for tensors of at most tensor_budget numbers
  // while the page holds fewer than number_budget; past either a tensor shows its summary only and
  // the page says where the rest is (--json). A 768-wide run stays around half a megabyte.
  std::size_t tensor_budget = 4096;
  std::size_t number_budget = 100000;
};

// The lesson as a page: title, config, a table of contents, then each step with its text,
// tensors (tables, heatmaps), values, tables, charts and notes.
std::string render_html(const Trace& trace, const HtmlOptions& opt = {});

// A calculator's report (params, kv-cache, models) as a page: the report's text as it prints in
// the terminal, and its bars as SVG bar charts.
struct HtmlBarChart {
  std::string title;
  std::vector<Bar> bars;
};
struct HtmlReport {
  std::string lang = "en";
  std::string title;
  std::string text;  // preformatted, shown as it prints
  std::vector<HtmlBarChart> charts;
  std::map<std::string, std::string> ui;  // the "render" catalog in the report's language
};
std::string render_html_report(const HtmlReport& report);

// Colour maps (sRGB "#rrggbb"): viridis for t in [0, 1]; a blue–white–red diverging map for
// t in [-1, 1], white at 0.
std::string viridis(double t);
std::string diverging(double t);

}  // namespace attn
