// attnlab list: every lesson with its one-line summary, in teaching order.
#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "lesson.h"

namespace attn::cli {

namespace {

struct ListOptions {
  std::string lang;
};

void run_list(const ListOptions& o) {
  Lang lang = o.lang.empty() ? lang_from_env() : parse_lang(o.lang);
  std::size_t w = 0;
  for (const LessonInfo* l : all_lessons()) w = std::max(w, std::string(l->name).size());
  std::string out;
  for (const LessonInfo* l : all_lessons())
    out += fmt::format("  {}  {}\n", pad_right(l->name, w), Text(lang)(catalog_name(*l) + ".summary"));
  out += tr(lang, "\nRun one: attnlab lesson NAME   (attnlab lesson NAME --help lists its options)\n",
            "\n运行：attnlab lesson 名称   （attnlab lesson 名称 --help 列出其选项）\n");
  emit(out);
}

}  // namespace

void setup_list(CLI::App& root) {
  auto opts = std::make_shared<ListOptions>();
  CLI::App* sub = root.add_subcommand("list", "List the lessons, one line each");
  sub->add_option("--lang", opts->lang, "Language: en or zh (default: from LC_ALL / LANG)");
  sub->callback([opts] { run_list(*opts); });
}

}  // namespace attn::cli
