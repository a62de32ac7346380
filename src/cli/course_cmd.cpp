// attnlab course: the path through the chapter (lessons/course.cpp), each stop with what it teaches,
// about how long it takes and how many of its exercises are done (the progress file, progress.h).
// --json FILE|- (schema attnlab.course/1), --reset clears the progress. Also the front door: what
// `attnlab` alone prints.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog.h"
#include "commands.h"
#include "course.h"
#include "exercise.h"
#include "progress.h"
#include "style.h"
#include "table.h"

namespace attn::cli {

namespace {

struct CourseOptions {
  std::optional<std::string> json;
  bool reset = false;
  std::string color = "auto";
};

struct StopCount {
  std::size_t done = 0, total = 0;
};

StopCount count_stop(const CourseStop& s, const Progress& pr) {
  StopCount c;
  for (const char* lesson : s.lessons) {
    const std::vector<Exercise>* list = exercises_of(lesson);
    if (list == nullptr) continue;
    c.total += list->size();
    for (std::size_t i = 1; i <= list->size(); ++i) c.done += pr.done.count(std::string(lesson) + "." + std::to_string(i));
  }
  return c;
}

void run_course(const CourseOptions& o) {
  const Text& t = text();
  bool color = use_color(o.color);
  if (o.json) declare_output("--json", *o.json);
  if (o.reset) {
    bool removed = reset_progress();
    if (!o.json) {  // --reset with --json - : the path after the reset, as JSON
      emit(t(removed ? "course.reset_done" : "course.reset_nothing", {{"path", progress_path()}}) + "\n");
      return;
    }
  }
  Progress pr = read_progress();
  std::size_t done = 0, total = 0;
  std::vector<StopCount> counts;
  for (const CourseStop& s : course_stops()) {
    counts.push_back(count_stop(s, pr));
    done += counts.back().done;
    total += counts.back().total;
  }
  TextTable tb;
  tb.header = {t("course.col.stop"), t("course.col.lessons"), t("course.col.teaches"), t("course.col.minutes"), t("course.col.done")};
  tb.right = {true, false, false, true, true};
  nlohmann::ordered_json j = {{"schema", "attnlab.course/1"}, {"progress_file", progress_path()},
                              {"done", done}, {"total", total}, {"stops", nlohmann::ordered_json::array()}};
  std::string next;  // the first stop with an exercise not done
  for (std::size_t i = 0; i < course_stops().size(); ++i) {
    const CourseStop& s = course_stops()[i];
    const StopCount& c = counts[i];
    std::vector<std::string> names(s.lessons.begin(), s.lessons.end());
    std::string lessons = names.empty() ? t(std::string("course.stop.") + s.id + ".commands") : join_list(names);
    std::string count = c.total == 0 ? t("course.no_exercises") : t("course.done_of", {{"done", c.done}, {"total", c.total}});
    if (c.total > 0 && c.done == c.total) count = style::green(count, color);
    tb.rows.push_back({std::to_string(i + 1), lessons, t(std::string("course.stop.") + s.id),
                       t("course.minutes", {{"m", s.minutes}}), count});
    if (next.empty() && c.done < c.total)
      next = t("course.next", {{"command", s.command}, {"lesson", s.lessons.empty() ? "" : s.lessons[0]}});
    nlohmann::ordered_json js = {{"stop", i + 1}, {"id", s.id}, {"lessons", names}, {"teaches", t(std::string("course.stop.") + s.id)},
                                 {"minutes", s.minutes}, {"command", s.command}, {"exercises_done", c.done}, {"exercises", c.total}};
    j["stops"].push_back(js);
  }
  std::string out = style::bold(t("course.title", {{"done", done}, {"total", total}}), color) + "\n\n" + render_table(tb) + "\n";
  out += (next.empty() ? t("course.all_done") : next) + "\n";
  out += t("course.footer", {{"path", progress_path()}}) + "\n";
  if (o.json) write_json_doc(*o.json, "attnlab.course/1", j.dump(2) + "\n");
  finish_report(ReportOutputs{o.json, {}, {}}, out);
}

}  // namespace

std::string front_door() {
  const Text& t = text();
  std::vector<std::pair<std::string, std::string>> cmds = {{"attnlab course", t("course.front.cmd.course")},
                                                          {"attnlab lesson attention", t("course.front.cmd.lesson")},
                                                          {"attnlab book --html book.html", t("course.front.cmd.book")}};
  std::string out = t("course.front.what") + "\n\n" + t("course.front.start") + "\n";
  for (const auto& [cmd, what] : cmds) out += fmt::format("  {}  {}\n", pad_right(cmd, 30), what);
  out += "\n" + t("course.front.more") + "\n";
  return out;
}

void setup_course(CLI::App& root) {
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("course", t("course.description"));
  add_lang_option(sub);
  auto o = std::make_shared<CourseOptions>();
  sub->add_option("--json", o->json, t("course.opt.json"));
  sub->add_flag("--reset", o->reset, t("course.opt.reset"));
  sub->add_option("--color", o->color, t("course.opt.color"));
  sub->callback([o] { run_course(*o); });
}

}  // namespace attn::cli
