// One convention for a command's output (commands.h, ReportOutputs): --json FILE|-, --html FILE|-
// and, where a run records tensors, --npz FILE|-. Each is declared before any work (run_files.cpp),
// written to its temporary file, renamed at commit, and a file written is named on stderr:
// "wrote FILE: …". With none of them the report prints on stdout; with any of them stdout holds
// only what "-" names.
#include <cstdio>

#include "commands.h"
#include "errors.h"
#include "html.h"

namespace attn::cli {

namespace {
std::vector<std::string> g_wrote;  // the "wrote FILE: …" lines of this run, printed after commit
}  // namespace

void add_report_outputs(CLI::App* sub, ReportOutputs& o, const std::string& json_help, bool npz) {
  const Text& t = text();
  sub->add_option("--json", o.json, json_help);
  sub->add_option("--html", o.html, t("html.opt.html"));
  if (npz) sub->add_option("--npz", o.npz, t("cli.opt.npz"));
}

void declare_report_outputs(const ReportOutputs& o) {
  if (o.json) declare_output("--json", *o.json);
  if (o.html) declare_output("--html", *o.html);
  if (o.npz) declare_output("--npz", *o.npz);
}

void note_written(const std::string& path, const std::string& line) {
  if (path != "-") g_wrote.push_back(line);
}

void write_json_doc(const std::string& path, const std::string& schema, const std::string& doc) {
  write_output("--json", path, doc);
  note_written(path, text()("cli.wrote.json", {{"path", path}, {"schema", schema}, {"bytes", static_cast<std::int64_t>(doc.size())}}));
}

void write_html_doc(const std::string& path, const std::string& page) {
  write_page("--html", path, page);
  note_written(path, text()("cli.wrote.html", {{"path", path}, {"bytes", static_cast<std::int64_t>(page.size())}}));
}

void write_html_report(const std::string& path, const std::string& title, const std::string& report,
                       const std::vector<HtmlBarChart>& charts) {
  write_html_doc(path, render_html_report({run_lang().code, title, report, charts, text().all_of("render")}));
}

void note_not_printed(const ReportOutputs& o, const std::string& key) {
  if (!o.any() || o.json == "-" || o.html == "-" || o.npz == "-") return;  // printed, or stdout holds a file
  g_wrote.push_back(text()(key, {{"json", o.json.value_or("")}, {"has_json", o.json.has_value()}}));
}

void finish_report(const ReportOutputs& o, const std::string& report) {
  commit_outputs();
  if (!o.any()) emit(report);
  note_not_printed(o, "cli.wrote.not_printed");
  print_written();
}

void forget_written() { g_wrote.clear(); }

void print_written() {
  if (g_wrote.empty()) return;
  std::fflush(stdout);
  for (const std::string& line : g_wrote) std::fprintf(stderr, "%s\n", line.c_str());
  g_wrote.clear();
}

}  // namespace attn::cli
