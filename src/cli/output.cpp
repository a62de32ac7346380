#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <memory>


#include <fmt/format.h>

#include "commands.h"
#include "errors.h"
#include "input_file.h"

namespace attn::cli {

namespace {
Lang g_lang;
std::unique_ptr<Text> g_text;
}  // namespace

void set_run_lang(Lang lang) {
  g_lang = std::move(lang);
  g_text = std::make_unique<Text>(g_lang);
}

const Lang& run_lang() { return g_lang; }

const Text& text() {
  if (!g_text) g_text = std::make_unique<Text>(g_lang);
  return *g_text;
}

std::string head_ref(std::size_t layer_index, std::size_t head_index) {
  return text()("checkpoint.head_ref", {{"layer", layer_index + 1}, {"head", head_index + 1}, {"l0", layer_index}, {"h0", head_index}});
}

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


std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t k = 0; k < items.size(); ++k) out = k == 0 ? items[k] : text()("cli.lesson.step_join", {{"list", out}, {"item", items[k]}});
  return out;
}

void add_lang_option(CLI::App* app) {
  static std::string ignored;  // main has taken --lang out of the arguments already
  std::string langs;
  for (const std::string& code : available_languages())
    if (code != "qps") langs += (langs.empty() ? "" : ", ") + code;
  app->add_option("--lang", ignored, text()("cli.help.lang", {{"langs", langs}}));
}

namespace {
void localize_groups(CLI::App* app, const Text& t) {
  for (CLI::Option* opt : app->get_options())
    if (opt->get_group() == "Options") opt->group(t("cli.label.options"));
  for (CLI::App* sub : app->get_subcommands({})) {
    sub->group(t("cli.label.commands"));
    localize_groups(sub, t);
  }
}
}  // namespace

namespace {
// CLI11's layout pads the left column by bytes; a Chinese word takes 3 bytes and 2 columns, so
// pad by display width instead (the same layout otherwise).
class WideFormatter : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    return row(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return row(sub->get_display_name(true), sub->get_description());
  }

 private:
  std::string row(const std::string& left, const std::string& desc) const {
    std::size_t wid = get_column_width();
    std::string name = "  " + left, out = pad_right(name, wid);
    if (!desc.empty()) {
      if (display_width(name) >= wid) out += "\n" + std::string(wid, ' ');
      for (char c : desc) {
        out += c;
        if (c == '\n') out += std::string(wid, ' ');
      }
    }
    return out + "\n";
  }
};
}  // namespace

void use_wide_formatter(CLI::App& app) { app.formatter(std::make_shared<WideFormatter>()); }

void localize_help(CLI::App& app) {
  const Text& t = text();
  auto f = app.get_formatter();  // shared by every subcommand
  f->label("Usage", t("cli.label.usage"));
  f->label("OPTIONS", t("cli.label.options_badge"));
  f->label("SUBCOMMAND", t("cli.label.subcommand"));
  f->label("SUBCOMMANDS", t("cli.label.subcommands"));
  f->label("REQUIRED", t("cli.label.required"));
  f->label("Positionals", t("cli.label.positionals"));
  for (const char* type : {"TEXT", "INT", "UINT", "FLOAT"}) f->label(type, t(std::string("cli.label.") + type));
  localize_groups(&app, t);
}

// A failed write to stdout is exit 1 (WriteError): the input was fine, the output could not be written.
void emit(const std::string& text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
    throw WriteError("input.err.stdout_write", {{"reason", io_reason(errno)}, {"errno", errno}});
  if (std::fflush(stdout) != 0) throw WriteError("input.err.stdout_write", {{"reason", io_reason(errno)}, {"errno", errno}});
}

void finish_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw WriteError("input.err.stdout_write", {{"reason", io_reason(errno)}, {"errno", errno}});
}

}  // namespace attn::cli
