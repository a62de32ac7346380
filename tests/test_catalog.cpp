// The text catalogs: the message format worked by hand, and the checks that keep every language
// complete — every key in every language, the same placeholders everywhere, every message
// well-formed, no key unused, and a third language added with no C++ change.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "catalog.h"
#include "run_cli.h"

using namespace attn;

namespace {

const Lang kEn{"en"}, kZh{"zh"}, kQps{"qps"};

// name -> lang -> file
std::map<std::string, std::map<std::string, const CatalogFile*>> catalogs_by_name() {
  std::map<std::string, std::map<std::string, const CatalogFile*>> out;
  for (const CatalogFile& f : all_catalogs()) out[f.name][f.lang] = &f;
  return out;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("catalog format: named placeholders, number formats, escapes", "[catalog]") {
  CHECK(format_message("d_k = {d} / {h} = {dk}", {{"d", 8}, {"h", 2}, {"dk", 4}}, kEn) == "d_k = 8 / 2 = 4");
  CHECK(format_message("{n:,} parameters", {{"n", 2359296}}, kEn) == "2,359,296 parameters");
  CHECK(format_message("{x:.3f}", {{"x", 0.49219}}, kEn) == "0.492");
  CHECK(format_message("{x:.3f}", {{"x", -0.0001}}, kEn) == "0.000");  // never "-0.000"
  CHECK(format_message("{x}", {{"x", 0.1}}, kEn) == "0.1");            // shortest round trip
  CHECK(format_message("{{not a placeholder}} {a}", {{"a", "x"}}, kEn) == "{not a placeholder} x");
  CHECK(format_message("a\nb", {}, kEn) == "a\nb");
}

TEST_CASE("catalog format: plural rules belong to the language", "[catalog]") {
  const char* p = "{n, plural, =0 {no keys} one {# key} other {# keys}}";
  CHECK(format_message(p, {{"n", 0}}, kEn) == "no keys");
  CHECK(format_message(p, {{"n", 1}}, kEn) == "1 key");
  CHECK(format_message(p, {{"n", 2}}, kEn) == "2 keys");
  // Chinese has one form: "one" is never chosen, an exact =N still is.
  const char* z = "{n, plural, =0 {没有键} one {不会用到} other {# 个键}}";
  CHECK(format_message(z, {{"n", 1}}, kZh) == "1 个键");
  CHECK(format_message(z, {{"n", 0}}, kZh) == "没有键");
  // select by a word; bools arrive as true / false
  const char* s = "{causal, select, true {masked} other {full}}";
  CHECK(format_message(s, {{"causal", true}}, kEn) == "masked");
  CHECK(format_message(s, {{"causal", false}}, kEn) == "full");
  // a placeholder inside a branch
  CHECK(format_message("{n, plural, one {one {what}} other {# {what}s}}", {{"n", 3}, {"what", "head"}}, kEn) ==
        "3 heads");
}

TEST_CASE("catalog format: a broken message or a missing value is a bug, not output", "[catalog]") {
  CHECK_THROWS_AS(format_message("{missing}", {}, kEn), std::logic_error);
  CHECK_THROWS_AS(format_message("{n, plural, one {x}}", {{"n", 1}}, kEn), std::logic_error);  // no other
  CHECK_THROWS_AS(format_message("{unclosed", {{"unclosed", 1}}, kEn), std::logic_error);
  CHECK_THROWS_AS(format_message("stray }", {}, kEn), std::logic_error);
  CHECK_THROWS_AS(Text(kEn)("no.such.key"), std::logic_error);
  CHECK(placeholders("{b} {a:,} {n, plural, one {# {c}} other {#}} {{d}}") == std::vector<std::string>{"a", "b", "c", "n"});
}

TEST_CASE("catalog files: continuation lines, comments, duplicates", "[catalog]") {
  CatalogFile f = parse_catalog("# comment\na = one\n  two\nz = 中文\n  接着\nb =\n", "t", "en", "test");
  CHECK(f.problems.empty());
  CHECK(f.messages.at("t.a") == "one two");  // joined with a space
  CHECK(f.messages.at("t.z") == "中文接着");  // no space between Chinese characters
  CHECK(f.messages.at("t.b").empty());
  // A Chinese character meeting ASCII keeps a space ("第 1 层", "的 W_Q"); full-width punctuation
  // and the end of a select ("}}") join tight.
  CatalogFile mix = parse_catalog("n = 达到 0.5\n  以上\nw = 的\n  W_Q\np = 层（\n  x）\n"
                                  "s = {a, select, x {完。} other {完。}}\n  接着\n",
                                  "t", "zh", "test");
  CHECK(mix.problems.empty());
  CHECK(mix.messages.at("t.n") == "达到 0.5 以上");
  CHECK(mix.messages.at("t.w") == "的 W_Q");
  CHECK(mix.messages.at("t.p") == "层（x）");
  CHECK(mix.messages.at("t.s") == "{a, select, x {完。} other {完。}}接着");
  CatalogFile dup = parse_catalog("a = 1\na = 2\nnot a key line\n", "t", "en", "test");
  CHECK(dup.problems.size() == 2);
}

TEST_CASE("catalogs: every embedded file parses cleanly", "[catalog]") {
  REQUIRE(!all_catalogs().empty());
  for (const CatalogFile& f : all_catalogs()) {
    INFO(f.origin);
    CHECK(f.problems.empty());
    for (const std::string& p : f.problems) UNSCOPED_INFO(p);
  }
}

TEST_CASE("catalogs: every language has every English key, with the same placeholders", "[catalog]") {
  auto by_name = catalogs_by_name();
  std::size_t checked = 0;
  for (const auto& [name, langs] : by_name) {
    INFO("catalog " << name);
    REQUIRE(langs.count("en") == 1);  // a key missing in English is a failure
    const CatalogFile& en = *langs.at("en");
    for (const auto& [code, file] : langs) {
      if (code == "en") continue;
      for (const auto& [key, pattern] : en.messages) {
        INFO(code << ": " << key);
        REQUIRE(file->messages.count(key) == 1);
        CHECK(placeholders(file->messages.at(key)) == placeholders(pattern));
        ++checked;
      }
      for (const auto& [key, pattern] : file->messages) {
        INFO(code << " has a key English does not: " << key);
        CHECK(en.messages.count(key) == 1);
      }
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("catalogs: every message of every language formats", "[catalog]") {
  // Each placeholder is tried as an integer, a real and a word until the message formats: a
  // message that formats with no choice of values has a syntax error.
  std::size_t n = 0;
  for (const CatalogFile& f : all_catalogs()) {
    for (const auto& [key, pattern] : f.messages) {
      std::vector<std::string> names = placeholders(pattern);
      std::size_t combos = 1;
      for (std::size_t i = 0; i < names.size() && combos < 100000; ++i) combos *= 3;
      bool ok = false;
      for (std::size_t c = 0; c < combos && !ok; ++c) {
        Args args;
        std::size_t code = c;
        for (const std::string& name : names) {
          int kind = static_cast<int>(code % 3);
          code /= 3;
          if (kind == 0) args.push_back({name, std::int64_t{2}});
          else if (kind == 1) args.push_back({name, 2.5});
          else args.push_back({name, "word"});
        }
        try {
          format_message(pattern, args, Lang{f.lang});
          ok = true;
        } catch (const std::exception&) {
        }
      }
      INFO(f.origin << ": " << key << " = " << pattern);
      CHECK(ok);
      ++n;
    }
  }
  CHECK(n > 100);
}

TEST_CASE("catalogs: no key is unused", "[catalog]") {
  // A key is used when the C++ names it: the key itself as a string literal, or, for the keys the
  // recorder builds, its step id (ID.title / ID.text), tensor, value or config name. Keys built
  // from a name (calc.preset.NAME.note, cli.opt.FLAG, ln1/ln2, …_other) are used when the literal
  // they are built from is: a prefix ending in '.', a stem followed by a digit, a suffix "_…".
  std::set<std::string> literals;
  std::regex literal("\"((?:[^\"\\\\\n]|\\\\.)*)\"");
  for (const char* dir : {"src", "lessons"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/" + dir)) {
      if (e.path().extension() != ".cpp" && e.path().extension() != ".h") continue;
      std::string text = read_file(e.path());
      for (auto m = std::sregex_iterator(text.begin(), text.end(), literal); m != std::sregex_iterator(); ++m)
        literals.insert((*m)[1].str());
    }
  auto names_it = [&](const std::string& name) {
    if (literals.count(name)) return true;
    for (const std::string& l : literals) {
      if (l.size() < 2 || l.size() >= name.size()) continue;
      if (name.compare(0, l.size(), l) == 0 && (l.back() == '.' || std::isdigit(static_cast<unsigned char>(name[l.size()]))))
        return true;
      if ((l[0] == '_' || l[0] == '.') && name.compare(name.size() - l.size(), l.size(), l) == 0) return true;
    }
    return false;
  };
  std::size_t n = 0;
  for (const CatalogFile& f : all_catalogs()) {
    if (f.lang != "en") continue;
    for (const auto& [full, pattern] : f.messages) {
      std::string key = full.substr(f.name.size() + 1);
      std::vector<std::string> names = {key, full, "." + key};  // "." + key: a key built as NAME + ".summary"
      for (const char* suffix : {".title", ".text"})
        if (key.size() > std::string(suffix).size() &&
            key.compare(key.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
          names.push_back(key.substr(0, key.size() - std::string(suffix).size()));
      for (const char* prefix : {"tensor.", "value.", "config."})
        if (key.rfind(prefix, 0) == 0) names.push_back(key.substr(std::string(prefix).size()));
      bool found = false;
      for (const std::string& s : names) found = found || names_it(s);
      INFO(f.origin << ": '" << key << "' is named nowhere in src/ or lessons/");
      CHECK(found);
      ++n;
    }
  }
  CHECK(n > 100);
}

TEST_CASE("catalogs: no Chinese character in any C++ source", "[catalog]") {
  // Chinese lives in the zh catalogs; a CJK character in C++ is text that bypassed them.
  std::regex cjk("[\xe4-\xe9][\x80-\xbf][\x80-\xbf]|\xef\xbc[\x80-\xbf]|\xe3\x80[\x80-\xbf]");
  std::size_t files = 0;
  for (const char* dir : {"src", "lessons"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/" + dir)) {
      if (e.path().extension() != ".cpp" && e.path().extension() != ".h") continue;
      std::string text = read_file(e.path());
      INFO(e.path().string());
      CHECK(!std::regex_search(text, cjk));
      ++files;
    }
  CHECK(files > 40);
}

TEST_CASE("a third language is a folder of catalogs: no C++ change", "[catalog][cli]") {
  // tests/catalogs holds a French catalog that exists only here: a lesson title, the renderer's
  // words. Everything it does not translate falls back to English.
  std::string env = std::string("ATTNLAB_CATALOG_PATH='") + ATTNLAB_TEST_DIR + "/catalogs' ";
  CliResult r = run_cli("lesson mha --lang fr", env);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Étape 1/9 · L'entrée X") != std::string::npos);    // from tests/catalogs
  CHECK(r.out.find("Fused projections Q, K, V") != std::string::npos);  // English fallback
  CliResult list = run_cli("list --lang fr", env);
  CHECK(list.code == 0);
  // Without the folder, fr is not a language attnlab knows.
  CliResult none = run_cli("lesson mha --lang fr");
  CHECK(none.code == 2);
  CHECK(none.out.empty());
  CHECK(none.err.find("--lang") != std::string::npos);
  CHECK(none.err.find("zh") != std::string::npos);  // the message lists the languages
}

TEST_CASE("a translator's broken message is refused with its key, not an internal error", "[catalog][cli]") {
  // Found by fuzz/fuzz_catalog.cpp: a bad {x:spec} in a catalog from ATTNLAB_CATALOG_PATH ended in
  // fmt::format_error (exit 1) when the message was first used.
  std::string env = std::string("ATTNLAB_CATALOG_PATH='") + ATTNLAB_TEST_DIR + "/bad_catalogs' ";
  CliResult r = run_cli("lesson mha --lang fr", env);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("input.title") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
