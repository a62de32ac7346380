// render_trace: a whole lesson for the terminal, step by step.
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "style.h"
#include "terminal.h"

namespace attn {

namespace {

constexpr std::size_t kTextWidth = 78;

// Split a line into units that wrapping keeps whole: an ASCII word with its trailing spaces,
// or a single wide (CJK) character with any punctuation that must not start a line; an opening
// quote or bracket is kept with what follows it, so that it never ends a line. A word that follows
// a Chinese character or full-width punctuation directly may start a line of its own.
std::vector<std::string> wrap_units(const std::string& line) {
  std::vector<std::string> units;
  std::string cur;
  bool opened = false;      // cur ends with an opening quote or bracket
  bool after_wide = false;  // cur ends with a wide character
  for (std::size_t i = 0; i < line.size();) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    std::size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    std::string ch = line.substr(i, len);
    i += len;
    bool wide = display_width(ch) == 2;
    // full-width , . enumeration-comma ; : ) ! ? and a closing quote never start a line
    bool closing = ch == "\uFF0C" || ch == "\u3002" || ch == "\u3001" || ch == "\uFF1B" || ch == "\uFF1A" ||
                   ch == "\uFF09" || ch == "\uFF01" || ch == "\uFF1F" || ch == "\u201D";
    // an opening quote, full-width parenthesis, book-title mark or corner bracket never ends one
    bool opening = ch == "\u201C" || ch == "\u2018" || ch == "\uFF08" || ch == "\u300A" || ch == "\u300C";
    bool starts_word = c < 0x80 && (std::isalnum(c) != 0 || std::strchr("`([{'\"-_*<#$", static_cast<char>(c)) != nullptr);
    bool was_wide = after_wide;
    after_wide = wide;
    if (opened) {  // the quote and a space after it stay with the next word
      cur += ch;
      opened = opening || ch == " ";
      continue;
    }
    if (opening) {
      if (!cur.empty()) units.push_back(cur);
      cur = ch;
      opened = true;
    } else if (wide && !closing) {
      if (!cur.empty()) units.push_back(cur);
      cur = ch;
    } else if (ch == " ") {
      cur += ch;
      units.push_back(cur);
      cur.clear();
    } else {
      if (!cur.empty() && (cur.back() == ' ' || (was_wide && starts_word))) {
        units.push_back(cur);
        cur.clear();
      }
      cur += ch;
    }
  }
  if (!cur.empty()) units.push_back(cur);
  return units;
}

}  // namespace

std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    // keep a line's own leading spaces (formulas, lists) on every wrapped piece
    std::string lead = line.substr(0, line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '));
    std::string cur = indent + lead;
    std::size_t cur_w = display_width(cur);
    for (const std::string& u : wrap_units(line.substr(lead.size()))) {
      std::size_t w = display_width(u);
      std::size_t w_trim = u.back() == ' ' ? w - 1 : w;
      if (cur_w + w_trim > width && cur_w > display_width(indent + lead)) {
        while (!cur.empty() && cur.back() == ' ') cur.pop_back();
        out += cur + "\n";
        cur = indent + lead;
        cur_w = display_width(cur);
      }
      cur += u;
      cur_w += w;
    }
    while (!cur.empty() && cur.back() == ' ') cur.pop_back();
    out += cur + "\n";
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

std::string render_trace(const Trace& trace, const RenderOptions& opt) {
  std::string out;
  std::string config;
  for (const Value& v : trace.config) {
    if (v.name == "tokens") continue;
    // A word of the trace's own (gelu's values=chapter) is shown in the run's language where the
    // render catalog has it (config_word.WORD); the JSON keeps the word.
    std::string shown = format_scalar(v.value, opt.precision, &trace);
    if (const auto* s = std::get_if<std::string>(&v.value); s && trace.ui.count("config_word." + *s))
      shown = trace.ui_word("config_word." + *s);
    config += fmt::format("{}{}={}", config.empty() ? "" : "  ", v.label.empty() ? v.name : v.label, shown);
  }
  out += style::bold(trace.ui_word("header"), opt.color) + "\n";
  out += style::dim("  " + config, opt.color) + "\n";
  for (const std::string& n : trace.header_notes) out += wrap("→ " + n, kTextWidth, "  ");
  if (trace.ui.count("steps_shown")) out += style::dim("  " + trace.ui_word("steps_shown"), opt.color) + "\n";
  for (std::size_t i = 0; i < trace.steps.size(); ++i) {
    const Step& s = trace.steps[i];
    std::string heading = s.heading.empty() ? s.title : s.heading;
    out += "\n" + style::bold(style::green("── " + heading + " ", opt.color), opt.color) +
           style::dim("[" + s.id + "]", opt.color) + "\n";
    if (!s.text.empty()) out += wrap(s.text, kTextWidth, "  ");
    for (const std::string& name : s.tensors) {
      const TraceTensor& tt = trace.at(name);
      out += "\n" + render_tensor(name, tt, trace, opt);
      if (tt.labels.heatmap) out += render_heatmap(tt, trace, opt);
    }
    if (!s.values.empty()) {
      out += "\n";
      std::size_t w = 0;
      for (const Value& v : s.values) w = std::max(w, display_width(v.label.empty() ? v.name : v.label));
      for (const Value& v : s.values)
        out += "  " + pad_right(v.label.empty() ? v.name : v.label, w) + " = " +
               style::bold(format_scalar(v.value, opt.precision, &trace), opt.color) + "\n";
    }
    for (const Table& t : s.tables) out += "\n" + render_table(t, opt.precision);
    for (const Chart& c : s.charts) out += "\n" + render_chart(trace, c, opt);
    if (!s.notes.empty()) out += "\n";
    for (const std::string& n : s.notes) out += wrap("→ " + n, kTextWidth, "  ");
  }
  out += "\n" + style::dim(trace.ui_word("footer"), opt.color) + "\n";
  return out;
}

}  // namespace attn
