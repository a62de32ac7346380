// attnlab book --html FILE: one HTML file holding every lesson, which reruns in the browser.
// The page carries the book's core (the WebAssembly build of this same program, built apart by
// `cmake --build build --target book`, cmake/book.cmake) and a manifest of the lessons: their
// names, summaries and options in every language, from the catalogs. The page draws a form from
// the manifest and runs `attnlab lesson NAME --html … --json …` in the core at every change.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "book_page.h"
#include "source_stamp.h"
#include "catalog.h"
#include "commands.h"
#include "errors.h"
#include "input_file.h"
#include "course.h"
#include "exercise.h"
#include "lesson.h"

namespace attn::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxCoreBytes = std::size_t{64} << 20;  // today's core: about 8 MB

// Options the page cannot offer: they read checkpoints or corpora, or retrain (the page works from
// the shipped models and results, as the lessons do by default), in every lesson ("*") or in one,
// where a flag is valid only beside one of those (induction's --steps needs --retrain).
struct CliOnly {
  const char* lesson;
  const char* flag;
};
const CliOnly kCliOnly[] = {{"*", "--weights"}, {"*", "--layer"},      {"*", "--text"},
                            {"*", "--token-ids"}, {"*", "--retrain"}, {"attention", "--head"},
                            {"induction", "--steps"}, {"tradeoffs", "--variant"}};

bool cli_only(const std::string& lesson, const std::string& flag) {
  for (const CliOnly& c : kCliOnly)
    if (flag == c.flag && (std::string(c.lesson) == "*" || lesson == c.lesson)) return true;
  return false;
}

// The book's languages: every language with catalogs (not the pseudo-locale, a test of the catalogs).
std::vector<std::string> book_langs() {
  std::vector<std::string> out;
  for (const std::string& code : available_languages())
    if (code != "qps") out.push_back(code);
  return out;
}

// A lesson's flags, as the command line binds them, and each one's help in every language.
class ManifestBinder : public OptionBinder {
 public:
  ManifestBinder(const std::string& lesson, const std::string& catalog, nlohmann::json& options, nlohmann::json& cli)
      : lesson_(lesson), catalog_(catalog), options_(options), cli_(cli) {}
  void integer(const char* flag, std::optional<std::int64_t>&) override { add(flag, "integer"); }
  void real(const char* flag, std::optional<double>&) override { add(flag, "real"); }
  void text(const char* flag, std::optional<std::string>&) override { add(flag, "text"); }
  void toggle(const char* flag, bool&) override { add(flag, "toggle"); }

  // The help of FLAG in every language, as `attnlab lesson NAME --help` gives it.
  static nlohmann::json help(const std::string& catalog, const std::string& flag) {
    nlohmann::json out = nlohmann::json::object();
    for (const std::string& code : book_langs()) out[code] = option_help(Text(Lang{code}), catalog, flag);
    return out;
  }

 private:
  void add(const std::string& flag, const char* kind) {
    if (cli_only(lesson_, flag)) {
      cli_.push_back(flag);
      return;
    }
    options_.push_back({{"flag", flag}, {"kind", kind}, {"help", help(catalog_, flag)}});
  }
  std::string lesson_, catalog_;
  nlohmann::json& options_;
  nlohmann::json& cli_;
};

// The page's own words, in every language; a {name} in them is filled in by the page.
nlohmann::json page_words() {
  // key -> the placeholders its message takes, passed through as "{name}" for the page to fill
  const std::vector<std::pair<const char*, std::vector<const char*>>> keys = {
      {"title", {}}, {"intro", {}}, {"lessons", {}}, {"language", {}}, {"default", {}},
      {"loading", {}}, {"computing", {}}, {"ran", {"ms"}}, {"refused", {}}, {"failed", {}},
      {"settings", {}}, {"command", {}}, {"link", {}}, {"trace", {}}, {"download", {}},
      {"cli_only", {"flags"}}, {"no_worker", {}}, {"about", {"version"}}, {"too_large", {"mb"}},
      // the path and the exercises (issue 50)
      {"path", {}}, {"path_intro", {}}, {"path_col_lessons", {}}, {"path_col_teaches", {}}, {"path_col_minutes", {}},
      {"path_col_done", {}}, {"progress_reset", {}}, {"exercises", {}}, {"exercise_seed", {}}, {"answer", {}},
      {"check", {}}, {"solution", {}}, {"key", {}}};
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& code : book_langs()) {
    Text t(Lang{code});
    nlohmann::json words = nlohmann::json::object();
    for (const auto& [key, names] : keys) {
      Args args;
      for (const char* n : names) args.push_back({n, "{" + std::string(n) + "}"});
      words[key] = t.bare(std::string("book.") + key, args);
    }
    words["lang_name"] = t.bare("book.lang_name");
    out[code] = words;
  }
  return out;
}

nlohmann::json manifest() {
  nlohmann::json lessons = nlohmann::json::array();
  for (const LessonInfo* info : all_lessons()) {
    const std::string catalog = catalog_name(*info);
    nlohmann::json options = nlohmann::json::array(), cli = nlohmann::json::array();
    // --seed and --precision: every lesson's (lesson_cmd.cpp adds them around the lesson's own)
    options.push_back({{"flag", "--seed"}, {"kind", "integer"}, {"help", ManifestBinder::help(catalog, "--seed")}});
    ManifestBinder binder(info->name, catalog, options, cli);
    info->make()->bind(binder);
    options.push_back({{"flag", "--precision"}, {"kind", "integer"}, {"help", ManifestBinder::help(catalog, "--precision")}});
    nlohmann::json summary = nlohmann::json::object();
    for (const std::string& code : book_langs()) summary[code] = Text(Lang{code})(catalog + ".summary");
    const std::vector<Exercise>* ex = exercises_of(info->name);
    lessons.push_back({{"name", info->name}, {"summary", summary}, {"options", options}, {"cli_only", cli},
                       {"exercises", ex == nullptr ? 0 : ex->size()}});
  }
  // The path the book opens on (lessons/course.h), what each stop teaches in every language.
  nlohmann::json course = nlohmann::json::array();
  for (const CourseStop& stop : course_stops()) {
    nlohmann::json teaches = nlohmann::json::object();
    for (const std::string& code : book_langs()) teaches[code] = Text(Lang{code})(std::string("course.stop.") + stop.id);
    course.push_back({{"id", stop.id}, {"lessons", std::vector<std::string>(stop.lessons.begin(), stop.lessons.end())},
                      {"minutes", stop.minutes}, {"command", stop.command}, {"teaches", teaches}});
  }
  return {{"version", std::string("attnlab ") + ATTNLAB_VERSION},
          {"langs", book_langs()},
          {"words", page_words()},
          {"lessons", lessons},
          {"course", course}};
}

// The source stamp the core was built with (cmake/source_stamp.cmake writes it into the core's
// JavaScript), or "" if it has none.
std::string source_stamp_of(const std::string& core) {
  // `ATTNLAB_SOURCE_STAMP = "…"`, spaces around '=' optional (a minifier may drop them)
  const std::string name = "ATTNLAB_SOURCE_STAMP";
  std::size_t i = core.find(name);
  if (i == std::string::npos) return "";
  i += name.size();
  auto skip_spaces = [&] { while (i < core.size() && core[i] == ' ') ++i; };
  skip_spaces();
  if (i >= core.size() || core[i] != '=') return "";
  ++i;
  skip_spaces();
  if (i >= core.size() || core[i] != '"') return "";
  const std::size_t a = i + 1, b = core.find('"', a);
  if (b == std::string::npos || b - a > 64) return "";
  return core.substr(a, b - a);
}

// Where the core is: $ATTNLAB_BOOK_CORE, else attnlab-book-core.js beside this executable (where
// the book target puts it).
std::string core_path() {
  if (const char* env = std::getenv("ATTNLAB_BOOK_CORE"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "attnlab-book-core.js";
  return (self.parent_path() / "attnlab-book-core.js").string();
}

void run_book(const std::string& html) {
  const std::string path = core_path();
  // how errors name the core: the variable that chose it, or the core's own file name
  const char* env = std::getenv("ATTNLAB_BOOK_CORE");
  const std::string label = env != nullptr && *env != '\0' ? "ATTNLAB_BOOK_CORE" : "attnlab-book-core.js";
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError("cli.err.book_core", {{"path", path}});
  declare_input(label, path);  // the book never overwrites its own core
  declare_report_outputs(ReportOutputs{std::nullopt, html, std::nullopt});
  std::string core = read_regular_file(path, kMaxCoreBytes, label);
  if (!book_core_fits(core)) throw UsageError("cli.err.book_core_js", {{"path", path}});
  const std::string core_stamp = source_stamp_of(core);
  if (core_stamp != ATTNLAB_SOURCE_STAMP)
    throw UsageError("cli.err.book_core_stale",
                     {{"path", path}, {"core_stamp", core_stamp.empty() ? "-" : core_stamp}, {"stamp", ATTNLAB_SOURCE_STAMP}});
  write_html_doc(html, render_book(BookPage{run_lang().code, manifest().dump(), core}));
  commit_outputs();
  print_written();
}

}  // namespace

void setup_book(CLI::App& root) {
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("book", t("cli.book.description"));
  auto html = std::make_shared<std::string>();
  sub->add_option("--html", *html, t("cli.book.opt.html"))->required();
  add_lang_option(sub);
  sub->callback([html] { run_book(*html); });
}

}  // namespace attn::cli
