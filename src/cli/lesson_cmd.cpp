// attnlab lesson NAME [options]: run a lesson, print it (or write its JSON trace).
// Each lesson is a sub-subcommand with the common options plus the flags its LessonInfo lists,
// so `attnlab lesson mla --help` shows exactly what mla accepts.
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "errors.h"
#include "lesson.h"
#include "json_writer.h"
#include "terminal.h"

namespace attn::cli {

namespace {

struct LessonOptions {
  LessonConfig config;
  std::string color = "auto";   // --color auto|always|never
  int precision = 4;            // --precision
  bool full = false;            // --full
  std::optional<std::string> json;  // --json FILE|-
};

// Colour only for a terminal, unless asked: --color always/never win over NO_COLOR and isatty.
bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (mode != "auto") throw UsageError("cli.err.color", {{"flag", "--color"}, {"value", mode}});
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  if (no_color != nullptr && *no_color != '\0') return false;
  if (term != nullptr && std::string(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

// A lesson's own flag: its option, its help text (cli.opt.NAME, NAME the flag with '_' for '-').
void bind_flag(CLI::App* sub, const std::string& flag, LessonConfig& c) {
  const Text& t = text();
  std::string key = "cli.opt." + flag.substr(2);
  for (char& ch : key)
    if (ch == '-') ch = '_';
  std::string help = t(key);
  if (flag == "--tokens") sub->add_option(flag, c.tokens, help);
  else if (flag == "--seq-len") sub->add_option(flag, c.seq_len, help);
  else if (flag == "--d-model") sub->add_option(flag, c.d_model, help);
  else if (flag == "--heads") sub->add_option(flag, c.heads, help);
  else if (flag == "--kv-heads") sub->add_option(flag, c.kv_heads, help);
  else if (flag == "--head-dim") sub->add_option(flag, c.head_dim, help);
  else if (flag == "--d-ff") sub->add_option(flag, c.d_ff, help);
  else if (flag == "--latent-dim") sub->add_option(flag, c.latent_dim, help);
  else if (flag == "--q-latent-dim") sub->add_option(flag, c.q_latent_dim, help);
  else if (flag == "--rope-dim") sub->add_option(flag, c.rope_dim, help);
  else if (flag == "--multiple-of") sub->add_option(flag, c.multiple_of, help);
  else if (flag == "--steps") sub->add_option(flag, c.steps, help);
  else if (flag == "--top-k") sub->add_option(flag, c.top_k, help);
  else if (flag == "--lr") sub->add_option(flag, c.lr, help);
  else if (flag == "--x") sub->add_option(flag, c.x, help);
  else if (flag == "--values") sub->add_option(flag, c.values, help);
  else if (flag == "--activation") sub->add_option(flag, c.activation, help);
  else if (flag == "--causal") sub->add_flag(flag, c.causal, help);
  else throw std::logic_error("lesson flag " + flag + " has no binding in lesson_cmd.cpp");
}

// For --help: the sizes a run without flags uses and the tensors its trace holds, read off a
// default run (a few milliseconds; only when help is asked for).
std::string defaults_footer(const LessonInfo& info) {
  LessonConfig c;  // the config names and tensor ids are the trace's; yes/no in the run's language
  c.lang = run_lang();
  Trace t = info.run(c);
  std::string defaults, tensors;
  for (const Value& v : t.config)
    if (v.name != "tokens" && v.name != "seed")
      defaults += fmt::format("{}{}={}", defaults.empty() ? "" : "  ", v.name, format_scalar(v.value, 4, &t));
  for (const std::string& name : t.tensor_order) tensors += (tensors.empty() ? "" : ", ") + name;
  return text()("cli.lesson.defaults", {{"defaults", defaults}}) + "\n" +
         text()("cli.lesson.tensors", {{"tensors", tensors}}) + "\n";
}

void run_lesson(const LessonInfo& info, LessonOptions o) {
  o.config.lang = run_lang();
  if (o.precision < 0 || o.precision > 15)
    throw UsageError("cli.err.precision", {{"flag", "--precision"}, {"value", o.precision}});
  if (o.config.seed < 0) throw UsageError("cli.err.seed", {{"flag", "--seed"}, {"value", o.config.seed}});
  bool color = use_color(o.color);  // validated even when writing JSON
  Trace trace = info.run(o.config);
  if (o.json) {
    write_output("--json", *o.json, trace_to_json(trace));
    return;
  }
  emit(render_trace(trace, RenderOptions{o.precision, color, o.full}));
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
    CLI::App* sub = lesson->add_subcommand(info->name, t(catalog_name(*info) + ".summary"));
    sub->add_option("--seed", opts->config.seed, t("cli.opt.seed"));
    for (const std::string& flag : info->flags) bind_flag(sub, flag, opts->config);
    sub->add_option("--precision", opts->precision, t("cli.opt.precision"));
    add_lang_option(sub);
    sub->add_option("--color", opts->color, t("cli.opt.color"));
    sub->add_flag("--full", opts->full, t("cli.opt.full"));
    sub->add_option("--json", opts->json, t("cli.opt.json"));
    sub->callback([info, opts] { run_lesson(*info, *opts); });
    sub->footer([info] { return defaults_footer(*info); });
  }
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
