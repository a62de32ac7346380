// attnlab: transformer attention and feed-forward layers, with real numbers.
// main only wires the subcommands (src/cli/*_cmd.cpp) and turns errors into exit codes:
//   0 success, 2 bad usage or bad input (one line on stderr), 1 a failed write (one line) or an
//   internal error.
//
// The run's language is chosen before anything is parsed (--lang X or --lang=X anywhere on the
// line, else LC_ALL / LC_MESSAGES / LANG), so --help, CLI11's own words and every error come out
// in it. --lang is global: `attnlab lesson --lang zh mha` works as well as `… mha --lang zh`.
#include <csignal>
#include <algorithm>
#include <deque>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "embedded_data.h"
#include "errors.h"
#include "input_file.h"
#ifdef ATTNLAB_FUZZ_HOOKS
#include "lesson.h"
#endif
#include "printable.h"

namespace {

using attn::Args;
using attn::Msg;

// The message of a key from the embedded catalogs/cli only: for an error met while the catalogs
// themselves were loading (a bad ATTNLAB_CATALOG_PATH), when Text cannot be used.
std::string embedded_cli_message(const Msg& m, const attn::Lang& lang) {
  for (const std::string& code : {lang.code, std::string("en")}) {
    auto file = attn::embedded_file("catalogs/cli/" + code + ".cat");
    if (!file) continue;
    attn::CatalogFile f = attn::parse_catalog(*file, "cli", code, "cli");
    auto it = f.messages.find(m.key), line = f.messages.find("cli.error_line");
    if (it == f.messages.end() || line == f.messages.end()) continue;
    std::string msg = attn::format_message(it->second, m.args, lang);
    return attn::format_message(line->second, {{"message", msg}}, lang);
  }
  return m.key;
}

// "attnlab: error: …" in the run's language.
int internal_failure(const std::string& what, const attn::Lang& lang);

// Every value echoed in an error is made printable (\n, \x1b, … shown escaped) and cut to about
// 80 characters, so an error is always one line; the lists the program itself writes are whole.
Msg printable_msg(Msg m) {
  static const char* const whole[] = {"types", "presets", "lessons", "commands", "langs", "flags", "message"};
  for (attn::Arg& a : m.args) {
    auto* s = std::get_if<std::string>(&a.value);
    if (s == nullptr) continue;
    bool keep = std::find_if(std::begin(whole), std::end(whole), [&](const char* w) { return a.name == w; }) != std::end(whole);
    *s = attn::printable(*s, keep ? 4000 : 80);
  }
  return m;
}

int usage_failure(const Msg& raw, const attn::Lang& lang) {
  std::fflush(stdout);
  Msg m = printable_msg(raw);
  std::string line;
  try {
    attn::Text text(lang);
    std::string message = text(m);  // a key with no message is a bug: std::logic_error, exit 1
    line = text("cli.error_line", {{"message", message}});
  } catch (const attn::UsageError&) {
    line = embedded_cli_message(m, lang);
  } catch (const std::exception& e) {
    return internal_failure(e.what(), lang);
  }
  fmt::print(stderr, "attnlab: {}\n", line);
  return 2;
}

int internal_failure(const std::string& raw, const attn::Lang& lang) {
  std::fflush(stdout);
  std::string what = attn::printable(raw, 200);
  std::string line;
  try {
    line = attn::Text(lang)("cli.internal_line", {{"what", what}});
  } catch (const std::exception&) {
    line = embedded_cli_message({"cli.internal_line", {{"what", what}}}, lang);
  }
  fmt::print(stderr, "attnlab: {}\n", line);
  return 1;
}

// The first word that looks like a flag ("--lr", "--lr:", "--lr,"), or "".
std::string flag_in(const std::string& text) {
  std::size_t at = text.find("--");
  if (at == std::string::npos) at = text.find(" -") == std::string::npos ? text.npos : text.find(" -") + 1;
  if (at == std::string::npos) return "";
  std::size_t end = text.find_first_of(" :,=", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// CLI11's own parse errors carry English sentences; say the same from the catalog.
Msg parse_error_msg(const CLI::ParseError& e, const std::string& commands) {
  std::string what = e.what();
  std::string tail = what.find(": ") == std::string::npos ? "" : what.substr(what.find(": ") + 2);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // CLI11 lists them last-first ("zh --lang"); put them back in the order they were typed.
    std::vector<std::string> words;
    for (std::size_t i = 0; i <= tail.size();) {
      std::size_t j = std::min(tail.find(' ', i), tail.size());
      if (j > i) words.push_back(tail.substr(i, j - i));
      i = j + 1;
    }
    std::reverse(words.begin(), words.end());
    return {"cli.err.cli_extras", {{"n", words.size()}, {"args", fmt::format("{}", fmt::join(words, " "))}}};
  }
  std::string flag = flag_in(what);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && !flag.empty()) {
    if (what.find("flag override") != std::string::npos) return {"cli.err.cli_flag_value", {{"flag", flag}}};
    // An option that takes one value, given twice (--heads 2 --heads 4): CLI11's policy is Throw,
    // "--heads: At Most 1 required but received 2".
    if (what.find("At Most") != std::string::npos) return {"cli.err.cli_repeated", {{"flag", flag}}};
    // --json / --html / --npz take FILE or - (a bare --json was a flag in some commands once)
    if (flag == "--json" || flag == "--html" || flag == "--npz") return {"cli.err.output_value", {{"flag", flag}}};
    return {"cli.err.cli_missing_value", {{"flag", flag}}};
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr && !flag.empty()) {
    if (what.find("for a flag") != std::string::npos || what.find("true/false") != std::string::npos)
      return {"cli.err.cli_flag_value", {{"flag", flag}}};
    std::size_t eq = what.find(" = ");
    std::string value = eq != std::string::npos ? what.substr(eq + 3) : "";
    if (what.rfind("The value ", 0) == 0) value = what.substr(10, what.find(" is not") - 10);
    return {"cli.err.cli_conversion", {{"flag", flag}, {"value", value}}};
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    if (what.rfind("A subcommand", 0) == 0) return {"cli.err.cli_command_required", {{"commands", commands}}};
    std::size_t is = what.find(" is required");
    if (is != std::string::npos) return {"cli.err.cli_required", {{"what", what.substr(0, is)}}};
  }
  return {"cli.err.cli_other", {{"detail", what}}};
}

// --lang X / --lang=X, wherever it stands (before a "--"), taken out of the arguments.
struct Prescan {
  std::optional<std::string> lang;
  std::vector<std::string> args;  // the rest, in order
};
Prescan prescan(int argc, char** argv) {
  Prescan p;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      for (; i < argc; ++i) p.args.emplace_back(argv[i]);
      break;
    }
    if (a == "--lang" && i + 1 < argc) {
      p.lang = argv[++i];
      continue;
    }
    if (a.rfind("--lang=", 0) == 0) {
      p.lang = a.substr(7);
      continue;
    }
    p.args.push_back(a);
  }
  return p;
}

// --help and --version: CLI11 writes the text, emit() prints it, so that a failed write is exit 1
// with its reason like any other output (CLI11 alone wrote to std::cout and returned 0).
void print_help(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream text;
  app.exit(e, text);
  attn::cli::emit(text.str());
}

// A command with commands of its own (bench memory | decode): `attnlab bench` or `attnlab bench
// nosuch` lists bench's commands. (CLI11 would say that the top level needs a command and list
// those.) A flag after the command (--help) is left to CLI11; lessons are checked by
// check_lesson_name first.
void check_command_word(const CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty()) return;
  auto found = app.get_subcommands([&](const CLI::App* s) { return s->get_name() == args[0]; });
  if (found.empty()) return;
  std::vector<const CLI::App*> own = found[0]->get_subcommands([](const CLI::App*) { return true; });
  if (own.empty()) return;
  std::string names;
  for (const CLI::App* sub : own) names += (names.empty() ? "" : ", ") + sub->get_name();
  if (args.size() == 1) throw attn::UsageError("cli.err.command_missing", {{"command", args[0]}, {"commands", names}});
  const std::string& word = args[1];
  if (!word.empty() && word[0] == '-') return;
  if (std::none_of(own.begin(), own.end(), [&](const CLI::App* s) { return s->get_name() == word; }))
    throw attn::UsageError("cli.err.command_unknown", {{"command", args[0]}, {"name", word}, {"commands", names}});
}

// --color auto|always|never on every command that prints to a terminal (issue 50: `heads --color never`
// was refused). The commands that colour their output bind it themselves; on the others it is
// accepted and checked (a colourless report is the same bytes whatever its value).
void add_color_everywhere(CLI::App& app) {
  static std::deque<std::string> values;  // the options' storage, alive as long as the apps
  for (CLI::App* sub : app.get_subcommands({})) {
    if (!sub->get_subcommands({}).empty()) {  // lesson NAME, bench memory|decode: their own commands
      add_color_everywhere(*sub);
      continue;
    }
    if (sub->get_option_no_throw("--color") != nullptr) continue;
    values.emplace_back("auto");
    sub->add_option("--color", values.back(), attn::cli::text()("cli.opt.color"))->each([](const std::string& v) {
      if (v != "auto" && v != "always" && v != "never") throw attn::UsageError("cli.err.color", {{"flag", "--color"}, {"value", v}});
    });
  }
}

// One run of the command line: main's body, also what the book's page calls for each run.
int run_command_line(int argc, char** argv) {
  attn::Lang lang;  // English until the environment or --lang says otherwise
#ifdef ATTNLAB_FUZZ_HOOKS
  // The sanitized fuzz build only: ATTNLAB_FUZZ_WORK_SCALE=x (0 < x ≤ 1) lowers every work cap to x
  // times its value, so that fuzz/cli_fuzz.py's runs that are accepted stay short under ASan.
  if (const char* s = std::getenv("ATTNLAB_FUZZ_WORK_SCALE")) {
    double x = std::atof(s);
    if (x > 0 && x <= 1) attn::set_work_caps_for_fuzzing(attn::kMaxLessonWork * x, attn::kMaxWorkNumbers * x);
  }
#endif
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and is reported like a full disk,
  // instead of the process being killed half-way through writing.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    lang = attn::lang_from_env();
    Prescan p = prescan(argc, argv);
    if (p.lang && p.lang->empty()) throw attn::UsageError("cli.err.empty_value", {{"flag", "--lang"}});
    if (p.lang) lang = attn::parse_lang(*p.lang);
    attn::cli::set_run_lang(lang);
    const attn::Text& t = attn::cli::text();
    if (p.args.empty()) {  // the front door; --help stays the reference
      attn::cli::emit(attn::cli::front_door());
      attn::cli::finish_stdout();
      return 0;
    }

    CLI::App app{t("cli.app.description"), "attnlab"};
    attn::cli::use_wide_formatter(app);
    app.set_help_flag("-h,--help", t("cli.help.help"));
    app.set_version_flag("--version", std::string("attnlab ") + ATTNLAB_VERSION, t("cli.help.version"));
    app.require_subcommand(1);
    app.footer(t("cli.app.footer"));
    attn::cli::add_lang_option(&app);

    attn::cli::setup_list(app);
    attn::cli::setup_lesson(app);
    attn::cli::setup_models(app);
    attn::cli::setup_params(app);
    attn::cli::setup_kv_cache(app);
    attn::cli::setup_render(app);
    attn::cli::setup_bench(app);
    attn::cli::setup_flops(app);
    attn::cli::setup_heads(app);
    attn::cli::setup_generate(app);
    attn::cli::setup_train(app);
    attn::cli::setup_book(app);
    attn::cli::setup_course(app);
    attn::cli::setup_exercise(app);
    add_color_everywhere(app);
    attn::cli::check_option_values(app);
    attn::cli::localize_help(app);

    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
    try {
      if (!p.args.empty() && !p.args[0].empty() && p.args[0][0] != '-' &&
          app.get_subcommands([&](const CLI::App* s) { return s->get_name() == p.args[0]; }).empty())
        throw attn::UsageError("cli.err.unknown_command", {{"command", p.args[0]}, {"commands", names}});
      attn::cli::check_lesson_name(p.args);
      check_command_word(app, p.args);
      std::vector<std::string> reversed(p.args.rbegin(), p.args.rend());  // CLI11 reads them last-first
      app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
      print_help(app, e);
    } catch (const CLI::CallForAllHelp& e) {
      print_help(app, e);
    } catch (const CLI::CallForVersion& e) {
      print_help(app, e);
    } catch (const CLI::ParseError& e) {
      return usage_failure(parse_error_msg(e, names), lang);
    }
    attn::cli::commit_outputs();  // what a command declared and wrote (each commits its own first)
    attn::cli::finish_stdout();  // a failed write or flush is an error, never exit 0
  } catch (const attn::WriteError& e) {
    attn::cli::discard_outputs();
    usage_failure(e.msg, lang);  // one line, like a usage error, but exit 1: the run failed
    return 1;
  } catch (const attn::UsageError& e) {
    attn::cli::discard_outputs();  // a failed run leaves every file as it found it
    return usage_failure(e.msg, lang);
  } catch (const std::bad_alloc&) {
    attn::cli::discard_outputs();
    return usage_failure({"cli.err.out_of_memory"}, lang);
  } catch (const std::exception& e) {
    attn::cli::discard_outputs();
    return internal_failure(e.what(), lang);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_command_line(argc, argv); }

#ifdef __EMSCRIPTEN__
#include <nlohmann/json.hpp>
// The book's WebAssembly core (cmake/book.cmake): the page runs `attnlab ARGS…` by passing ARGS as
// a JSON array of strings; the exit code is returned, and the run's files are in the page's memory
// file system, stdout and stderr go to the page's print functions.
extern "C" int attnlab_run_json(const char* args_json) {
  std::vector<std::string> args{"attnlab"};
  try {
    for (const auto& a : nlohmann::json::parse(args_json)) args.push_back(a.get<std::string>());
  } catch (const std::exception&) {
    return 1;  // the page's own bug, never the learner's
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // One process, many runs: nothing of the run before (a failed run's declared files or "wrote"
  // lines) may reach this one.
  attn::cli::discard_outputs();
  attn::cli::forget_written();
  int rc = run_command_line(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  return rc;
}
#endif
