#include "json_input.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "errors.h"

namespace attn {

namespace {

// Line and column (from 1) of byte `at`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t at) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// One pass over the text without recursion: the nesting depth, the keys of each object (at most
// max_keys, 0: any number), and every number checked against a double's range, with the key it
// belongs to. Syntax is left to the parser.
void prescan(std::string_view text, const std::string& where, std::size_t max_depth, std::size_t max_keys) {
  std::size_t depth = 0;
  std::vector<std::size_t> keys;  // keys seen so far in each open object or array, innermost last
  std::string key, last_string;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      std::size_t start = ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      last_string = std::string(text.substr(start, std::min(i, text.size()) - start));
      std::size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
      if (j < text.size() && text[j] == ':') {
        key = last_string;
        if (max_keys > 0 && !keys.empty() && ++keys.back() > max_keys) {
          auto [line, col] = line_column(text, start - 1);
          throw UsageError("input.err.json_keys", {{"where", where}, {"max", max_keys}, {"line", line}, {"column", col}});
        }
      }
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) {
        auto [line, col] = line_column(text, i);
        throw UsageError("input.err.json_depth", {{"where", where}, {"max", max_depth}, {"line", line}, {"column", col}});
      }
      keys.push_back(0);
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;
      if (!keys.empty()) keys.pop_back();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i;
      while (j < text.size() && (std::string_view("0123456789+-.eE").find(text[j]) != std::string_view::npos)) ++j;
      std::string num(text.substr(i, j - i));
      errno = 0;
      double v = std::strtod(num.c_str(), nullptr);
      if ((errno == ERANGE && std::fabs(v) > 1.0) || std::isinf(v))
        throw UsageError("input.err.json_number", {{"where", where}, {"key", key}, {"value", num}});
      i = j - 1;
    }
  }
}

template <class Json>
Json parse_checked(std::string_view text, const std::string& where, std::size_t max_depth, std::size_t max_keys) {
  prescan(text, where, max_depth, max_keys);
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = line_column(text, e.byte > 0 ? e.byte - 1 : 0);
    throw UsageError("input.err.json_syntax", {{"where", where}, {"line", line}, {"column", col}});
  } catch (const nlohmann::json::exception&) {  // e.g. a number the scan let through
    throw UsageError("input.err.json_syntax", {{"where", where}, {"line", 1}, {"column", 1}});
  }
}

}  // namespace

nlohmann::json parse_json_input(std::string_view text, const std::string& where, std::size_t max_depth) {
  return parse_checked<nlohmann::json>(text, where, max_depth, 0);
}

nlohmann::ordered_json parse_ordered_json_input(std::string_view text, const std::string& where, std::size_t max_depth,
                                                std::size_t max_keys) {
  return parse_checked<nlohmann::ordered_json>(text, where, max_depth, max_keys);
}

std::string json_preview(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 200) s.resize(200);  // the message cuts it further (printable)
  return s;
}

}  // namespace attn
