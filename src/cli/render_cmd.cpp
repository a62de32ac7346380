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
}

}  // namespace

void write_page(const std::string& flag, const std::string& path, const std::string& page) {
  if (path == "-") {
    emit(page);
    return;
  }
  // a device or a pipe (/dev/null, /dev/full) is written in place
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    write_output(flag, path, page);
    return;
  }
  // a temporary file beside the target, renamed over it when complete: never half a page
  std::filesystem::path target(path);
  std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::string tmp = (std::filesystem::path(dir) / ("." + target.filename().string() + ".XXXXXX")).string();
  std::error_code dir_ec;  // a name too long for the filesystem is a path that cannot be written, not an exception
  if (target.filename().empty() || std::filesystem::is_directory(target, dir_ec))
    throw UsageError("cli.err.write_open", {{"flag", flag}, {"path", path}});
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) throw UsageError("cli.err.write_open", {{"flag", flag}, {"path", path}});
  mode_t mask = ::umask(0);  // the permissions a plain open would give
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  std::FILE* f = ::fdopen(fd, "wb");
  errno = 0;
  bool ok = f != nullptr && std::fwrite(page.data(), 1, page.size(), f) == page.size();
  int e = errno;
  if (f != nullptr && std::fclose(f) != 0) ok = false, e = e != 0 ? e : errno;
  if (f == nullptr) ::close(fd);
  if (ok && std::rename(name.data(), path.c_str()) != 0) ok = false, e = errno;
  if (!ok) {
    std::remove(name.data());
    // a failed write is exit 1 (WriteError), the input was fine
    throw WriteError("cli.err.write_failed", {{"flag", flag}, {"path", path}, {"reason", io_reason(e)}, {"errno", e}});
  }
}

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
  sub->callback([opt] { run_render(*opt); });
}

}  // namespace attn::cli
