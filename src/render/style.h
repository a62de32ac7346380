#pragma once
// ANSI styling, applied only when colour is on. The CLI decides that (--color, NO_COLOR, isatty).
#include <algorithm>
#include <cmath>
#include <string>

namespace attn::style {

inline std::string wrap_sgr(const std::string& s, const char* code, bool on) {
  return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
}
inline std::string bold(const std::string& s, bool on) { return wrap_sgr(s, "1", on); }
inline std::string dim(const std::string& s, bool on) { return wrap_sgr(s, "2", on); }
inline std::string cyan(const std::string& s, bool on) { return wrap_sgr(s, "36", on); }
inline std::string yellow(const std::string& s, bool on) { return wrap_sgr(s, "33", on); }
inline std::string green(const std::string& s, bool on) { return wrap_sgr(s, "32", on); }
inline std::string red(const std::string& s, bool on) { return wrap_sgr(s, "31", on); }

// A heatmap cell that holds no number (NaN), with colour or without: two question marks.
inline constexpr const char* kHeatGap = "??";

// A two-column heatmap cell for v in [0, 1]: the 256-colour grey ramp (232 … 255); NaN is kHeatGap.
inline std::string heat_cell(double v) {
  if (std::isnan(v)) return kHeatGap;
  int shade = 232 + static_cast<int>(std::clamp(v, 0.0, 1.0) * 23.0 + 0.5);
  return "\x1b[48;5;" + std::to_string(shade) + "m  \x1b[0m";
}

}  // namespace attn::style
