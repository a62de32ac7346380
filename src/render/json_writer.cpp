#include "json_writer.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace attn {

namespace {

using json = nlohmann::ordered_json;

json scalar_json(const Scalar& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* b = std::get_if<Bool>(&v)) return b->value;
  if (auto* l = std::get_if<std::vector<std::string>>(&v)) return *l;
  double x = std::get<double>(v);
  return std::isfinite(x) ? json(x) : json(nullptr);
}

// A tensor as {"shape": [...], "meaning": "...", "data": [...]}. The data is written directly
// (shortest round-trip form of each double, via fmt): building a json value per number made a
// d_model = 768 trace take most of a second.
void append_tensor(std::string& out, const std::string& name, const TraceTensor& tt) {
  out += json(name).dump() + ":{\"shape\":" + json(tt.tensor.shape).dump() + ",\"meaning\":" + json(tt.meaning).dump() +
         ",\"data\":[";
  fmt::memory_buffer buf;
  for (std::size_t i = 0; i < tt.tensor.numel(); ++i) {
    double x = tt.tensor.data[i];
    if (i) buf.push_back(',');
    if (std::isfinite(x)) fmt::format_to(std::back_inserter(buf), "{}", x);
    else fmt::format_to(std::back_inserter(buf), "null");
  }
  out.append(buf.data(), buf.size());
  out += "]}";
}

}  // namespace

std::string trace_to_json(const Trace& trace) {
  json doc;
  doc["schema"] = "attnlab.trace/1";
  doc["tool"] = {{"name", "attnlab"}, {"version", ATTNLAB_VERSION}};
  doc["lesson"] = trace.lesson;
  json config = json::object();
  config["lang"] = trace.lang.code;
  for (const Value& v : trace.config) config[v.name] = scalar_json(v.value);
  doc["config"] = config;
  json steps = json::array();
  for (const Step& s : trace.steps) {
    json step{{"id", s.id}, {"title", s.title}, {"text", s.text}, {"tensors", s.tensors}};
    json values = json::object();
    for (const Value& v : s.values) values[v.name] = scalar_json(v.value);
    step["values"] = values;
    if (!s.tables.empty()) {
      json tables = json::array();
      for (const Table& t : s.tables) {
        json rows = json::array();
        for (const auto& r : t.rows) {
          json row = json::array();
          for (const Scalar& c : r) row.push_back(scalar_json(c));
          rows.push_back(row);
        }
        tables.push_back({{"header", t.header}, {"rows", rows}});
      }
      step["tables"] = tables;
    }
    if (!s.charts.empty()) {
      json charts = json::array();
      for (const Chart& c : s.charts) charts.push_back({{"title", c.title}, {"x", c.x}, {"y", c.y}});
      step["charts"] = charts;
    }
    if (!s.notes.empty()) step["notes"] = s.notes;
    steps.push_back(step);
  }
  doc["steps"] = steps;
  // everything but the tensors through nlohmann, then the tensors appended by hand
  std::string out = doc.dump();
  out.pop_back();  // the closing '}'
  out += ",\"tensors\":{";
  for (std::size_t i = 0; i < trace.tensor_order.size(); ++i) {
    if (i) out += ',';
    append_tensor(out, trace.tensor_order[i], trace.at(trace.tensor_order[i]));
  }
  return out + "}}\n";
}

}  // namespace attn
