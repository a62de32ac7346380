#pragma once
// A UsageError as a test sees it: its catalog key and its values, "calc.err.tp_heads tp=2 n_h=71",
// so tests check what was refused and why without depending on the English wording.
#include <string>
#include <variant>

#include <fmt/format.h>

#include "errors.h"

template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const attn::UsageError& e) {
    std::string out = e.msg.key;
    for (const attn::Arg& a : e.msg.args)
      out += " " + a.name + "=" + std::visit([](const auto& v) { return fmt::format("{}", v); }, a.value);
    return out;
  }
  return "no error";
}
