// The catalog-backed recorder. See recorder.h.
#include "recorder.h"

#include <stdexcept>

#include <fmt/format.h>

namespace attn {

LessonRecorder::LessonRecorder(std::string lesson, Lang lang, std::vector<std::string> catalogs)
    : rec_(std::move(lesson), lang), text_(lang), chain_(std::move(catalogs)) {
  chain_.push_back("common");
}

std::string LessonRecorder::find_key(std::string_view key) const {
  for (const std::string& ns : chain_) {
    std::string full = ns + "." + std::string(key);
    if (text_.has(full)) return full;
  }
  return "";
}

bool LessonRecorder::has(std::string_view key) const { return !find_key(key).empty(); }

std::string LessonRecorder::t(std::string_view key, const Args& args) const {
  std::string full = find_key(key);
  if (full.empty()) {
    std::string chain;
    for (const std::string& ns : chain_) chain += (chain.empty() ? "" : ", ") + ns;
    throw std::logic_error(fmt::format("no catalog message '{}' in {}", key, chain));
  }
  return text_(full, args);
}

std::string LessonRecorder::list(const std::vector<std::string>& items) const {
  std::string out = items.empty() ? std::string() : items.front();
  for (std::size_t i = 1; i < items.size(); ++i)
    out = t(i + 1 == items.size() ? "list.last" : "list.join", {{"list", out}, {"item", items[i]}});
  return out;
}

void LessonRecorder::config(const std::string& name, Scalar v) {
  rec_.config(name, std::move(v));
  rec_.trace().config.back().label = t("config." + name);
}

void LessonRecorder::step(std::string id, const Args& args) {
  std::string title = t(id + ".title", args);
  std::string body = t(id + ".text", args);
  rec_.step(std::move(id), std::move(title), std::move(body));
}

const Tensor& LessonRecorder::tensor(const std::string& name, Tensor tensor, Labels labels, const Args& args) {
  // labels.block is a key of common's block.* ("head", "group"): it names the first axis, and
  // its word in the run's language is what the renderers print
  const std::string block = labels.block.empty() ? std::string("head") : labels.block;
  if (labels.axes.empty()) labels.axes = default_axes(tensor.shape, labels, block);
  labels.block = t("block." + block);
  return rec_.tensor(name, std::move(tensor), t("tensor." + name, args), std::move(labels));
}

void LessonRecorder::value(const std::string& name, Scalar v, const Args& label_args) {
  rec_.value(name, std::move(v), has("value." + name) ? t("value." + name, label_args) : "");
}

Trace LessonRecorder::finish() {
  Trace& tr = rec_.trace();
  tr.ui = text_.all_of("render");
  tr.ui["header"] = text_("render.header", {{"lesson", tr.lesson}});
  for (std::size_t i = 0; i < tr.steps.size(); ++i)
    tr.steps[i].heading = text_("render.step_heading", {{"n", i + 1}, {"total", tr.steps.size()}, {"title", tr.steps[i].title}});
  return rec_.finish();
}

}  // namespace attn
