#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <sys/stat.h>
#include <unistd.h>

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

namespace {
// A failed write is exit 1 (WriteError): the input was fine, the output could not be written.
[[noreturn]] void stdout_failed(int e) {
  throw WriteError("input.err.stdout_write", {{"reason", io_reason(e)}, {"errno", e}});
}
[[noreturn]] void file_failed(const std::string& flag, const std::string& path, int e) {
  throw WriteError("cli.err.write_failed", {{"flag", flag}, {"path", path}, {"reason", io_reason(e)}, {"errno", e}});
}
bool same_inode(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }
}  // namespace

void emit(const std::string& text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) stdout_failed(errno);
  if (std::fflush(stdout) != 0) stdout_failed(errno);
}

void finish_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) stdout_failed(errno);
}

void require_distinct_outputs(const std::string& a_flag, const std::string& a, const std::string& b_flag, const std::string& b) {
  if (a == "-" && b == "-") throw UsageError("cli.err.both_stdout", {{"a_flag", a_flag}, {"b_flag", b_flag}});
  if (a == "-" || b == "-") {
    // "-" and a name for stdout itself (/dev/stdout, /proc/self/fd/1, the terminal's own device):
    // the same file as standard output, unless that is /dev/null
    const std::string& path = a == "-" ? b : a;
    struct stat so {}, sp {};
    if (::fstat(STDOUT_FILENO, &so) == 0 && ::stat(path.c_str(), &sp) == 0 && same_inode(so, sp) &&
        !(S_ISCHR(sp.st_mode) && path == "/dev/null"))
      throw UsageError("cli.err.both_stdout", {{"a_flag", a_flag}, {"b_flag", b_flag}});
    return;
  }
  // One file: the same words, the same path once made absolute ("./x" and "/cwd/x"), or, when both
  // exist, the same device and inode (a link; stat rather than std::filesystem::equivalent, which
  // libstdc++ refuses for devices). /dev/null twice throws both away, which is harmless.
  std::error_code ec1, ec2;
  std::filesystem::path pa = std::filesystem::absolute(a, ec1).lexically_normal();
  std::filesystem::path pb = std::filesystem::absolute(b, ec2).lexically_normal();
  struct stat sa {}, sb {};
  bool a_exists = ::stat(a.c_str(), &sa) == 0, b_exists = ::stat(b.c_str(), &sb) == 0;
  bool same = a == b || (!ec1 && !ec2 && pa == pb) || (a_exists && b_exists && same_inode(sa, sb));
  if (same && a_exists && S_ISCHR(sa.st_mode) && a == "/dev/null") return;
  if (same) throw UsageError("cli.err.same_output", {{"a_flag", a_flag}, {"b_flag", b_flag}, {"path", a}});
}

void write_output(const std::string& flag, const std::string& path, const std::string& text) {
  if (path == "-") {
    emit(text);
    return;
  }
  write_output_with(flag, path, [&](std::FILE* f) { return std::fwrite(text.data(), 1, text.size(), f) == text.size(); });
}

void write_output_with(const std::string& flag, const std::string& path, const std::function<bool(std::FILE*)>& write) {
  if (path == "-") {
    std::fflush(stdout);
    errno = 0;
    if (!write(stdout) || std::fflush(stdout) != 0 || std::ferror(stdout)) stdout_failed(errno);
    return;
  }
  // A file is written to a temporary name beside it and renamed, so a failed run leaves no
  // half-written file; a device or a pipe (/dev/null, /dev/stdout) is written in place.
  struct stat st {};
  bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  std::string tmp = special ? path : path + ".attnlab-tmp";
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (out == nullptr) throw UsageError("cli.err.write_open", {{"flag", flag}, {"path", path}});
  errno = 0;
  bool ok = write(out);
  int e = errno;
  if (std::fflush(out) != 0 || std::ferror(out)) ok = false, e = e != 0 ? e : errno;
  if (std::fclose(out) != 0) ok = false, e = e != 0 ? e : errno;
  if (ok && !special && std::rename(tmp.c_str(), path.c_str()) != 0) ok = false, e = errno;
  if (!ok) {
    if (!special) std::remove(tmp.c_str());
    file_failed(flag, path, e);
  }
}

}  // namespace attn::cli
