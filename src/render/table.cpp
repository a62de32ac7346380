// Plain aligned tables for the params, kv-cache and models reports.
#include "table.h"

#include <algorithm>

#include "text.h"

namespace attn {

std::string render_table(const TextTable& t) {
  std::size_t cols = t.header.size();
  for (const auto& r : t.rows) cols = std::max(cols, r.size());
  std::vector<std::size_t> width(cols, 0);
  auto measure = [&](const std::vector<std::string>& r) {
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], display_width(r[c]));
  };
  measure(t.header);
  for (const auto& r : t.rows) measure(r);
  auto line = [&](const std::vector<std::string>& r) {
    std::string s = t.indent;
    for (std::size_t c = 0; c < r.size(); ++c) {
      bool right = c < t.right.size() && t.right[c];
      bool last = c + 1 == r.size();
      if (c > 0) s += "  ";
      s += right ? pad_left(r[c], width[c]) : last ? r[c] : pad_right(r[c], width[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out;
  if (!t.header.empty()) {
    out += line(t.header);
    std::size_t total = 0;
    for (std::size_t c = 0; c < cols; ++c) total += width[c] + (c > 0 ? 2 : 0);
    std::string rule = t.indent;
    for (std::size_t i = 0; i < total; ++i) rule += t.rule;
    out += rule + "\n";
  }
  for (const auto& r : t.rows) out += (r.size() == 1 && r[0].empty()) ? "\n" : line(r);
  return out;
}

}  // namespace attn
