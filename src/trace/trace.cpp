#include "trace.h"

#include "printable.h"

#include <stdexcept>

namespace attn {

const TraceTensor& Trace::at(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw std::out_of_range("trace has no tensor named '" + name + "'");
  return it->second;
}

std::string Trace::ui_word(const std::string& key) const {
  auto it = ui.find(key);
  return it == ui.end() ? key : it->second;
}

Recorder::Recorder(std::string lesson, Lang lang) {
  trace_.lesson = std::move(lesson);
  trace_.lang = lang;
}

// A config's text (a --weights folder, say) with its control characters escaped (\x01): a trace
// holds no control character, so that the terminal never receives one and `attnlab render`,
// which refuses them, reads every trace attnlab writes.
void Recorder::config(const std::string& name, Scalar v) {
  auto clean = [](std::string& s) {
    if (!is_clean_text(s)) s = printable(s, std::string::npos);
  };
  if (auto* s = std::get_if<std::string>(&v)) clean(*s);
  if (auto* l = std::get_if<std::vector<std::string>>(&v))
    for (std::string& s : *l) clean(s);
  trace_.config.push_back({name, std::move(v), ""});
}

void Recorder::step(std::string id, std::string title, std::string text) {
  trace_.steps.push_back(Step{std::move(id), "", std::move(title), std::move(text), {}, {}, {}, {}, {}});
}

Step& Recorder::current() {
  if (trace_.steps.empty()) throw std::logic_error("Recorder: record a step before its contents");
  return trace_.steps.back();
}

std::vector<std::string> default_axes(const Shape& shape, const Labels& labels, const std::string& block) {
  auto grid = [&labels]() -> std::vector<std::string> {
    if (!labels.rows.empty() && !labels.cols.empty())
      return labels.rows == labels.cols ? std::vector<std::string>{"query", "key"} : std::vector<std::string>{"row", "col"};
    if (!labels.rows.empty()) return {"token", "dim"};
    return {"in", "out"};
  };
  switch (shape.size()) {
    case 1: return {"index"};
    case 2: return grid();
    case 3: {
      std::vector<std::string> a = grid();
      a.insert(a.begin(), block);
      return a;
    }
    default: {
      std::vector<std::string> a;
      for (std::size_t i = 0; i < shape.size(); ++i) a.push_back("axis" + std::to_string(i));
      return a;
    }
  }
}

const Tensor& Recorder::tensor(const std::string& name, Tensor t, std::string meaning, Labels labels) {
  if (trace_.tensors.count(name)) throw std::logic_error("Recorder: tensor '" + name + "' recorded twice");
  current().tensors.push_back(name);
  trace_.tensor_order.push_back(name);
  if (labels.axes.empty()) labels.axes = default_axes(t.shape, labels);
  if (labels.axes.size() != t.rank())
    throw std::logic_error("Recorder: tensor '" + name + "' has " + std::to_string(t.rank()) + " axes but " +
                           std::to_string(labels.axes.size()) + " axis names");
  auto& slot = trace_.tensors[name];
  slot = TraceTensor{std::move(t), std::move(meaning), std::move(labels)};
  return slot.tensor;
}

void Recorder::show(const std::string& name) {
  trace_.at(name);  // must exist
  current().tensors.push_back(name);
}

void Recorder::value(const std::string& name, Scalar v, std::string label) {
  current().values.push_back({name, std::move(v), std::move(label)});
}

void Recorder::table(Table t) { current().tables.push_back(std::move(t)); }

void Recorder::chart(Chart c) { current().charts.push_back(std::move(c)); }

void Recorder::note(std::string text) { current().notes.push_back(std::move(text)); }

void Recorder::header_note(std::string text) { trace_.header_notes.push_back(std::move(text)); }

}  // namespace attn
