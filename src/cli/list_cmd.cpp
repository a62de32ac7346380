// attnlab list: every lesson with its one-line summary, in teaching order.
#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "lesson.h"

namespace attn::cli {

namespace {

void run_list() {
  const Text& t = text();
  std::size_t w = 0;
  for (const LessonInfo* l : all_lessons()) w = std::max(w, std::string(l->name).size());
  std::string out;
  for (const LessonInfo* l : all_lessons())
    out += fmt::format("  {}  {}\n", pad_right(l->name, w), t(catalog_name(*l) + ".summary"));
  out += "\n" + t("cli.list.footer") + "\n";
  emit(out);
}

}  // namespace

void setup_list(CLI::App& root) {
  CLI::App* sub = root.add_subcommand("list", text()("cli.list.description"));
  add_lang_option(sub);
  sub->callback([] { run_list(); });
}

}  // namespace attn::cli
