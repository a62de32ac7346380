#pragma once
// What a lesson writes to: src/trace's Recorder with its words from the catalogs.
#include <string>
#include <string_view>
#include <vector>

#include "catalog.h"
#include "trace.h"

namespace attn {

// What a lesson writes to: a Recorder whose words come from the catalogs. Keys are looked up in
// the lesson's own catalog first, then in the catalogs it names, then in "common":
//   LessonRecorder r("mha", c.lang, {"mha"});
//   r.step("split_heads", {{"d_model", D}, {"heads", H}});   // mha.split_heads.title / .text
//   r.tensor("Q_heads", Q, labels);                           // meaning: mha.tensor.Q_heads
//   r.value("d_k", I(dk));                                    // label: value.d_k if the catalog has one
//   r.note("split_heads.note", {{"diff", 0.0}});
//   r.table({{r.t("split_heads.col.head"), …}, rows});
class LessonRecorder {
 public:
  LessonRecorder(std::string lesson, Lang lang, std::vector<std::string> catalogs);

  const Lang& lang() const { return text_.lang(); }
  const Text& text() const { return text_; }
  // The message for a key of this lesson's catalogs (or "common"), formatted with args.
  std::string t(std::string_view key, const Args& args = {}) const;
  bool has(std::string_view key) const;
  // Items as running text in the run's language: "2, 3 and 4" in English, with the zh catalog's own
  // separators in Chinese (common.list.join, common.list.last).
  std::string list(const std::vector<std::string>& items) const;

  void config(const std::string& name, Scalar v);  // label: common.config.NAME
  void step(std::string id, const Args& args = {});  // title ID.title, text ID.text
  // Meaning from tensor.NAME (args fill its placeholders); an empty labels.block is "head".
  const Tensor& tensor(const std::string& name, Tensor t, Labels labels = {}, const Args& args = {});
  void show(const std::string& name) { rec_.show(name); }
  void value(const std::string& name, Scalar v, const Args& label_args = {});  // label: value.NAME
  void table(Table t) { rec_.table(std::move(t)); }
  void chart(Chart c) { rec_.chart(std::move(c)); }
  void note(std::string_view key, const Args& args = {}) { rec_.note(t(key, args)); }
  // A note on the whole run, under its config line (kept by --step): a size derived from the flags.
  void header_note(std::string_view key, const Args& args = {}) { rec_.header_note(t(key, args)); }
  const Tensor& get(const std::string& name) const { return rec_.get(name); }
  // Headings and the renderers' words are filled in here, in the run's language.
  Trace finish();

 private:
  std::string find_key(std::string_view key) const;  // "" if no catalog of the chain has it
  Recorder rec_;
  Text text_;
  std::vector<std::string> chain_;
};

}  // namespace attn
