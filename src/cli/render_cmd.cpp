// attnlab render TRACE.json (--html FILE | --text): a saved trace as a page or as the terminal
// text again. The trace is read and checked (render/trace_reader.h); the renderers' words come
// from the catalogs of the trace's language, as a lesson run puts them in.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "catalog.h"
#include "commands.h"
#include "errors.h"
#include "html.h"
#include "input_file.h"
#include "terminal.h"
#include "trace_reader.h"

namespace attn::cli {

namespace {

struct RenderCmdOptions {
  std::string trace;
  std::optional<std::string> html;
  bool text = false;
  int precision = 4;
  std::string color = "auto";
};

void run_render(const RenderCmdOptions& o) {
  if (o.html.has_value() == o.text) throw UsageError("html.err.render_mode");
  if (o.precision < 0 || o.precision > 15)
    throw UsageError("cli.err.precision", {{"flag", "--precision"}, {"value", o.precision}});
  bool color = false;
  if (o.color == "always") color = true;
  else if (o.color == "auto") color = std::getenv("NO_COLOR") == nullptr && ::isatty(STDOUT_FILENO) == 1;
  else if (o.color != "never") throw UsageError("cli.err.color", {{"flag", "--color"}, {"value", o.color}});
  declare_input("render", o.trace);
  if (o.html) declare_output("--html", *o.html);
  Trace trace = read_trace_file(o.trace);
  bool known = false;
  for (const std::string& code : available_languages()) known = known || code == trace.lang.code;
  if (!known) throw UsageError("html.err.trace_invalid", {{"file", o.trace}, {"what", "config.lang"}});
  Text t(trace.lang);
  trace.ui = t.all_of("render");
  trace.ui["header"] = t("render.header", {{"lesson", trace.lesson}});
  for (std::size_t i = 0; i < trace.steps.size(); ++i)
    if (trace.steps[i].heading.empty())
      trace.steps[i].heading =
          t("render.step_heading", {{"n", i + 1}, {"total", trace.steps.size()}, {"title", trace.steps[i].title}});
  if (o.text) {
    emit(render_trace(trace, RenderOptions{o.precision, color, false}));
    return;
  }
  write_page("--html", *o.html, render_html(trace, HtmlOptions{o.precision}));
  commit_outputs();
}

}  // namespace

void setup_render(CLI::App& root) {
  auto opt = std::make_shared<RenderCmdOptions>();
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("render", t("html.render.description"));
  sub->add_option("trace", opt->trace, t("html.render.opt.trace"))->required();
  sub->add_option("--html", opt->html, t("html.opt.html"));
  sub->add_flag("--text", opt->text, t("html.render.opt.text"));
  sub->add_option("--precision", opt->precision, t("cli.opt.precision"));
  sub->add_option("--color", opt->color, t("html.render.opt.color"));
  add_lang_option(sub);
  sub->callback([opt, sub] {
    if (sub->count("--color") > 0 && sub->count("--html") > 0)  // colour is the terminal text's only
      throw UsageError("cli.err.color_not_terminal", {{"flag", "--color"}, {"output", "--html"}});
    run_render(*opt);
  });
}

}  // namespace attn::cli
