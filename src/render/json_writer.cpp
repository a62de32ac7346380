#include "render/json_writer.h"

#include <cmath>

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

json tensor_json(const TraceTensor& tt) {
  json data = json::array();
  for (double x : tt.tensor.data) data.push_back(std::isfinite(x) ? json(x) : json(nullptr));
  return json{{"shape", tt.tensor.shape}, {"meaning", tt.meaning}, {"data", std::move(data)}};
}

}  // namespace

std::string trace_to_json(const Trace& trace) {
  json doc;
  doc["schema"] = "attnlab.trace/1";
  doc["tool"] = {{"name", "attnlab"}, {"version", ATTNLAB_VERSION}};
  doc["lesson"] = trace.lesson;
  json config = json::object();
  config["lang"] = trace.lang == Lang::Zh ? "zh" : "en";
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
    if (!s.notes.empty()) step["notes"] = s.notes;
    steps.push_back(step);
  }
  doc["steps"] = steps;
  json tensors = json::object();
  for (const std::string& name : trace.tensor_order) tensors[name] = tensor_json(trace.at(name));
  doc["tensors"] = tensors;
  return doc.dump() + "\n";
}

}  // namespace attn
