// attnlab book: the page's assembly, without emscripten. A stand-in core (a few lines defining
// AttnlabCore) shows what the page holds; the browser tests (tests/browser/check_book.py) run the
// real core.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "book_page.h"
#include "lesson.h"
#include "run_cli.h"
#include "source_stamp.h"

namespace file_test_book {

std::string temp_path(const std::string& name) {
  return "/tmp/attnlab_book_" + std::to_string(::getpid()) + "_" + name;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The manifest the page parses: the text between its script tags, "<\/" as JSON reads it.
nlohmann::json manifest_of(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"attnlab-manifest\">";
  std::size_t a = page.find(open), b = page.find("</script>", a);
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  return nlohmann::json::parse(page.substr(a + open.size(), b - a - open.size()));
}

TEST_CASE("book: without its core, attnlab book says how to build it (exit 2, nothing written)", "[book]") {
  const std::string out = temp_path("none.html");
  CliResult r = run_cli("book --html " + out + " --lang en", "ATTNLAB_BOOK_CORE=/nonexistent/attnlab-book-core.js ");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("/nonexistent/attnlab-book-core.js is missing") != std::string::npos);
  CHECK(r.err.find("cmake --build build --target book") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(slurp(out).empty());
  CliResult zh = run_cli("book --html " + out + " --lang zh", "ATTNLAB_BOOK_CORE=/nonexistent/core.js ");
  CHECK(zh.code == 2);
  CHECK(zh.err.find("没有书的内核") != std::string::npos);
}

// A stand-in core carries this build's source stamp, as the real one does (cmake/source_stamp.cmake).
std::string stamped(const std::string& core) {
  return "// attnlab's sources\nvar ATTNLAB_SOURCE_STAMP = \"" ATTNLAB_SOURCE_STAMP "\";\n" + core;
}

TEST_CASE("book: a core built from other sources (stale, or from before stamps) is refused, naming both stamps", "[book]") {
  const std::string core = temp_path("stale.js"), out = temp_path("stale.html");
  write_file(core, "var ATTNLAB_SOURCE_STAMP = \"0123456789abcdef\";\nvar AttnlabCore = function () {};\n");
  CliResult r = run_cli("book --html " + out + " --lang en", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(r.code == 2);
  CHECK(r.err.find("was built from other sources than this attnlab (its source stamp 0123456789abcdef, this attnlab's " +
                   std::string(ATTNLAB_SOURCE_STAMP) + ")") != std::string::npos);
  CHECK(r.err.find("cmake --build build --target book") != std::string::npos);
  CHECK(slurp(out).empty());
  write_file(core, "var AttnlabCore = function () {};\n");  // no stamp at all
  CliResult none = run_cli("book --html " + out + " --lang zh", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(none.code == 2);
  CHECK(none.err.find(ATTNLAB_SOURCE_STAMP) != std::string::npos);  // in Chinese, still naming this build's stamp
  CHECK(none.err.find("--target book") != std::string::npos);
  CHECK(std::string(ATTNLAB_SOURCE_STAMP).size() == 16);
  std::remove(core.c_str());
}

TEST_CASE("book: the stamp is found without the spaces a minifier drops", "[book]") {
  const std::string core = temp_path("minified.js"), out = temp_path("minified.html");
  write_file(core, "var ATTNLAB_SOURCE_STAMP=\"" ATTNLAB_SOURCE_STAMP "\";var AttnlabCore=function(){};\n");
  CliResult r = run_cli("book --html " + out + " --lang en", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(r.code == 0);
  CHECK(r.err.find("wrote " + out) != std::string::npos);
  write_file(core, "var ATTNLAB_SOURCE_STAMP=\"0123456789abcdef\";var AttnlabCore=function(){};\n");
  CliResult stale = run_cli("book --html " + out + " --lang en", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(stale.code == 2);
  CHECK(stale.err.find("its source stamp 0123456789abcdef") != std::string::npos);
  std::remove(core.c_str());
  std::remove(out.c_str());
}

TEST_CASE("book: a file that is not the core is refused, and --html is required", "[book]") {
  const std::string core = temp_path("notcore.js"), out = temp_path("x.html");
  write_file(core, "console.log('hello');\n");
  CliResult r = run_cli("book --html " + out + " --lang en", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(r.code == 2);
  CHECK(r.err.find("must define AttnlabCore") != std::string::npos);
  CHECK(slurp(out).empty());
  CliResult no_html = run_cli("book", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(no_html.code == 2);
  CHECK(no_html.err.find("--html") != std::string::npos);
  std::remove(core.c_str());
}

TEST_CASE("book: the page holds the core, every lesson with its options in both languages, and the trace element", "[book]") {
  const std::string core = temp_path("core.js"), out = temp_path("book.html");
  const std::string stand_in = stamped("var AttnlabCore = function () { return Promise.resolve({}); }; /* x < y && z > w */\n");
  write_file(core, stand_in);
  CliResult r = run_cli("book --html " + out + " --lang en", "ATTNLAB_BOOK_CORE=" + core + " ");
  REQUIRE(r.code == 0);
  CHECK(r.err.find("wrote " + out) != std::string::npos);
  const std::string page = slurp(out);
  CHECK(page.find(stand_in) != std::string::npos);  // inlined as it is
  CHECK(page.find("id=\"attnlab-trace\"") != std::string::npos);
  // the policy: nothing from the network (default-src 'none', and no source names a scheme with a host)
  const std::size_t csp = page.find("Content-Security-Policy\" content=\"");
  REQUIRE(csp != std::string::npos);
  const std::string policy = page.substr(csp, page.find('>', csp) - csp);
  CHECK(policy.find("default-src 'none';") != std::string::npos);
  CHECK(policy.find("'wasm-unsafe-eval'") != std::string::npos);
  CHECK(policy.find("http") == std::string::npos);
  CHECK(policy.find("connect-src") == std::string::npos);
  CHECK(policy.find(" *") == std::string::npos);
  nlohmann::json m = manifest_of(page);
  REQUIRE(m["lessons"].size() == attn::all_lessons().size());
  CHECK(m["langs"] == nlohmann::json::array({"en", "zh"}));
  const nlohmann::json* mha = nullptr;
  for (const auto& l : m["lessons"])
    if (l["name"] == "mha") mha = &l;
  REQUIRE(mha != nullptr);
  std::vector<std::string> flags;
  for (const auto& o : (*mha)["options"]) flags.push_back(o["flag"]);
  CHECK(flags == std::vector<std::string>{"--seed", "--tokens", "--seq-len", "--d-model", "--heads", "--causal", "--precision"});
  CHECK((*mha)["cli_only"] == nlohmann::json::array({"--weights", "--layer", "--text", "--token-ids"}));
  CHECK((*mha)["options"][4]["kind"] == "integer");
  CHECK((*mha)["options"][5]["kind"] == "toggle");
  CHECK((*mha)["options"][4]["help"]["en"] == "Query heads h");
  CHECK((*mha)["summary"]["zh"].get<std::string>().find("多头注意力") != std::string::npos);
  CHECK(m["words"]["zh"]["ran"].get<std::string>().find("{ms}") != std::string::npos);
  // options valid only beside --retrain or --weights are the command line's, in their lesson only
  for (const auto& l : m["lessons"]) {
    std::vector<std::string> offered, cli;
    for (const auto& o : l["options"]) offered.push_back(o["flag"]);
    for (const auto& f : l["cli_only"]) cli.push_back(f);
    auto has = [](const std::vector<std::string>& v, const char* f) { return std::find(v.begin(), v.end(), f) != v.end(); };
    INFO(l["name"].get<std::string>());
    CHECK_FALSE(has(offered, "--retrain"));
    CHECK_FALSE(has(offered, "--weights"));
    if (l["name"] == "induction") CHECK(has(cli, "--steps"));
    if (l["name"] == "tradeoffs") CHECK(has(cli, "--variant"));
    if (l["name"] == "attention") CHECK(has(cli, "--head"));
    if (l["name"] == "symmetry") CHECK(has(offered, "--steps"));  // valid without --retrain there
  }
  CHECK(m["words"]["en"]["title"].get<std::string>().find("browser") != std::string::npos);
  std::remove(core.c_str());
  std::remove(out.c_str());
}

TEST_CASE("book: a core holding </script> is a usage error (exit 2) naming the variable that chose it", "[book]") {
  const std::string core = temp_path("script.js"), out = temp_path("s.html");
  write_file(core, "var AttnlabCore = '</SCRIPT>';\n");
  CliResult r = run_cli("book --html " + out + " --lang en", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(r.code == 2);
  CHECK(r.err.find("hold no </script> or <!--") != std::string::npos);
  CHECK(slurp(out).empty());
  // the core is an input: naming it as the output is refused, with the variable that chose it
  CliResult same = run_cli("book --html " + core + " --lang en", "ATTNLAB_BOOK_CORE=" + core + " ");
  CHECK(same.code == 2);
  CHECK(same.err.find("ATTNLAB_BOOK_CORE") != std::string::npos);
  CHECK(slurp(core) == "var AttnlabCore = '</SCRIPT>';\n");
  std::remove(core.c_str());
}

TEST_CASE("book: a core that would end its script element is refused, and the manifest escapes its </", "[book]") {
  CHECK_THROWS_AS(attn::render_book({"en", "{}", "var AttnlabCore; '</SCRIPT>'"}), std::invalid_argument);
  CHECK_THROWS_AS(attn::render_book({"en", "{}", "var AttnlabCore; '<!--'"}), std::invalid_argument);
  std::string page = attn::render_book({"en", R"({"a":"</script><!--"})", "var AttnlabCore;"});
  CHECK(page.find("</script><!--") == std::string::npos);
  CHECK(manifest_of(page)["a"] == "</script><!--");
}

}  // namespace file_test_book
