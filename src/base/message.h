#pragma once
// A message is a catalog key and the named values its text needs. Code passes numbers, names
// and tokens; the words live in the catalogs (lessons/NAME/LANG.cat, catalogs/NAME/LANG.cat),
// and only the i18n layer turns a Msg into text.
//   Msg{"cli.err.lang_unknown", {{"value", "fr"}}}
#include <concepts>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace attn {

using ArgValue = std::variant<std::int64_t, std::uint64_t, double, std::string>;

struct Arg {
  std::string name;
  ArgValue value;

  Arg(std::string n, const char* s) : name(std::move(n)), value(std::string(s)) {}
  Arg(std::string n, std::string s) : name(std::move(n)), value(std::move(s)) {}
  Arg(std::string n, std::string_view s) : name(std::move(n)), value(std::string(s)) {}
  Arg(std::string n, double x) : name(std::move(n)), value(x) {}
  // A yes/no goes in as the word "true" or "false", for {name, select, true {…} other {…}}.
  Arg(std::string n, bool b) : name(std::move(n)), value(std::string(b ? "true" : "false")) {}
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Arg(std::string n, T v) : name(std::move(n)) {
    if constexpr (std::is_signed_v<T>) value = static_cast<std::int64_t>(v);
    else value = static_cast<std::uint64_t>(v);
  }
};
using Args = std::vector<Arg>;

struct Msg {
  std::string key;
  Args args = {};
};

}  // namespace attn
