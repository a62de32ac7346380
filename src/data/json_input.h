#pragma once
// Parsing JSON the user gave (a config.json, a trace): depth-safe and with every error a
// UsageError naming `where` (the file) and, where there is one, the key:
//   input.err.json_depth   nested deeper than max_depth (checked by a scan before parsing, so
//                          nothing recurses on hostile depth, the error included)
//   input.err.json_keys    an object with more than max_keys keys (ordered JSON only: its objects
//                          find a key by a linear search, so n keys cost n² to parse; 300,000
//                          tensors in a 20 MB trace took 213 s)
//   input.err.json_number  a number that overflows a double (1e999, a 400-digit integer)
//   input.err.json_syntax  not JSON at all (line and column)
// json_preview(v): a value for an error message, short and on one line.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attn {

constexpr std::size_t kMaxJsonDepth = 64;

nlohmann::json parse_json_input(std::string_view text, const std::string& where, std::size_t max_depth = kMaxJsonDepth);
// The same, keeping every object's keys in the order they were written (a trace's tensors); an
// object may hold at most max_keys keys.
constexpr std::size_t kMaxOrderedJsonKeys = 10000;
nlohmann::ordered_json parse_ordered_json_input(std::string_view text, const std::string& where,
                                                std::size_t max_depth = kMaxJsonDepth,
                                                std::size_t max_keys = kMaxOrderedJsonKeys);
std::string json_preview(const nlohmann::json& v);

}  // namespace attn
