#include "trace_reader.h"

#include <sys/stat.h>

#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "input_file.h"
#include "json_input.h"

namespace attn {

namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw UsageError("html.err.trace_invalid", {{"file", path}, {"what", what}});
}

const json& field(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) bad(path, key);
  return *it;
}

std::string str(const json& j, const std::string& path, const std::string& what) {
  if (!j.is_string()) bad(path, what);
  return j.get<std::string>();
}

std::vector<std::string> strings(const json& j, const std::string& path, const std::string& what) {
  if (!j.is_array()) bad(path, what);
  std::vector<std::string> out;
  for (const json& e : j) out.push_back(str(e, path, what));
  return out;
}

Scalar scalar(const json& j, const std::string& path, const std::string& what) {
  if (j.is_boolean()) return Bool{j.get<bool>()};
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) bad(path, what);
    return j.get<std::int64_t>();
  }
  if (j.is_number_float()) return j.get<double>();
  if (j.is_null()) return -std::numeric_limits<double>::infinity();  // what JSON cannot hold (a masked score)
  if (j.is_string()) return j.get<std::string>();
  if (j.is_array()) return strings(j, path, what);
  bad(path, what);
}

// The first character of s that a terminal would act on: C0 but \n and \t, DEL, or C1 (U+0080 to
// U+009F, "\xc2\x80" to "\xc2\x9f"; the parser has checked the UTF-8); "" if there is none.
std::string control_in(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return s.substr(i, 1);
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) return s.substr(i, 2);
  }
  return "";
}

// A trace is untrusted input and its words reach the terminal as they are (render --text): every
// string and every key is checked for control characters (an escape sequence would recolour or
// rewrite the screen). On finding one, `where` is its path ("steps[0].title") and `ch` the character.
bool find_control(const json& j, std::string& where, std::string& ch) {
  if (j.is_string()) {
    ch = control_in(j.get_ref<const std::string&>());
    return !ch.empty();
  }
  if (j.is_array()) {
    std::size_t i = 0;
    for (const json& e : j) {
      if (find_control(e, where, ch)) {
        where = "[" + std::to_string(i) + "]" + where;
        return true;
      }
      ++i;
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      ch = control_in(it.key());
      if (!ch.empty() || find_control(it.value(), where, ch)) {
        where = "." + it.key() + where;
        return true;
      }
    }
  }
  return false;
}

std::vector<Value> values(const json& obj, const json* labels, const std::string& path, const std::string& what) {
  if (!obj.is_object()) bad(path, what);
  std::vector<Value> out;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string label;
    if (labels != nullptr && labels->is_object() && labels->contains(it.key())) label = str((*labels)[it.key()], path, what);
    out.push_back({it.key(), scalar(it.value(), path, what + "." + it.key()), label});
  }
  return out;
}

// The documents attnlab writes that are not traces: their schema (without the version) and the
// command that writes them, whose own --html draws them.
const char* report_command(const std::string& schema) {
  static const std::pair<const char*, const char*> kKinds[] = {
      {"attnlab.params/", "params"},         {"attnlab.params_weights/", "params --weights"},
      {"attnlab.kv-cache/", "kv-cache"},     {"attnlab.models/", "models"},
      {"attnlab.flops/", "flops"},           {"attnlab.bench-memory/", "bench memory"},
      {"attnlab.bench-decode/", "bench decode"}, {"attnlab.heads/", "heads"},
      {"attnlab.generate/", "generate"},     {"attnlab.train/", "train"},
      {"attnlab.tradeoffs/", "train --study tradeoffs"}, {"attnlab.specialize-seeds/", "train --study specialize"}};
  for (const auto& [prefix, command] : kKinds)
    if (schema.rfind(prefix, 0) == 0) return command;
  return nullptr;
}

}  // namespace

// The trace in a parsed document. Each tensor's data is dropped from the document once copied
// into its Tensor, so the document and the tensors are never both whole in memory.
static Trace trace_from(json& doc, const std::string& path) {
  // attnlab.trace/2 names every tensor's axes; a /1 trace (written before) gets default_axes().
  // Another attnlab document (a report's --json) is named with the command that wrote it.
  if (doc.is_object() && doc.contains("schema") && doc["schema"].is_string()) {
    const std::string schema = doc["schema"].get<std::string>();
    if (schema != "attnlab.trace/1" && schema != "attnlab.trace/2") {
      if (const char* command = report_command(schema))
        throw UsageError("html.err.trace_kind", {{"file", path}, {"schema", schema}, {"command", command}});
    }
  }
  if (!doc.is_object() || !doc.contains("schema") || (doc["schema"] != "attnlab.trace/1" && doc["schema"] != "attnlab.trace/2"))
    throw UsageError("html.err.trace_schema", {{"file", path}});
  const bool v1 = doc["schema"] == "attnlab.trace/1";
  // (a nesting of at most kMaxJsonDepth levels: parse_ordered_json_input has checked it)
  if (std::string where, ch; find_control(doc, where, ch))
    throw UsageError("html.err.trace_control", {{"file", path}, {"what", where.substr(1)}, {"char", ch}});
  Trace tr;
  tr.lesson = str(field(doc, "lesson", path), path, "lesson");
  // The data are read as attnlab writes them, row-major: a trace that says otherwise is not ours.
  if (doc.contains("data_order") && doc["data_order"] != "row-major") bad(path, "data_order");
  const auto& config = doc["config"];
  if (!config.is_object()) bad(path, "config");
  static const json kEmpty = json::object();
  const json& view = doc.contains("view") ? doc["view"] : kEmpty;
  if (!view.is_object()) bad(path, "view");
  const json* config_labels = view.contains("config_labels") ? &view["config_labels"] : nullptr;
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (it.key() == "lang") {
      std::string code = str(it.value(), path, "config.lang");
      if (code.empty() || code.size() > 16) bad(path, "config.lang");
      for (char c : code)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') bad(path, "config.lang");
      tr.lang = Lang{code};
      continue;
    }
    std::string label;
    if (config_labels != nullptr && config_labels->is_object() && config_labels->contains(it.key()))
      label = str((*config_labels)[it.key()], path, "view.config_labels");
    tr.config.push_back({it.key(), scalar(it.value(), path, "config." + it.key()), label});
  }
  if (doc.contains("header_notes")) {  // the run's own notes (written only when there are some)
    if (!doc["header_notes"].is_array()) bad(path, "header_notes");
    for (const json& n : doc["header_notes"]) tr.header_notes.push_back(str(n, path, "header_notes"));
  }
  // A null is what JSON keeps of a value it cannot hold: in a chart's series a gap (NaN where
  // nothing is drawn), elsewhere a masked score's -inf. The charts' series, first:
  std::set<std::string> series;
  if (doc.contains("steps") && doc["steps"].is_array())
    for (const json& s : doc["steps"])
      if (s.is_object() && s.contains("charts") && s["charts"].is_array())
        for (const json& c : s["charts"])
          if (c.is_object() && c.contains("y") && c["y"].is_array())
            for (const json& y : c["y"])
              if (y.is_string()) series.insert(y.get<std::string>());
  // tensors first, so that steps can be checked against them
  auto& tensors = doc["tensors"];
  if (!tensors.is_object()) bad(path, "tensors");
  const json& tview = view.contains("tensors") ? view["tensors"] : kEmpty;
  std::size_t total = 0;
  for (auto it = tensors.begin(); it != tensors.end(); ++it) {
    const std::string& name = it.key();
    auto& t = it.value();
    std::string what = "tensors." + name;
    if (!t.is_object() || !t.contains("shape") || !t.contains("data") || !t["shape"].is_array() || !t["data"].is_array())
      bad(path, what);
    Shape shape;
    std::size_t n = 1;
    for (const auto& s : t["shape"]) {
      if (!s.is_number_unsigned() || s.get<std::uint64_t>() == 0 || s.get<std::uint64_t>() > kMaxTraceNumbers) bad(path, what + ".shape");
      shape.push_back(s.get<std::size_t>());
      n *= shape.back();
      if (n > kMaxTraceNumbers) bad(path, what + ".shape");
    }
    if (shape.empty() || t["data"].size() != n) bad(path, what + ".data");
    total += n;
    if (total > kMaxTraceNumbers) bad(path, what + ".data");
    Tensor tensor(shape);
    const double null_is = series.count(name) ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity();
    json& data = t["data"];
    for (std::size_t i = 0; i < n; ++i) {
      const auto& x = data[i];
      if (x.is_null()) tensor.data[i] = null_is;
      else if (x.is_number()) tensor.data[i] = x.get<double>();
      else bad(path, what + ".data");
    }
    json().swap(data);  // copied: its 16-byte JSON values go back now
    TraceTensor tt{std::move(tensor), t.contains("meaning") ? str(t["meaning"], path, what + ".meaning") : "", Labels{}};
    if (tview.is_object() && tview.contains(name)) {
      const json& l = tview[name];
      if (!l.is_object()) bad(path, "view." + what);
      std::size_t R = shape.size() >= 2 ? shape[shape.size() - 2] : 1, C = shape.back();
      if (l.contains("rows")) tt.labels.rows = strings(l["rows"], path, "view." + what + ".rows");
      if (l.contains("cols")) tt.labels.cols = strings(l["cols"], path, "view." + what + ".cols");
      if (l.contains("block")) tt.labels.block = str(l["block"], path, "view." + what + ".block");
      if (l.contains("heatmap")) {
        if (!l["heatmap"].is_boolean()) bad(path, "view." + what + ".heatmap");
        tt.labels.heatmap = l["heatmap"].get<bool>();
      }
      if (l.contains("first")) {  // a heatmap's first column number
        if (!l["first"].is_number_integer() || (l["first"] != 0 && l["first"] != 1))
          bad(path, "view." + what + ".first");
        tt.labels.first = l["first"].get<int>();
      }
      if (!tt.labels.rows.empty() && tt.labels.rows.size() != R) bad(path, "view." + what + ".rows");
      if (!tt.labels.cols.empty() && tt.labels.cols.size() != C) bad(path, "view." + what + ".cols");
    }
    if (t.contains("axes")) {  // one name per axis
      tt.labels.axes = strings(t["axes"], path, what + ".axes");
      if (tt.labels.axes.size() != shape.size()) bad(path, what + ".axes");
      for (const std::string& a : tt.labels.axes)
        if (a.empty() || a.size() > 64) bad(path, what + ".axes");
    } else if (v1) {
      tt.labels.axes = default_axes(shape, tt.labels);
    } else {
      bad(path, what + ".axes");
    }
    tr.tensor_order.push_back(name);
    tr.tensors.emplace(name, std::move(tt));
  }
  const auto& steps = doc["steps"];
  if (!steps.is_array()) bad(path, "steps");
  static const json kNone = json::array();
  const json& sview = view.contains("steps") ? view["steps"] : kNone;
  if (!sview.is_array()) bad(path, "view.steps");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    std::string what = "steps[" + std::to_string(i) + "]";
    if (!s.is_object()) bad(path, what);
    Step step;
    step.id = str(field(s, "id", path), path, what + ".id");
    step.title = str(field(s, "title", path), path, what + ".title");
    step.text = str(field(s, "text", path), path, what + ".text");
    step.tensors = strings(field(s, "tensors", path), path, what + ".tensors");
    for (const std::string& name : step.tensors)
      if (!tr.tensors.count(name)) bad(path, what + ".tensors");
    const json* labels = nullptr;
    if (i < sview.size() && sview[i].is_object()) {
      if (sview[i].contains("heading")) step.heading = str(sview[i]["heading"], path, "view.steps.heading");
      if (sview[i].contains("value_labels")) labels = &sview[i]["value_labels"];
    }
    if (s.contains("values")) step.values = values(s["values"], labels, path, what + ".values");
    if (s.contains("tables")) {
      if (!s["tables"].is_array()) bad(path, what + ".tables");
      for (const json& t : s["tables"]) {
        if (!t.is_object()) bad(path, what + ".tables");
        Table table;
        table.header = strings(field(t, "header", path), path, what + ".tables");
        const json& rows = field(t, "rows", path);
        if (!rows.is_array()) bad(path, what + ".tables");
        for (const json& r : rows) {
          if (!r.is_array()) bad(path, what + ".tables");
          std::vector<Scalar> row;
          for (const json& c : r) row.push_back(scalar(c, path, what + ".tables"));
          table.rows.push_back(std::move(row));
        }
        step.tables.push_back(std::move(table));
      }
    }
    if (s.contains("charts")) {
      if (!s["charts"].is_array()) bad(path, what + ".charts");
      for (const json& c : s["charts"]) {
        if (!c.is_object()) bad(path, what + ".charts");
        Chart chart{str(field(c, "title", path), path, what + ".charts"), str(field(c, "x", path), path, what + ".charts"),
                    strings(field(c, "y", path), path, what + ".charts")};
        if (c.contains("fit")) {
          if (!c["fit"].is_boolean()) bad(path, what + ".charts");
          chart.fit = c["fit"].get<bool>();
        }
        auto rank1 = [&](const std::string& name) {
          auto it = tr.tensors.find(name);
          return it != tr.tensors.end() && it->second.tensor.rank() == 1;
        };
        if (!rank1(chart.x)) bad(path, what + ".charts");
        for (const std::string& y : chart.y)
          if (!rank1(y) || tr.tensors.at(y).tensor.numel() != tr.tensors.at(chart.x).tensor.numel()) bad(path, what + ".charts");
        step.charts.push_back(std::move(chart));
      }
    }
    if (s.contains("notes")) step.notes = strings(s["notes"], path, what + ".notes");
    tr.steps.push_back(std::move(step));
  }
  return tr;
}

Trace read_trace_json(const std::string& text, const std::string& path) {
  // ordered: config, values and tensors keep the order they were written in
  // depth-safe, numbers checked, at most kMaxOrderedJsonKeys keys an object, a syntax error with
  // its line (input.err.json_*)
  json doc = parse_ordered_json_input(text, path);
  return trace_from(doc, path);
}

Trace read_trace_file(const std::string& path) {
  // Past the cap, refused before reading, with the reason for the cap (html.err.trace_too_large);
  // what is not a regular file is left to read_regular_file, which names what it is.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > kMaxTraceBytes)
    throw UsageError("html.err.trace_too_large",
                     {{"file", path}, {"size", static_cast<std::uint64_t>(st.st_size)}, {"max", kMaxTraceBytes},
                      {"mib", kMaxTraceBytes >> 20}});
  // a regular file of at most kMaxTraceBytes; a read error is reported as one (input.err.file_*)
  std::string text = read_regular_file(path, kMaxTraceBytes, "render");
  json doc = parse_ordered_json_input(text, path);
  std::string().swap(text);  // parsed: the text goes back before the tensors are made
  return trace_from(doc, path);
}

}  // namespace attn
