#pragma once
// A plain aligned table: columns padded by display width (CJK-aware), numbers right-aligned.
#include <string>
#include <vector>

namespace attn {

struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> right;                    // per column: right-align (numbers)
  std::vector<std::vector<std::string>> rows;  // a row with one cell "" is a blank line
  std::string indent = "  ";
  std::string rule = "─";                     // the character of the line under the header
};

// Header, a rule of "─" under it, then the rows; every line ends in "\n".
std::string render_table(const TextTable& t);

}  // namespace attn
