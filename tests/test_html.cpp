// The HTML pages (--html FILE, attnlab render): self-contained, the trace's numbers, a saved
// trace rendered again byte for byte, bad input refused. The browser checks (the page in a real
// Chromium) are tests/browser/check_pages.py, registered in CMakeLists.txt.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "html.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_html {

namespace {

std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("attnlab_html_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Files in the temporary directory whose name starts with `prefix` (leftover temporaries).
std::size_t files_starting(const std::string& dir, const std::string& prefix) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_CASE("html: colour maps are viridis and a diverging map white at 0", "[html]") {
  CHECK(attn::viridis(0.0) == "#440154");
  CHECK(attn::viridis(1.0) == "#fde725");
  CHECK(attn::diverging(0.0) == "#f7f7f7");
  CHECK(attn::diverging(-1.0) == "#2166ac");
  CHECK(attn::diverging(1.0) == "#b2182b");
}

TEST_CASE("html: the default mha page is self-contained, small, and has a heatmap per heat-mapped tensor", "[html]") {
  std::string page = tmp_path("mha.html"), trace = tmp_path("mha.json");
  CliResult r = run_cli("lesson mha --html '" + page + "' --json '" + trace + "'");
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  std::string html = slurp(page);
  CHECK(html.size() < 300 * 1024);
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
  // nothing to fetch: no URL, no external source of any kind
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find(" href=\"http") == std::string::npos);
  auto doc = nlohmann::json::parse(slurp(trace));
  std::size_t heat = 0, heads = 0;
  for (const auto& step : doc["steps"])
    for (const auto& name : step["tensors"])
      if (doc["view"]["tensors"][name.get<std::string>()].value("heatmap", false)) {
        ++heat;
        const auto& shape = doc["tensors"][name.get<std::string>()]["shape"];
        heads += shape.size() == 3 ? shape[0].get<std::size_t>() : 1;
      }
  REQUIRE(heat > 0);
  CHECK(count(html, "<figure class=\"heatmap\"") == heat);
  CHECK(count(html, "<svg class=\"hm\"") == heads);
  // every step in the contents and on the page
  CHECK(count(html, "<section class=\"step\"") == doc["steps"].size());
  CHECK(count(html, "<li><a href=\"#step-") == doc["steps"].size());
  // the first heatmap cell carries the trace's exact number
  std::smatch m;
  REQUIRE(std::regex_search(html, m, std::regex("<figure class=\"heatmap\" data-tensor=\"([^\"]+)\"")));
  std::string name = m[1];
  REQUIRE(std::regex_search(html, m, std::regex("<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\" fill=\"#[0-9a-f]{6}\" data-v=\"([^\"]+)\"")));
  CHECK(std::stod(m[1]) == doc["tensors"][name]["data"][0].get<double>());
  std::filesystem::remove(page);
  std::filesystem::remove(trace);
}

TEST_CASE("html: a Chinese page declares lang zh and a CJK font stack", "[html]") {
  CliResult r = run_cli("lesson mha --lang zh --html -");
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("<!DOCTYPE html>\n<html lang=\"zh\">", 0) == 0);
  CHECK(r.out.find("Noto Sans CJK SC") != std::string::npos);
  CHECK(r.out.find("\xe7\x9b\xae\xe5\xbd\x95") != std::string::npos);  // the contents' heading in Chinese
}

TEST_CASE("html: render reproduces a lesson's page byte for byte and its terminal text", "[html]") {
  for (const char* args : {"mha", "mha --lang zh --causal", "gelu", "kv-memory", "block", "mla --lang zh", "symmetry", "decode"}) {
    INFO(args);
    std::string page = tmp_path("direct.html"), trace = tmp_path("saved.json"), again = tmp_path("again.html");
    REQUIRE(run_cli(std::string("lesson ") + args + " --html '" + page + "' --json '" + trace + "'").code == 0);
    CliResult r = run_cli("render '" + trace + "' --html '" + again + "'");
    REQUIRE(r.code == 0);
    CHECK(r.out.empty());
    CHECK(slurp(page) == slurp(again));
    CliResult text = run_cli("render '" + trace + "' --text", "NO_COLOR=1 ");
    CliResult direct = run_cli(std::string("lesson ") + args, "NO_COLOR=1 ");
    CHECK(text.code == 0);
    CHECK(text.out == direct.out);
    for (const std::string& f : {page, trace, again}) std::filesystem::remove(f);
  }
}

TEST_CASE("html: bad traces and unwritable paths get one exit-2 line and leave no file", "[html]") {
  // A private folder: a count of dot-files in /tmp itself would race with the temporaries of
  // tests running beside this one (ctest -j). `sub` is a folder given as an output file: its
  // temporary would go beside it, in `dir`.
  std::string dir = tmp_path("html_bad_dir"), sub = dir + "/sub";
  std::filesystem::create_directories(sub);
  std::string trace = tmp_path("good.json"), out = tmp_path("out.html");
  REQUIRE(run_cli("lesson attention --json '" + trace + "'").code == 0);
  std::string good = slurp(trace);
  auto write = [](const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  std::string bad = tmp_path("bad.json");
  struct Case {
    std::string text, says;
  };
  std::vector<Case> cases = {
      {good.substr(0, good.size() / 2), "not valid JSON"},
      {std::regex_replace(good, std::regex("attnlab\\.trace/2"), "other.schema/2"), "not an attnlab trace"},
      {std::regex_replace(good, std::regex("\"shape\":\\[4,8\\]"), "\"shape\":[4,9]"), "not a valid attnlab trace"},
      {std::regex_replace(good, std::regex("\"tensors\":\\[\"X\"\\]"), "\"tensors\":[\"nosuch\"]"), "not a valid attnlab trace"},
      {"[1, 2, 3]", "not an attnlab trace"},
      {"", "not valid JSON"},
      {std::regex_replace(good, std::regex("\"shape\":\\[4,8\\]"), "\"shape\":[0,8]"), "not a valid attnlab trace"},
      {std::regex_replace(good, std::regex("\"seed\":42"), "\"seed\":{\"a\":1}"), "not a valid attnlab trace"},
      {std::regex_replace(good, std::regex("\"lang\":\"en\""), "\"lang\":\"../../etc\""), "not a valid attnlab trace"},
      {std::regex_replace(good, std::regex("\"data\":\\["), "\"data\":[\"x\","), "not a valid attnlab trace"},
      {std::string(100000, '['), "nested more than 64 levels"},
      {std::regex_replace(good, std::regex("\"heatmap\":true"), "\"heatmap\":true,\"first\":2"), "not a valid attnlab trace"},
      {std::regex_replace(good, std::regex("\"row-major\""), "\"column-major\""), "not a valid attnlab trace"},
  };
  for (const Case& c : cases) {
    write(bad, c.text);
    CliResult r = run_cli("render '" + bad + "' --html '" + out + "'");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(count(r.err, "\n") == 1);
    CHECK(r.err.find(bad) != std::string::npos);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  for (const std::string& path : {std::string("/nonexistent/trace.json"), dir}) {
    CliResult r = run_cli("render '" + path + "' --text");
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(path) != std::string::npos);
  }
  CHECK(run_cli("render '" + trace + "'").code == 2);                            // neither --html nor --text
  CHECK(run_cli("render '" + trace + "' --text --html '" + out + "'").code == 2);  // both
  // an unwritable path: one line naming the flag, and no temporary left behind
  std::size_t before = files_starting(dir, ".");
  for (const std::string& cmd : {"render '" + trace + "' --html /nonexistent/dir/page.html", std::string("lesson mha --html /nonexistent/p.html"),
                                 "lesson mha --html '" + sub + "'", std::string("params --model gpt2 --html /nonexistent/p.html")}) {
    CliResult r = run_cli(cmd);
    INFO(cmd);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("--html") != std::string::npos);
  }
  CHECK(files_starting(dir, ".") == before);
  CHECK(before == 0);
  for (const std::string& f : {trace, bad}) std::filesystem::remove(f);
  std::filesystem::remove_all(dir);
}

TEST_CASE("html: a 768-wide, 12-head, 16-token run is summarised to under 5 MB", "[html]") {
  std::string page = tmp_path("big.html");
  CliResult r = run_cli("lesson mha --d-model 768 --heads 12 --seq-len 16 --html '" + page + "'");
  REQUIRE(r.code == 0);
  auto size = std::filesystem::file_size(page);
  CHECK(size < 5u * 1024 * 1024);
  std::string html = slurp(page);
  CHECK(count(html, "<svg class=\"hm\"") == 12);
  std::filesystem::remove(page);
}

TEST_CASE("html: params, kv-cache and models pages draw their bars as SVG bar charts", "[html]") {
  for (const char* args : {"params --model gpt2", "params --model deepseek-v3 --lang zh", "kv-cache --model deepseek-v3",
                           "kv-cache --compare gpt2,llama-3-8b", "models"}) {
    INFO(args);
    CliResult r = run_cli(std::string(args) + " --html -");
    REQUIRE(r.code == 0);
    CHECK(r.out.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(count(r.out, "<svg class=\"bars\"") >= 1);
    CHECK(count(r.out, "<rect ") >= 2);
    CHECK(r.out.find("Content-Security-Policy") != std::string::npos);
  }
}

TEST_CASE("html: every lesson's page in en and zh has its steps, one heatmap figure per drawn heat-mapped tensor, and no URL", "[html]") {
  for (const char* lesson : {"attention", "mha", "gqa", "mqa", "qkv-roles", "symmetry", "gate", "mla", "ffn", "gelu", "swiglu",
                             "kv-memory", "block", "induction"})
    for (const char* lang : {"en", "zh"}) {
      INFO(lesson << " " << lang);
      std::string page = tmp_path("page.html"), trace = tmp_path("page.json");
      REQUIRE(run_cli(std::string("lesson ") + lesson + " --lang " + lang + " --html '" + page + "' --json '" + trace + "'").code == 0);
      std::string html = slurp(page);
      auto doc = nlohmann::json::parse(slurp(trace));
      std::size_t heat = 0;
      for (const auto& step : doc["steps"])
        for (const auto& name : step["tensors"]) {
          const auto& shape = doc["tensors"][name.get<std::string>()]["shape"];
          std::size_t n = shape.size();
          bool drawn = n >= 2 && shape[n - 1].get<std::size_t>() <= 64 && shape[n - 2].get<std::size_t>() <= 64;
          if (doc["view"]["tensors"][name.get<std::string>()].value("heatmap", false) && drawn) ++heat;
        }
      CHECK(count(html, "<figure class=\"heatmap\"") == heat);
      CHECK(count(html, "<section class=\"step\"") == doc["steps"].size());
      CHECK(html.find(std::string("<html lang=\"") + lang + "\">") != std::string::npos);
      CHECK(html.find("http://") == std::string::npos);
      CHECK(html.find("https://") == std::string::npos);
      // induction draws 17 heads' 32×32 heatmaps (every head before and after training, the shortcut's
      // positional head), each cell an SVG rect holding its exact weight: about 2 MB
      CHECK(html.size() < (std::string(lesson) == "induction" ? 2500 : 300) * 1024);
      std::filesystem::remove(page);
      std::filesystem::remove(trace);
    }
}

}  // namespace file_test_html
