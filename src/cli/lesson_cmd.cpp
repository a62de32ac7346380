// attnlab lesson NAME [options]: run a lesson, print it (or write its JSON trace).
// Each lesson is a sub-subcommand with the common options plus the flags the lesson binds itself
// (its bind function, through CliBinder below), so `attnlab lesson mla --help` shows exactly what
// mla accepts.
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "errors.h"
#include "lesson.h"
#include "parallel.h"
#include "html.h"
#include "locate.h"
#include "json_writer.h"
#include "npz_writer.h"
#include "step_select.h"
#include "terminal.h"

namespace attn::cli {

namespace {

struct LessonOptions {
  std::unique_ptr<LessonRun> lesson;  // the lesson's own options, bound to its flags
  std::int64_t seed = 42;       // --seed
  std::optional<std::int64_t> threads;  // --threads (default: every core; never changes a number)
  std::string color = "auto";   // --color auto|always|never
  int precision = 4;            // --precision
  bool full = false;            // --full
  ReportOutputs out;             // --json FILE|-, --html FILE|-, --npz FILE|-
  std::optional<std::string> step;  // --step ID[,ID…]: show only these steps
  const std::optional<std::string>* weights = nullptr;  // the lesson's --weights, if it has one
};

// The lesson's own flags, bound with CLI11, with option_help's text (swiglu's --d-model, which has no
// heads to fit, has a help of its own).
class CliBinder : public OptionBinder {
 public:
  CliBinder(CLI::App* sub, const std::optional<std::string>** weights, std::string lesson_catalog)
      : sub_(sub), weights_(weights), catalog_(std::move(lesson_catalog)) {}
  void integer(const char* flag, std::optional<std::int64_t>& v) override { sub_->add_option(flag, v, help(flag)); }
  void real(const char* flag, std::optional<double>& v) override { sub_->add_option(flag, v, help(flag)); }
  void text(const char* flag, std::optional<std::string>& v) override {
    sub_->add_option(flag, v, help(flag));
    if (std::string(flag) == "--weights") *weights_ = &v;  // an input of the run (declare_input_folder)
  }
  void toggle(const char* flag, bool& v) override { sub_->add_flag(flag, v, help(flag)); }

 private:
  std::string help(const std::string& flag) const { return option_help(attn::cli::text(), catalog_, flag); }
  CLI::App* sub_;
  const std::optional<std::string>** weights_;
  std::string catalog_;
};

// For --help: the sizes a run without flags uses and the tensors its trace holds, read off a
// default run (a few milliseconds; only when help is asked for).
std::string defaults_footer(const LessonInfo& info) {
  Trace t = info.make()->run(RunContext{run_lang(), 42});  // yes/no in the run's language
  std::string defaults, tensors;
  for (const Value& v : t.config)
    if (v.name != "tokens" && v.name != "seed")
      defaults += fmt::format("{}{}={}", defaults.empty() ? "" : "  ", v.name, format_scalar(v.value, 4, &t));
  for (const std::string& name : t.tensor_order) tensors += (tensors.empty() ? "" : ", ") + name;
  return text()("cli.lesson.defaults", {{"defaults", defaults}}) + "\n" +
         text()("cli.lesson.steps", {{"steps", step_list(t, text())}}) + "\n" +
         text()("cli.lesson.tensors", {{"tensors", tensors}}) + "\n";
}

void run_lesson(const LessonOptions& o) {
  if (o.precision < 0 || o.precision > 15)
    throw UsageError("cli.err.precision", {{"flag", "--precision"}, {"value", o.precision}});
  if (o.seed < 0) throw UsageError("cli.err.seed", {{"flag", "--seed"}, {"value", o.seed}});
  if (o.threads && (*o.threads < 1 || *o.threads > 1024))
    throw UsageError("cli.err.threads", {{"flag", "--threads"}, {"value", *o.threads}});
  if (o.threads) set_threads(static_cast<std::size_t>(*o.threads));
  bool color = use_color(o.color);  // validated even when writing JSON
  if (o.weights != nullptr && o.weights->has_value()) declare_input_folder("--weights", resolve_weights(**o.weights));
  declare_report_outputs(o.out);
  Trace trace = o.lesson->run(RunContext{run_lang(), o.seed});
  if (o.step) select_steps(trace, *o.step, text());
  if (o.out.html) write_html_doc(*o.out.html, render_html(trace, HtmlOptions{o.precision}));
  // counted as written: /dev/null or a pipe has no file size to read back
  std::size_t json_bytes = 0, npz_bytes = 0;
  if (o.out.json) write_output_with("--json", *o.out.json, [&](std::FILE* f) { return write_trace_json(trace, f, &json_bytes); });
  if (o.out.npz) write_output_with("--npz", *o.out.npz, [&](std::FILE* f) { return write_trace_npz(trace, f, &npz_bytes); });
  commit_outputs();
  if (!o.out.any()) emit(render_trace(trace, RenderOptions{o.precision, color, o.full}));
  // a file: say what was written (stdout stays the trace's alone)
  const auto n = trace.tensor_order.size();
  if (o.out.json)
    note_written(*o.out.json, text()("cli.lesson.wrote", {{"path", *o.out.json}, {"schema", kTraceSchema}, {"n", n}, {"bytes", static_cast<std::int64_t>(json_bytes)}}));
  if (o.out.npz)
    note_written(*o.out.npz, text()("cli.lesson.wrote_npz", {{"path", *o.out.npz}, {"n", n}, {"bytes", static_cast<std::int64_t>(npz_bytes)}}));
  note_not_printed(o.out, "cli.lesson.not_printed");
  print_written();
}

}  // namespace

void setup_lesson(CLI::App& root) {
  const Text& t = text();
  CLI::App* lesson = root.add_subcommand("lesson", t("cli.lesson.description"));
  lesson->require_subcommand(1);
  lesson->footer(t("cli.lesson.footer"));
  add_lang_option(lesson);
  for (const LessonInfo* info : all_lessons()) {
    auto opts = std::make_shared<LessonOptions>();
    opts->lesson = info->make();
    CLI::App* sub = lesson->add_subcommand(info->name, t(catalog_name(*info) + ".summary"));
    sub->add_option("--seed", opts->seed, t("cli.opt.seed"));
    CliBinder binder(sub, &opts->weights, catalog_name(*info));
    opts->lesson->bind(binder);
    sub->add_option("--precision", opts->precision, t("cli.opt.precision"));
    sub->add_option("--threads", opts->threads, t("cli.opt.threads"));
    add_lang_option(sub);
    sub->add_option("--color", opts->color, t("cli.opt.color"));
    sub->add_flag("--full", opts->full, t("cli.opt.full"));
    add_report_outputs(sub, opts->out, t("cli.opt.json"), true);
    sub->add_option("--step", opts->step, t("cli.opt.step"));
    sub->callback([opts, sub] {
      // a checkpoint's weights are read, not drawn: a seed given beside --weights would be ignored
      if (sub->count("--seed") > 0 && sub->get_option_no_throw("--weights") != nullptr && sub->count("--weights") > 0)
        throw UsageError("checkpoint.err.with_weights", {{"flag", "--seed"}});
      run_lesson(*opts);
    });
    sub->footer([info] { return defaults_footer(*info); });
  }
}

std::string option_help(const Text& t, const std::string& lesson_catalog, const std::string& flag) {
  std::string name = flag.substr(2);
  for (char& ch : name)
    if (ch == '-') ch = '_';
  const std::string own = lesson_catalog + ".opt." + name;
  return t.has(own) ? t(own) : t("cli.opt." + name);
}

void check_lesson_name(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "lesson") return;
  std::string names;
  for (const LessonInfo* l : all_lessons()) names += (names.empty() ? "" : ", ") + std::string(l->name);
  if (args.size() == 1) throw UsageError("cli.err.lesson_missing", {{"lessons", names}});
  const std::string& name = args[1];
  if (name.empty() || name[0] == '-' || find_lesson(name) != nullptr) return;
  throw UsageError("cli.err.lesson_unknown", {{"name", name}, {"lessons", names}});
}

}  // namespace attn::cli
