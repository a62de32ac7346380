#pragma once
// A trace is the record of one lesson run: its config, its steps (each with a title, a short
// explanation, the tensors it made, named scalar values, tables and notes) and every tensor by
// name. Lessons only record; the terminal renderer and the JSON writer both read the finished
// trace, so what is printed and what is saved can never disagree.
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "tensor.h"
#include "text.h"

namespace attn {

// A yes/no value (a wrapper, so that a string literal never turns into a bool).
struct Bool {
  bool value;
};
// A named scalar: an exact integer (parameter counts), a real (a ratio, a max difference),
// text, a yes/no, or a list of words (the tokens). Pass integers as std::int64_t (see I()).
using Scalar = std::variant<std::int64_t, double, std::string, Bool, std::vector<std::string>>;
inline std::int64_t I(std::size_t n) { return static_cast<std::int64_t>(n); }

struct Value {
  std::string name;   // machine name, e.g. "d_k" (a JSON key)
  Scalar value;
  std::string label;  // human label in the run's language; empty: the name is shown
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<Scalar>> rows;
};

// A line chart over tensors of the trace: x and each y are rank-1 tensors of equal length.
struct Chart {
  std::string title;
  std::string x;               // tensor name
  std::vector<std::string> y;  // tensor names, one series each
  // false: the y axis always takes in 0 (a quantity measured from 0); true: it spans the series
  // only, so close curves far from 0 (losses 1.6 apart by 0.05) can be told apart.
  bool fit = false;
};

// How a tensor is labelled when shown. Rows of a (T, …) tensor are tokens; a rank-3 tensor is
// printed as one block per entry of its first axis ("head 1", "group 1", …).
struct Labels {
  std::vector<std::string> rows = {};
  std::vector<std::string> cols = {};
  std::string block = "head";  // name of the first axis of a rank-3 tensor (in the run's language)
  bool heatmap = false;        // also draw as a heatmap (attention weights)
  int first = 1;               // the heatmap's first column number: 1 (tokens counted from 1) or 0 (positions from 0)
  // What each axis is, outermost first, as machine names ("head", "query", "key"; JSON "axes"):
  // one per axis. Left empty, default_axes() derives them from the shape and the labels.
  std::vector<std::string> axes = {};
};

// The axis names a tensor gets when its recorder passes none, from its rank and labels:
//   rank 1: ["index"]
//   rank 2: rows and cols labelled alike (a token × token grid) ["query", "key"]; rows labelled
//           (tokens) ["token", "dim"]; rows and cols labelled otherwise ["row", "col"]; no labels
//           (a weight matrix, X @ W) ["in", "out"]
//   rank 3: [block] + the rank-2 rule for the rest, block the first axis's name ("head", "group")
//   higher: "axis0", "axis1", …
std::vector<std::string> default_axes(const Shape& shape, const Labels& labels, const std::string& block = "head");

struct TraceTensor {
  Tensor tensor;
  std::string meaning;  // one line: what this tensor is
  Labels labels;
};

struct Step {
  std::string id;
  std::string heading;  // as shown, e.g. "Step 2/9 · Split into heads" (set when the lesson finishes)
  std::string title;
  std::string text;
  std::vector<std::string> tensors;  // names, in display order
  std::vector<Value> values;
  std::vector<Table> tables;
  std::vector<Chart> charts;
  std::vector<std::string> notes;    // the numbers worth noticing
};

struct Trace {
  std::string lesson;
  Lang lang = Lang::En;
  std::vector<Value> config;
  std::vector<Step> steps;
  // Set when only some steps are shown (--step): the ids of every step the lesson ran, in order;
  // `steps` then holds the shown ones and the tensors are those they show. Empty: all shown.
  std::vector<std::string> steps_all;
  // Notes about the run as a whole, shown under its config line whatever --step keeps (a size the
  // lesson derived from the flags: "d_model 24, raised from 8 for 12 heads").
  std::vector<std::string> header_notes;
  std::vector<std::string> tensor_order;       // first-recorded order
  std::map<std::string, TraceTensor> tensors;  // by name
  // The renderers' own words in the run's language ("heatmap", "true", …), put here by the
  // lesson from the "render" catalog: the renderers print them and translate nothing.
  std::map<std::string, std::string> ui;
  std::string ui_word(const std::string& key) const;  // ui[key], or key itself if absent

  const TraceTensor& at(const std::string& name) const;  // std::out_of_range naming it
};

// The recorder a lesson writes to. step() opens a step; the calls after it add to that step.
class Recorder {
 public:
  Recorder(std::string lesson, Lang lang);

  Lang lang() const { return trace_.lang; }

  void config(const std::string& name, Scalar v);

  void step(std::string id, std::string title, std::string text);
  // Record a new tensor under `name` and show it in the current step. Names are unique.
  const Tensor& tensor(const std::string& name, Tensor t, std::string meaning, Labels labels = {});
  // Show an already recorded tensor again in the current step.
  void show(const std::string& name);
  void value(const std::string& name, Scalar v, std::string label = "");
  void table(Table t);
  void chart(Chart c);
  void note(std::string text);
  void header_note(std::string text);  // Trace::header_notes

  const Tensor& get(const std::string& name) const { return trace_.at(name).tensor; }
  Trace& trace() { return trace_; }
  Trace finish() { return std::move(trace_); }

 private:
  Step& current();
  Trace trace_;
};

}  // namespace attn
