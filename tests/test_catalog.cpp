// The text catalogs: the message format worked by hand, and the checks that keep every language
// complete — every key in every language, the same placeholders everywhere, every message
// well-formed, no key unused, and a third language added with no C++ change.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "catalog.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_catalog {

using namespace attn;

namespace {

const Lang kEn{"en"}, kZh{"zh"}, kQps{"qps"};

// name -> lang -> file
std::map<std::string, std::map<std::string, const CatalogFile*>> catalogs_by_name() {
  std::map<std::string, std::map<std::string, const CatalogFile*>> out;
  for (const CatalogFile& f : all_catalogs()) out[f.name][f.lang] = &f;
  return out;
}

// A folder of catalogs for ATTNLAB_CATALOG_PATH, made for one test and removed after it.
struct TempCatalogs {
  std::filesystem::path root;
  TempCatalogs() {
    static int n = 0;
    root = std::filesystem::temp_directory_path() /
           ("attnlab_catalogs_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    std::filesystem::remove_all(root);
  }
  ~TempCatalogs() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  std::string write(const std::string& name, const std::string& lang, const std::string& text) const {
    std::filesystem::create_directories(root / name);
    std::filesystem::path file = root / name / (lang + ".cat");
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }
  std::string env() const { return "ATTNLAB_CATALOG_PATH='" + root.string() + "' "; }
};

// The CLI run with one more catalog folder, and how long it took.
CliResult run_with_catalogs(const std::string& dir, const std::string& args, double* seconds) {
  auto start = std::chrono::steady_clock::now();
  CliResult r = run_cli(args, "ATTNLAB_CATALOG_PATH='" + dir + "' ");
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// The check of a user's catalog on one file's text (catalog NAME, French).
std::string check_text(const std::string& name, const std::string& text) {
  CatalogFile f = parse_catalog(text, name, "fr", "u/" + name + "/fr.cat");
  REQUIRE(f.problems.empty());
  return check_user_catalog(f);
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

// ---- catalogs from ATTNLAB_CATALOG_PATH: checked against the built-in English when they load ----

TEST_CASE("a user catalog using a placeholder the code never passes is refused at load, naming file and key",
          "[catalog][cli]") {
  // tests/bad_catalogs/placeholder/mha/fr.cat writes {dk} for {d_k}: it loaded, and the lesson then
  // ended with exit 1 ("the code passed no value of that name") when it reached the step.
  double seconds = 0;
  CliResult r = run_with_catalogs(std::string(ATTNLAB_TEST_DIR) + "/bad_catalogs/placeholder", "lesson mha --lang fr", &seconds);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("mha/fr.cat:4: split_heads.text: {dk}") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(seconds < 1.0);
}

TEST_CASE("a user catalog with a numeric format spec on a value English shows as it comes is refused at load",
          "[catalog][cli]") {
  // {d_model:.2f}: d_model is an integer, and English writes it {d_model}, so no spec but fill,
  // align and width is sure to fit it. It used to load and end the lesson with exit 1.
  double seconds = 0;
  CliResult r = run_with_catalogs(std::string(ATTNLAB_TEST_DIR) + "/bad_catalogs/spec", "lesson mha --lang fr", &seconds);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("mha/fr.cat:3: split_heads.text: {d_model:.2f}") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(seconds < 1.0);
}

TEST_CASE("a user catalog with a huge field width is refused at once, naming file and key", "[catalog][cli]") {
  // {d_model:>2147483647} took 15-20 s and 5.8 GB before it failed or printed.
  double seconds = 0;
  CliResult r = run_with_catalogs(std::string(ATTNLAB_TEST_DIR) + "/bad_catalogs/width", "lesson mha --lang fr", &seconds);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("mha/fr.cat:3: split_heads.text: {d_model:>2147483647}") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(seconds < 1.0);
}

TEST_CASE("an oversized user catalog file is refused at once, naming the file", "[catalog][cli]") {
  TempCatalogs dir;
  std::string big = "split_heads.title = Découpage en têtes\n# " + std::string(kMaxCatalogFileBytes, 'x') + "\n";
  std::string path = dir.write("mha", "fr", big);
  double seconds = 0;
  CliResult r = run_with_catalogs(dir.root.string(), "lesson mha --lang fr", &seconds);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("ATTNLAB_CATALOG_PATH") != std::string::npos);
  CHECK(r.err.find("mha/fr.cat") != std::string::npos);
  CHECK(r.err.find("1,048,576") != std::string::npos);  // the limit, in the input reader's words
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(seconds < 1.0);
  // One byte under the limit, the same catalog loads.
  std::filesystem::resize_file(path, kMaxCatalogFileBytes);
  std::ofstream(path, std::ios::binary | std::ios::in | std::ios::out).seekp(-1, std::ios::end).put('\n');
  CliResult ok = run_with_catalogs(dir.root.string(), "lesson mha --lang fr", &seconds);
  CHECK(ok.code == 0);
  CHECK(ok.out.find("Découpage en têtes") != std::string::npos);
}

TEST_CASE("every built-in catalog would pass the check of a user's catalog", "[catalog]") {
  // The check's rules are what the shipped translations already follow: zh.cat as a user's file
  // passes, and so does every English file against itself.
  std::size_t n = 0;
  for (const CatalogFile& f : all_catalogs()) {
    INFO(f.origin);
    CHECK(check_user_catalog(f).empty());
    n += f.messages.size();
  }
  CHECK(n > 1000);
}

TEST_CASE("every message that passes the check formats with every value its English message allows", "[catalog]") {
  // sample_args gives each value every type the English message allows it (integer, real, word):
  // a message the check accepts must format with all of them, in a language with plurals and in
  // one without. The built-in messages are such messages; so are these.
  std::size_t formatted = 0;
  for (const CatalogFile& f : all_catalogs())
    for (const auto& [key, pattern] : f.messages)
      for (const Args& args : sample_args(key)) {
        INFO(f.origin << ": " << key << " = " << pattern);
        CHECK_NOTHROW(format_message(pattern, args, Lang{f.lang}));
        ++formatted;
      }
  CHECK(formatted > 2000);
  const char* note = "{d_model:*^12} {params:,} {params:>15d} {params, plural, one {# paramètre} other {# paramètres}}";
  CHECK(check_text("mha", std::string("params.note = ") + note + "\n") == "");
  std::vector<Args> samples = sample_args("mha.params.note");
  CHECK(samples.size() == 4);  // d_model: integer, unsigned, real, word; params: integer, unsigned
  for (const Args& args : samples) {
    CHECK_NOTHROW(format_message(note, args, Lang{"fr"}));
    CHECK_NOTHROW(format_message(note, args, Lang{"zh"}));
  }
  // {params:+} is refused: a sign needs a signed value, and the code may pass an unsigned one.
  CHECK(!check_text("mha", "params.note = {params:+}\n").empty());
}

TEST_CASE("the check of a user's catalog: what it refuses, with file, line and key", "[catalog]") {
  // A key the code never asks for (a typo, or a key of another version).
  CHECK(check_text("mha", "# a comment\nsplit_heads.titel = Découpage\n") == "u/mha/fr.cat:2: split_heads.titel");
  CHECK(check_text("nosuch", "a = b\n") == "u/nosuch/fr.cat:1: a");
  // A placeholder the English message does not use.
  CHECK(check_text("mha", "split_heads.title = {heads} têtes\n") == "u/mha/fr.cat:1: split_heads.title: {heads}");
  // Specs: plain in English -> a value of any type: fill, align and width only.
  CHECK(check_text("mha", "split_heads.text = {d_model:>8} {heads:*<3} {d_k:^5}\n") == "");
  CHECK(check_text("mha", "split_heads.text = {d_model:.3f}\n") == "u/mha/fr.cat:1: split_heads.text: {d_model:.3f}");
  CHECK(check_text("mha", "split_heads.text = {d_model:,}\n") == "u/mha/fr.cat:1: split_heads.text: {d_model:,}");
  CHECK(check_text("mha", "split_heads.text = {d_model:x}\n") == "u/mha/fr.cat:1: split_heads.text: {d_model:x}");
  CHECK(check_text("mha", "split_heads.text = {d_model:+}\n") == "u/mha/fr.cat:1: split_heads.text: {d_model:+}");
  // {params:,} in English: an integer. Integer specs fit; a real's do not.
  CHECK(check_text("mha", "params.note = {params:08d} {params:x} {d_model}\n") == "");
  CHECK(check_text("mha", "params.note = {params:.2f}\n") == "u/mha/fr.cat:1: params.note: {params:.2f}");
  CHECK(check_text("mha", "params.note = {params:.2}\n") == "u/mha/fr.cat:1: params.note: {params:.2}");
  // Widths and precisions: at most kMaxSpecNumber; no nested {…}, no locale, no 'c'.
  CHECK(check_text("mha", "split_heads.text = {d_model:>200}\n") == "");
  CHECK(check_text("mha", "split_heads.text = {d_model:>201}\n") == "u/mha/fr.cat:1: split_heads.text: {d_model:>201}");
  CHECK(check_text("mha", "split_heads.text = {d_model:>2147483647}\n") ==
        "u/mha/fr.cat:1: split_heads.text: {d_model:>2147483647}");
  CHECK(!check_text("mha", "params.note = {params:.999}\n").empty());
  CHECK(!check_text("mha", "params.note = {params:L}\n").empty());
  CHECK(!check_text("mha", "params.note = {params:c}\n").empty());
  CHECK(!check_text("mha", "params.note = {params:{d_model}}\n").empty());
  // Plural and select: by what English does with the value.
  CHECK(check_text("calc", "models.attn.mha = MHA ({n_g, plural, one {# tête KV} other {# têtes KV}})\n") == "");
  CHECK(check_text("mha", "params.note = {params, plural, one {# paramètre} other {# paramètres}}\n") == "");  // {params:,}
  auto starts = [](const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; };
  CHECK(starts(check_text("mha", "tensor.scores = {causal, plural, one {a} other {b}}\n"),
               "u/mha/fr.cat:1: tensor.scores: {causal, plural"));  // English selects on it: a word
  CHECK(starts(check_text("calc", "models.attn.mha = {n_g, select, 1 {une} other {#}}\n"),
               "u/calc/fr.cat:1: models.attn.mha: {n_g, select"));  // English pluralizes it
  CHECK(starts(check_text("mha", "split_heads.text = {heads, plural, one {# tête} other {# têtes}}\n"),
               "u/mha/fr.cat:1: split_heads.text: {heads, plural"));  // English shows it as it comes
  // Malformed: where it goes wrong.
  CHECK(check_text("mha", "split_heads.text = a } b\n") == "u/mha/fr.cat:1: split_heads.text: } b");
  CHECK(check_text("mha", "split_heads.text = a {d_model\n") == "u/mha/fr.cat:1: split_heads.text: {d_model");
  CHECK(starts(check_text("mha", "tensor.scores = {causal, select, true {a}}\n"),
               "u/mha/fr.cat:1: tensor.scores: {causal, select"));  // no 'other'
  // The unpicked branch is checked too.
  CHECK(check_text("mha", "tensor.scores = {causal, select, true {a} other {{nope}}}\n") ==
        "u/mha/fr.cat:1: tensor.scores: {nope}");
  // Nesting and length limits.
  std::string deep = "x";
  for (int i = 0; i <= kMaxNesting; ++i) deep = "{causal, select, true {" + deep + "} other {y}}";
  CHECK(!check_text("mha", "tensor.scores = " + deep + "\n").empty());
  CHECK(check_text("mha", "tensor.scores = " + deep.substr(23, deep.size() - 23 - 12) + "\n") == "");
  CHECK(check_text("mha", "split_heads.title = " + std::string(kMaxMessageBytes, 'a') + "\n") == "");
  CHECK(check_text("mha", "split_heads.title = " + std::string(kMaxMessageBytes + 1, 'a') + "\n") ==
        "u/mha/fr.cat:1: split_heads.title: aaaaaaaaaaaaaaaaaaaaa...");
  // A long path gives way to the key: an error shows 80 characters of it.
  CatalogFile f = parse_catalog("split_heads.title = {x}\n", "mha", "fr", "/" + std::string(200, 'd') + "/mha/fr.cat");
  std::string problem = check_user_catalog(f);
  CHECK(problem.size() <= 80);
  CHECK(problem.find("/mha/fr.cat:1: split_heads.title: {x}") != std::string::npos);
}

TEST_CASE("deep nesting and huge widths fail as a broken message, not a crash or a stall", "[catalog]") {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{a, select, other {";
  deep += "x" + std::string(200000, '}');
  CHECK_THROWS_AS(format_message(deep, {{"a", "b"}}, kEn), std::logic_error);
  auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(format_message("{x:>2147483647}", {{"x", 1}}, kEn), std::logic_error);
  CHECK_THROWS_AS(format_message("{x:.2147483647f}", {{"x", 1.5}}, kEn), std::logic_error);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
}

TEST_CASE("a user catalog at the size limits is checked and used quickly", "[catalog][cli]") {
  // As many messages of kMaxMessageBytes as the file limit holds, each full of placeholders (an
  // 8 MB message with many placeholders took 56-86 s to load): the check is linear.
  std::map<std::string, std::vector<std::string>> keys;  // catalog calc: key -> its English placeholders
  for (const CatalogFile& f : all_catalogs())
    if (f.name == "calc" && f.lang == "en")
      for (const auto& [key, pattern] : f.messages) keys[key.substr(5)] = placeholders(pattern);
  std::string text;
  std::size_t messages = 0;
  for (const auto& [key, names] : keys) {
    std::string piece = names.empty() ? "{{x}} " : "{" + names.front() + ":*>199}";
    std::string line = key + " =";
    while (line.size() + piece.size() < kMaxMessageBytes) line += piece;
    if (text.size() + line.size() + 1 > kMaxCatalogFileBytes) break;
    text += line + "\n";
    ++messages;
  }
  REQUIRE(messages > 40);
  CatalogFile f = parse_catalog(text, "calc", "fr", "u/calc/fr.cat");
  REQUIRE(f.problems.empty());
  auto start = std::chrono::steady_clock::now();
  CHECK(check_user_catalog(f) == "");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 1.0);
  // The same file through the CLI: read, parsed and checked in under a second; then used (params
  // prints some of these messages: 6.5 MB of padding, the catalog's own choice).
  TempCatalogs dir;
  dir.write("calc", "fr", text);
  CliResult r = run_with_catalogs(dir.root.string(), "--version --lang fr", &seconds);
  CHECK(r.code == 0);
  CHECK(seconds < 1.0);
  CliResult used = run_with_catalogs(dir.root.string(), "params --model gpt2 --lang fr", &seconds);
  CHECK(used.code == 0);
  CHECK(used.out.size() > 1000000);
}

}  // namespace file_test_catalog
