// attnlab exercise [LESSON [N]] [--seed S] [--answer VALUE | --solution] [--json FILE|-]
//   no LESSON: the lessons that have exercises; LESSON: its exercises; LESSON N: pose exercise N
//   (on a terminal it asks and waits for the answer); --answer checks it (right, or not yet and a
//   hint; a right answer is recorded in the progress file); --solution works it out.
// The exercises are the lessons' own (lessons/NAME/exercises.cpp); every key is computed there.
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog.h"
#include "commands.h"
#include "errors.h"
#include "exercise.h"
#include "lesson.h"
#include "progress.h"
#include "style.h"
#include "text.h"

namespace attn::cli {

namespace {

struct ExerciseOptions {
  std::optional<std::string> lesson;
  std::optional<std::int64_t> n;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> answer;
  bool solution = false;
  std::optional<std::string> json;
  std::string color = "auto";
};

std::string exercise_lessons_list() {
  std::vector<std::string> names;
  for (const LessonExercises& e : all_exercises()) names.push_back(e.lesson);
  return join_list(names);
}

std::string letter_of(std::size_t i) { return std::string(1, static_cast<char>('a' + i)); }

std::string letters_of(std::size_t n) {
  std::vector<std::string> l;
  for (std::size_t i = 0; i < n; ++i) l.push_back(letter_of(i));
  return join_list(l);
}

// A key as the learner reads it: whole numbers with thousands separators, others to 6 figures.
std::string key_text(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return with_commas(static_cast<std::int64_t>(x));
  return fmt::format("{:.6g}", x);
}

std::string tolerance_text(double tol) { return tol >= 1 ? key_text(tol) : fmt::format("{}", tol); }

std::size_t done_in(const Progress& pr, const std::string& lesson, std::size_t total) {
  std::size_t d = 0;
  for (std::size_t i = 1; i <= total; ++i) d += pr.done.count(lesson + "." + std::to_string(i));
  return d;
}

void run_exercise_lessons(const ExerciseOptions& o) {
  const Text& t = text();
  Progress pr = read_progress();
  std::size_t n = 0;
  for (const LessonExercises& e : all_exercises()) n += e.list.size();
  nlohmann::ordered_json j = {{"schema", "attnlab.exercise/1"}, {"lessons", nlohmann::ordered_json::array()}};
  std::string out = t("course.exercise.lessons", {{"n", n}}) + "\n";
  for (const LessonExercises& e : all_exercises()) {
    std::size_t done = done_in(pr, e.lesson, e.list.size());
    out += "  " + t("course.exercise.lesson_line", {{"lesson", e.lesson}, {"total", e.list.size()}, {"done", done}}) + "\n";
    j["lessons"].push_back({{"lesson", e.lesson}, {"exercises", e.list.size()}, {"done", done}});
  }
  if (o.json) write_json_doc(*o.json, "attnlab.exercise/1", j.dump(2) + "\n");
  finish_report(ReportOutputs{o.json, {}, {}}, out);
}

const std::vector<Exercise>& lesson_exercises(const std::string& lesson) {
  const std::vector<Exercise>* list = exercises_of(lesson);
  if (list != nullptr) return *list;
  if (find_lesson(lesson) == nullptr)
    throw UsageError("course.err.unknown_lesson", {{"lesson", lesson}, {"lessons", exercise_lessons_list()}});
  throw UsageError("course.err.no_exercises", {{"lesson", lesson}, {"lessons", exercise_lessons_list()}});
}

std::string catalog_of(const std::string& lesson) { return catalog_name(*find_lesson(lesson)); }

void run_exercise_list(const ExerciseOptions& o, bool color) {
  const Text& t = text();
  const std::string& lesson = *o.lesson;
  const std::vector<Exercise>& list = lesson_exercises(lesson);
  Progress pr = read_progress();
  const std::string cat = catalog_of(lesson);
  nlohmann::ordered_json j = {{"schema", "attnlab.exercise/1"}, {"lesson", lesson}, {"exercises", nlohmann::ordered_json::array()}};
  std::string out = style::bold(t("course.exercise.list.title", {{"lesson", lesson}, {"n", list.size()}}), color) + "\n";
  std::size_t w = 0;
  for (const Exercise& e : list) w = std::max(w, display_width(t(std::string("course.exercise.kind.") + exercise_kind_name(e.kind))));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string id = lesson + "." + std::to_string(i + 1);
    const std::string prefix = cat + ".ex." + std::to_string(i + 1) + ".";
    const std::string kind = t(std::string("course.exercise.kind.") + exercise_kind_name(list[i].kind));
    bool done = pr.done.count(id) > 0;
    out += fmt::format("  {:>2}  {}  {}{}\n", i + 1, pad_right(kind, w), t(prefix + "title"),
                       done ? "  " + style::green("✓ " + t("course.exercise.done_mark"), color) : "");
    j["exercises"].push_back({{"n", i + 1}, {"id", id}, {"kind", exercise_kind_name(list[i].kind)},
                              {"title", t(prefix + "title")}, {"done", done}});
  }
  out += "\n" + t("course.exercise.list.pose", {{"lesson", lesson}}) + "\n";
  if (o.json) write_json_doc(*o.json, "attnlab.exercise/1", j.dump(2) + "\n");
  finish_report(ReportOutputs{o.json, {}, {}}, out);
}

// The verdict on an answer, in words and in the JSON.
struct Verdict {
  bool right = false;
  std::string text;   // as printed (coloured when colour is on)
  std::string plain;  // the same words without colour (the JSON's "message", the book's verdict)
};

Verdict check_answer(const Posed& p, const std::string& answer, nlohmann::ordered_json& j, bool color) {
  const Text& t = text();
  Verdict v;
  j["answer"] = answer;
  if (p.is_choice()) {
    auto c = parse_choice_answer(answer, p.n_options);
    if (!c) throw UsageError("course.err.answer_choice", {{"value", answer}, {"letters", letters_of(p.n_options)}});
    v.right = *c == p.choice;
    std::string reason = t("course.exercise.reason", {{"letter", letter_of(*c)}, {"reason", t(p.prefix + "reason." + letter_of(*c))}});
    std::string head = v.right ? t("course.exercise.right") : t("course.exercise.not_yet_choice");
    v.text = (v.right ? style::green(head, color) : style::yellow(head, color)) + "\n" + reason + "\n";
    v.plain = head + "\n" + reason + "\n";
    j["reason"] = t(p.prefix + "reason." + letter_of(*c));
  } else {
    auto x = parse_number_answer(answer);
    if (!x) throw UsageError("course.err.answer_number", {{"value", answer}});
    v.right = number_answer_right(p, *x);
    std::string head = v.right            ? t("course.exercise.right_number", {{"answer", answer}, {"key", key_text(p.key)}})
                       : p.sig_figs == 0 ? t("course.exercise.not_yet_exact", {{"answer", answer}})
                                         : t("course.exercise.not_yet", {{"answer", answer}, {"tol", tolerance_text(answer_tolerance(p))}});
    v.text = (v.right ? style::green(head, color) : style::yellow(head, color)) + "\n";
    v.plain = head + "\n";
  }
  j["correct"] = v.right;
  j["verdict"] = v.right ? "right" : "not-yet";
  if (!v.right) {
    std::string hint = t("course.exercise.hint", {{"hint", t(p.prefix + "hint", p.args)}}) + "\n";
    v.text += hint;
    v.plain += hint;
    j["hint"] = t(p.prefix + "hint", p.args);
  }
  j["message"] = v.plain;
  return v;
}

void run_exercise_one(const ExerciseOptions& o, bool color) {
  const Text& t = text();
  const std::string& lesson = *o.lesson;
  const std::vector<Exercise>& list = lesson_exercises(lesson);
  if (*o.n < 1 || *o.n > static_cast<std::int64_t>(list.size()))
    throw UsageError("course.err.number", {{"lesson", lesson}, {"total", list.size()}, {"n", std::to_string(*o.n)}});
  if (o.answer && o.solution) throw UsageError("course.err.answer_and_solution");
  const std::size_t n = static_cast<std::size_t>(*o.n);
  const std::uint64_t seed = o.seed.value_or(kDefaultExerciseSeed);
  const Exercise& ex = list[n - 1];
  const Posed p = ex.pose(seed);
  Progress pr = read_progress();  // a damaged progress file is refused before anything is printed
  const std::string id = lesson + "." + std::to_string(n);

  nlohmann::ordered_json j = {{"schema", "attnlab.exercise/1"}, {"lesson", lesson}, {"n", n}, {"id", id},
                              {"kind", exercise_kind_name(p.kind)}, {"seed", seed}, {"title", t(p.prefix + "title")}};
  std::string out = style::bold(t("course.exercise.head", {{"lesson", lesson}, {"n", n}, {"total", list.size()},
                                                           {"kind", t(std::string("course.exercise.kind.") + exercise_kind_name(p.kind))},
                                                           {"seed", seed}}),
                                color) + "\n";
  out += t(p.prefix + "title") + "\n\n" + t(p.prefix + "question", p.args) + "\n";
  j["question"] = t(p.prefix + "question", p.args);
  if (p.is_choice()) {
    j["options"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < p.n_options; ++i) {
      out += "  " + letter_of(i) + ") " + t(p.prefix + "option." + letter_of(i)) + "\n";
      j["options"].push_back({{"letter", letter_of(i)}, {"text", t(p.prefix + "option." + letter_of(i))}});
    }
    j["tolerance"] = {{"choice", true}};
  } else if (p.sig_figs == 0) {
    j["tolerance"] = {{"exact", true}};
  } else {
    j["tolerance"] = {{"sig_figs", p.sig_figs}, {"within", answer_tolerance(p)}};
  }
  const std::string tolerance = p.is_choice()      ? t("course.exercise.tol.choice", {{"letters", letters_of(p.n_options)}})
                                : p.sig_figs == 0 ? t("course.exercise.tol.exact")
                                                  : t("course.exercise.tol.sig", {{"sig", p.sig_figs}, {"tol", tolerance_text(answer_tolerance(p))}});
  out += tolerance + "\n";
  j["tolerance_text"] = tolerance;

  std::optional<std::string> answer = o.answer;
  const bool ask = !answer && !o.solution && !o.json && ::isatty(STDIN_FILENO) == 1 && ::isatty(STDOUT_FILENO) == 1;
  if (ask) {  // a terminal: ask and wait
    emit(out + "\n" + t("course.exercise.prompt") + " ");
    finish_stdout();
    out.clear();
    std::string line;
    if (!std::getline(std::cin, line)) return;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    while (!line.empty() && line.front() == ' ') line.erase(line.begin());
    if (line.empty()) return;
    answer = line;
  }

  if (answer) {
    Verdict v = check_answer(p, *answer, j, color);
    out += (ask ? "" : "\n") + v.text;
    if (v.right) {
      record_exercise_done(id);
      pr.done.insert(id);
      out += t("course.exercise.recorded", {{"lesson", lesson}, {"done", done_in(pr, lesson, list.size())}, {"total", list.size()}}) + "\n";
    }
  } else if (o.solution) {
    out += "\n";
    if (p.is_choice()) {
      j["reasons"] = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < p.n_options; ++i) {
        out += t("course.exercise.reason", {{"letter", letter_of(i)}, {"reason", t(p.prefix + "reason." + letter_of(i))}}) + "\n";
        j["reasons"].push_back(t(p.prefix + "reason." + letter_of(i)));
      }
      out += style::bold(t("course.exercise.key_choice", {{"letter", letter_of(p.choice)}}), color) + "\n";
      j["choice"] = letter_of(p.choice);
      j["key_text"] = letter_of(p.choice);
    } else {
      out += t("course.exercise.solution", {{"text", t(p.prefix + "solution", p.args)}}) + "\n";
      out += style::bold(t("course.exercise.key", {{"key", key_text(p.key)}}), color) + "\n";
      j["solution"] = t(p.prefix + "solution", p.args);
      j["key"] = p.key;
      j["key_text"] = key_text(p.key);
    }
  } else {
    out += "\n" + t("course.exercise.how", {{"lesson", lesson}, {"n", n}, {"seed", seed}}) + "\n";
  }
  if (o.json) write_json_doc(*o.json, "attnlab.exercise/1", j.dump(2) + "\n");
  finish_report(ReportOutputs{o.json, {}, {}}, out);
}

void run_exercise(const ExerciseOptions& o) {
  bool color = use_color(o.color);
  if (o.json) declare_output("--json", *o.json);
  // --seed, --answer and --solution are about one exercise: without N they would be ignored
  if (!o.n)
    for (auto [given, flag] : {std::pair{o.seed.has_value(), "--seed"}, {o.answer.has_value(), "--answer"}, {o.solution, "--solution"}})
      if (given) throw UsageError("course.err.needs_n", {{"flag", flag}});
  if (!o.lesson) return run_exercise_lessons(o);
  if (!o.n) return run_exercise_list(o, color);
  run_exercise_one(o, color);
}

}  // namespace

void setup_exercise(CLI::App& root) {
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("exercise", t("course.exercise.description"));
  add_lang_option(sub);
  auto o = std::make_shared<ExerciseOptions>();
  sub->add_option("lesson", o->lesson, t("course.exercise.opt.lesson"));
  sub->add_option("n", o->n, t("course.exercise.opt.n"));
  sub->add_option("--seed", o->seed, t("course.exercise.opt.seed", {{"seed", kDefaultExerciseSeed}}));
  sub->add_option("--answer", o->answer, t("course.exercise.opt.answer"));
  sub->add_flag("--solution", o->solution, t("course.exercise.opt.solution"));
  sub->add_option("--json", o->json, t("course.exercise.opt.json"));
  sub->add_option("--color", o->color, t("course.opt.color"));
  sub->callback([o] { run_exercise(*o); });
}

}  // namespace attn::cli
