#include "step_select.h"

#include <algorithm>
#include <set>

#include "errors.h"

namespace attn::cli {

namespace {

std::string step_items(const std::vector<const Step*>& steps, const std::vector<std::size_t>& numbers, const Text& text) {
  std::string out;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    std::string item = text("cli.lesson.step_item", {{"n", numbers[k]}, {"id", steps[k]->id}, {"title", steps[k]->title}});
    out = k == 0 ? item : text("cli.lesson.step_join", {{"list", out}, {"item", item}});
  }
  return out;
}

}  // namespace

std::string step_list(const Trace& trace, const Text& text) {
  std::vector<const Step*> steps;
  std::vector<std::size_t> numbers;
  for (std::size_t i = 0; i < trace.steps.size(); ++i) steps.push_back(&trace.steps[i]), numbers.push_back(i + 1);
  return step_items(steps, numbers, text);
}

namespace {

// The 0-based index of one item: a step id, or its number 1 … N. npos if neither.
std::size_t find_step(const Trace& trace, const std::string& item) {
  for (std::size_t i = 0; i < trace.steps.size(); ++i)
    if (trace.steps[i].id == item) return i;
  if (item.empty() || item.size() > 4 || !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::string::npos;
  std::size_t n = std::stoul(item);
  return n >= 1 && n <= trace.steps.size() ? n - 1 : std::string::npos;
}

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

void select_steps(Trace& trace, const std::string& spec, const Text& text) {
  std::set<std::size_t> keep;
  for (std::size_t start = 0; start <= spec.size();) {
    std::size_t comma = std::min(spec.find(',', start), spec.size());
    std::string item = trim(spec.substr(start, comma - start));
    if (item.empty()) throw UsageError("cli.err.step_empty", {{"flag", "--step"}, {"value", spec}, {"steps", step_list(trace, text)}});
    std::size_t i = find_step(trace, item);
    if (i == std::string::npos)
      throw UsageError("cli.err.step_unknown", {{"flag", "--step"}, {"value", item}, {"steps", step_list(trace, text)}});
    keep.insert(i);
    start = comma + 1;
  }
  for (const Step& s : trace.steps) trace.steps_all.push_back(s.id);
  std::vector<Step> steps;
  std::set<std::string> tensors;
  std::vector<const Step*> kept;
  std::vector<std::size_t> numbers;
  for (std::size_t i : keep) kept.push_back(&trace.steps[i]), numbers.push_back(i + 1);
  const std::string shown = step_items(kept, numbers, text);
  for (std::size_t i : keep) {
    tensors.insert(trace.steps[i].tensors.begin(), trace.steps[i].tensors.end());
    steps.push_back(std::move(trace.steps[i]));
  }
  std::size_t total = trace.steps.size();
  trace.steps = std::move(steps);
  std::vector<std::string> order;
  for (const std::string& name : trace.tensor_order)
    if (tensors.count(name)) order.push_back(name);
    else trace.tensors.erase(name);
  trace.tensor_order = std::move(order);
  trace.ui["steps_shown"] = text("cli.lesson.steps_shown", {{"n", keep.size()}, {"total", total}, {"steps", shown}});
}

}  // namespace attn::cli
