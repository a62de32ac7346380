#include "catalog.h"
#include "printable.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "embedded_data.h"
#include "errors.h"
#include "input_file.h"

namespace attn {

namespace {

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

std::string trim(std::string_view s) {
  std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return "";
  std::size_t b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

// Full-width punctuation: the CJK symbols block (U+3000-303F: ideographic comma, full stop,
// brackets) and the full-width forms (U+FF00-FFEF: comma, colon, parentheses).
bool is_wide_punctuation(char32_t c) { return (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFFEF); }

// How a continuation line joins the text above it, from the last code point of s and the first
// of t: with a space between words; without one where a Chinese character or full-width
// punctuation meets anything but an ASCII character; and with a space again where a Chinese
// character meets ASCII (a number, a name, `code`), as the chapter spaces a number or W_Q in a
// Chinese sentence.
// After a plural's or select's closing "}}" the join is tight: each branch ends as it needs.
bool joins_tight(const std::string& s, const std::string& t) {
  if (s.empty() || t.empty()) return true;
  std::size_t i = s.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  std::size_t j = 1;
  while (j < t.size() && (static_cast<unsigned char>(t[j]) & 0xC0) == 0x80) ++j;
  std::string_view last(s.data() + i, s.size() - i), first(t.data(), j);
  bool last_wide = display_width(last) == 2, first_wide = display_width(first) == 2;
  if (!last_wide && !first_wide) return false;
  if (s.size() >= 2 && s.compare(s.size() - 2, 2, "}}") == 0) return true;
  std::size_t at = 0, bt = 0;
  char32_t a = next_code_point(last, at), b = next_code_point(first, bt);
  bool chinese_meets_ascii = (last_wide && !is_wide_punctuation(a) && b < 0x80) ||
                             (first_wide && !is_wide_punctuation(b) && a < 0x80);
  return !chinese_meets_ascii;
}

std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

CatalogFile parse_catalog(std::string_view text, std::string name, std::string lang, std::string origin) {
  CatalogFile f{std::move(name), std::move(lang), std::move(origin), {}, {}, {}};
  std::string current;  // full key of the message being read
  std::size_t line_no = 0;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || line[0] == '#') continue;
    if (line[0] == ' ' || line[0] == '\t') {
      if (current.empty()) {
        f.problems.push_back(fmt::format("{}:{}: a continuation line with no message above it", f.origin, line_no));
        continue;
      }
      std::string more = unescape(trim(line));
      std::string& msg = f.messages[current];
      msg += (joins_tight(msg, more) ? "" : " ") + more;
      continue;
    }
    std::size_t eq = line.find('=');
    std::string key = eq == std::string::npos ? "" : trim(std::string_view(line).substr(0, eq));
    if (key.empty() || !std::all_of(key.begin(), key.end(), is_key_char)) {
      f.problems.push_back(fmt::format("{}:{}: expected 'key = text'", f.origin, line_no));
      current.clear();
      continue;
    }
    current = f.name + "." + key;
    if (f.messages.count(current)) f.problems.push_back(fmt::format("{}:{}: key '{}' defined twice", f.origin, line_no, key));
    else f.lines[current] = line_no;
    f.messages[current] = unescape(trim(std::string_view(line).substr(eq + 1)));
  }
  return f;
}

namespace {

// "catalogs/mha/en.cat" -> ("mha", "en"); false if the path is not a catalog.
bool split_catalog_path(std::string_view path, std::string& name, std::string& lang) {
  std::filesystem::path p{std::string(path)};
  if (p.extension() != ".cat") return false;
  lang = p.stem().string();
  name = p.parent_path().filename().string();
  return !lang.empty() && !name.empty();
}

// The embedded catalogs, then those under ATTNLAB_CATALOG_PATH. A catalog there that cannot be
// read or fails check_user_catalog leaves `files` with the embedded ones alone and the error in
// `error`, which all_catalogs() throws.
struct Loaded {
  std::vector<CatalogFile> files;
  std::optional<UsageError> error;
};

void load_user_catalogs(const char* extra, std::vector<CatalogFile>& out) {
  // Extra folders (a translator's work in progress, a test's own language): DIR/NAME/LANG.cat.
  std::stringstream dirs(extra);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::error_code ec;
    if (dir.empty() || !std::filesystem::is_directory(dir, ec))
      throw UsageError("cli.err.catalog_path", {{"path", dir}});
    // DIR/NAME/*.cat; a folder that cannot be listed is said, not skipped.
    std::vector<std::filesystem::path> files;
    auto each = [](const std::filesystem::path& folder, const auto& take) {
      std::error_code ec;
      std::filesystem::directory_iterator it(folder, ec), end;
      for (; !ec && it != end; it.increment(ec)) take(*it);
      if (ec) throw UsageError("cli.err.catalog_read", {{"path", folder.string()}});
    };
    each(dir, [&](const std::filesystem::directory_entry& sub) {
      std::error_code e;
      if (sub.is_directory(e))
        each(sub.path(), [&](const std::filesystem::directory_entry& file) {
          std::error_code f;
          if (file.path().extension() == ".cat" && file.is_regular_file(f)) files.push_back(file.path());
        });
    });
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      // A regular file of at most kMaxCatalogFileBytes (input.err.* names the file otherwise).
      std::string text = read_regular_file(path.string(), kMaxCatalogFileBytes, "ATTNLAB_CATALOG_PATH");
      // Its words reach terminals, HTML pages that declare UTF-8 and JSON: UTF-8 or refused, with
      // the line of the first bad byte.
      if (!is_valid_utf8(text)) {
        std::size_t line = 1, from = 0;
        for (;;) {  // the first line that is not UTF-8 ('\n' never sits inside a UTF-8 sequence)
          std::size_t end = text.find('\n', from);
          if (!is_valid_utf8(std::string_view(text).substr(from, end == std::string::npos ? std::string::npos : end - from))) break;
          if (end == std::string::npos) break;
          from = end + 1, ++line;
        }
        throw UsageError("cli.err.catalog_utf8", {{"path", printable(path.string())}, {"line", line}});
      }
      std::string name, lang;
      split_catalog_path(path.string(), name, lang);
      CatalogFile f = parse_catalog(text, name, lang, path.string());
      if (!f.problems.empty()) throw UsageError("cli.err.catalog_bad", {{"problem", f.problems.front()}});
      // A message that could fail when it is used (a placeholder the code never passes, a spec
      // that does not fit the value, a stray brace) is refused here, with its file, line and key,
      // rather than failing later in the middle of a run.
      std::string problem = check_user_catalog(f);
      if (!problem.empty()) throw UsageError("cli.err.catalog_bad", {{"problem", problem}});
      out.push_back(std::move(f));
    }
  }
}

Loaded load_all() {
  Loaded l;
  for (const EmbeddedFile& e : embedded_files()) {
    if (e.path.substr(0, 9) != "catalogs/") continue;
    std::string name, lang;
    if (split_catalog_path(e.path, name, lang)) l.files.push_back(parse_catalog(e.contents, name, lang, std::string(e.path)));
  }
  const char* extra = std::getenv("ATTNLAB_CATALOG_PATH");
  if (extra != nullptr && *extra != '\0') {
    std::size_t built_in = l.files.size();
    try {
      load_user_catalogs(extra, l.files);
    } catch (const UsageError& e) {
      l.error = e;
      l.files.resize(built_in);
    }
  }
  return l;
}

// Built once and never destroyed: tearing down thousands of strings at exit only cost time.
const Loaded& loaded() {
  static const Loaded& l = *new Loaded(load_all());
  return l;
}

// Per language: full key -> pattern (later catalogs override earlier ones), pointing into the
// loaded files (never copied: the copies were a sixth of every command's start). After a failed
// ATTNLAB_CATALOG_PATH, the built-in ones: the error is told with them.
using Messages = std::map<std::string_view, const std::string*, std::less<>>;
const std::map<std::string, Messages, std::less<>>& by_language() {
  static const auto& table = *new std::map<std::string, Messages, std::less<>>([] {
    std::map<std::string, Messages, std::less<>> t;
    for (const CatalogFile& f : loaded().files)
      for (const auto& [k, v] : f.messages) t[f.lang][k] = &v;
    return t;
  }());
  return table;
}

bool g_record_keys = false;
std::vector<std::string> g_used_keys;

}  // namespace

const std::vector<CatalogFile>& all_catalogs() {
  const Loaded& l = loaded();
  if (l.error) throw *l.error;
  return l.files;
}

std::vector<std::string> available_languages() {
  all_catalogs();  // a bad ATTNLAB_CATALOG_PATH is an error here, before any language is chosen
  std::set<std::string> codes{"qps"};
  for (const auto& [code, messages] : by_language()) codes.insert(code);
  return {codes.begin(), codes.end()};
}

Lang parse_lang(std::string_view code) {
  for (const std::string& c : available_languages())
    if (c == code) return Lang{c};
  std::string list;
  for (const std::string& c : available_languages())
    if (c != "qps") list += (list.empty() ? "" : ", ") + c;
  throw UsageError("cli.err.lang_unknown", {{"value", std::string(code)}, {"langs", list}});
}

Lang lang_from_env() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v == nullptr || *v == '\0') continue;
    std::string code(v);
    code = code.substr(0, code.find_first_of("_.@"));
    for (const std::string& c : available_languages())
      if (c == code && c != "qps") return Lang{c};
    return Lang::En;
  }
  return Lang::En;
}

// ---- formatting -------------------------------------------------------------------------------

namespace {

// The pseudo-locale's letters: each ASCII letter becomes an accented one of the same width.
const char* const kPseudoLower[26] = {"á", "ƀ", "ç", "ď", "é", "ƒ", "ĝ", "ĥ", "í", "ĵ", "ķ", "ĺ", "ɱ",
                                      "ñ", "ó", "þ", "ǫ", "ŕ", "š", "ţ", "ú", "ṽ", "ŵ", "ẋ", "ý", "ž"};
const char* const kPseudoUpper[26] = {"Á", "Ɓ", "Ç", "Ď", "É", "Ƒ", "Ĝ", "Ĥ", "Í", "Ĵ", "Ķ", "Ĺ", "Ṁ",
                                      "Ñ", "Ó", "Þ", "Ǫ", "Ŕ", "Š", "Ţ", "Ú", "Ṽ", "Ŵ", "Ẋ", "Ý", "Ž"};

// A format spec attnlab passes to fmt: [[fill]align][sign][#][0][width][.precision][type], width
// and precision of at most kMaxSpecNumber (a width of 2147483647 took fmt 15 s and 5.8 GB), no
// nested {…}, no locale 'L', no 'c' (a number as a character). Whether it fits the value's type
// is fmt's to say.
bool spec_ok(std::string_view s) {
  if (s.empty() || s.size() > 16 || s.find_first_of("{}") != std::string_view::npos) return false;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^'; };
  auto lead = static_cast<unsigned char>(s[0]);
  std::size_t fill = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  std::size_t i = 0;
  if (fill > 0 && fill < s.size() && is_align(s[fill])) {
    for (std::size_t k = 1; k < fill; ++k)
      if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) return false;
    i = fill + 1;
  } else if (is_align(s[0])) {
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) ++i;
  if (i < s.size() && s[i] == '#') ++i;
  if (i < s.size() && s[i] == '0') ++i;
  auto number = [&](bool required) {
    std::size_t start = i;
    int value = 0;
    while (i < s.size() && i - start < 4 && std::isdigit(static_cast<unsigned char>(s[i]))) value = value * 10 + (s[i++] - '0');
    return (i > start || !required) && i - start <= 3 && value <= kMaxSpecNumber;
  };
  if (!number(false)) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!number(true)) return false;
  }
  if (i < s.size() && s[i] != '\0' && std::strchr("bBdoxXaAeEfFgGs", s[i]) != nullptr) ++i;
  return i == s.size();
}

// One placeholder of a message, as the formatter reads it.
enum class UseKind { Plain, Spec, Plural, Select };
struct Use {
  std::string_view name;
  UseKind kind;
  std::string_view spec;  // UseKind::Spec: what follows ':'
  std::size_t from, to;   // pattern[from, to) is the whole {…}
};

// The index of the first c in p[from, to), or npos.
std::size_t find_in(std::string_view p, char c, std::size_t from, std::size_t to) {
  std::size_t at = p.find(c, from);
  return at < to ? at : std::string_view::npos;
}

struct Formatter {
  std::string_view pattern;
  const Args& args;
  const Lang& lang;
  bool pseudo;
  // Set: the check mode. Every placeholder of every branch is recorded here, and no value is
  // looked up; the message's grammar is checked exactly as formatting reads it.
  std::vector<Use>* uses = nullptr;
  mutable std::size_t at = 0;  // the '{' or '}' being read, for the check's report

  [[noreturn]] void fail(const std::string& why) const {
    throw std::logic_error(fmt::format("catalog message \"{}\": {}", pattern, why));
  }

  void literal(std::string& out, char c) const {
    if (pseudo && c >= 'a' && c <= 'z') out += kPseudoLower[c - 'a'];
    else if (pseudo && c >= 'A' && c <= 'Z') out += kPseudoUpper[c - 'A'];
    else out += c;
  }

  const ArgValue& arg(std::string_view name) const {
    for (const Arg& a : args)
      if (a.name == name) return a.value;
    fail("uses {" + std::string(name) + "} but the code passed no value of that name");
  }

  static std::string plain(const ArgValue& v) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (auto* u = std::get_if<std::uint64_t>(&v)) return std::to_string(*u);
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    return fmt::format("{}", std::get<double>(v));
  }

  std::string with_spec(const ArgValue& v, std::string_view spec) const {
    if (spec == ",") {
      if (auto* i = std::get_if<std::int64_t>(&v)) return with_commas(*i);
      if (auto* u = std::get_if<std::uint64_t>(&v)) return with_commas_u(*u);
      fail("{…:,} needs an integer");
    }
    if (!spec_ok(spec)) fail("format spec ':" + std::string(spec) + "' is not one attnlab accepts");
    std::string s(spec);
    try {  // a spec fmt refuses is a broken message: std::logic_error like every other
      if (auto* d = std::get_if<double>(&v)) {
        if (s.size() >= 3 && s.size() <= 4 && s[0] == '.' && s.back() == 'f' &&
            std::isdigit(static_cast<unsigned char>(s[1])) && std::isdigit(static_cast<unsigned char>(s[s.size() - 2])))
          return fixed(*d, std::atoi(s.substr(1, s.size() - 2).c_str()));
        return fmt::format(fmt::runtime("{:" + s + "}"), *d);
      }
      return std::visit([&](const auto& x) { return fmt::format(fmt::runtime("{:" + s + "}"), x); }, v);
    } catch (const fmt::format_error& e) {
      fail("format spec ':" + s + "': " + e.what());
    }
  }

  bool plural_one(const ArgValue& v) const {
    static const std::set<std::string> no_plural{"zh", "ja", "ko", "vi", "th"};
    if (no_plural.count(lang.code)) return false;
    if (auto* i = std::get_if<std::int64_t>(&v)) return *i == 1;
    if (auto* u = std::get_if<std::uint64_t>(&v)) return *u == 1;
    if (auto* d = std::get_if<double>(&v)) return *d == 1.0;
    return false;
  }

  // Read "{…}" starting after the '{' at pos; returns the index after the matching '}'.
  std::size_t match_brace(std::size_t pos) const {
    int depth = 1;
    for (std::size_t i = pos; i < pattern.size(); ++i) {
      if (pattern[i] == '{') ++depth;
      else if (pattern[i] == '}' && --depth == 0) return i + 1;
    }
    fail("a '{' is never closed");
  }

  // pattern[from, to) as text; `depth` counts the plural and select branches it is inside. Each
  // character is read once per level it is nested in: linear, as the nesting is bounded.
  void run(std::size_t from, std::size_t to, std::string& out, const std::string* hash, int depth) const {
    if (depth > kMaxNesting) fail(fmt::format("plurals and selects nested more than {} deep", kMaxNesting));
    for (std::size_t i = from; i < to;) {
      char c = pattern[i];
      if (c == '{' && i + 1 < to && pattern[i + 1] == '{') { out += '{'; i += 2; continue; }
      if (c == '}' && i + 1 < to && pattern[i + 1] == '}') { out += '}'; i += 2; continue; }
      if (c == '#' && hash != nullptr) { out += *hash; ++i; continue; }
      if (c == '}') {
        at = i;
        fail("a '}' with no '{' (write }} for a brace)");
      }
      if (c != '{') {
        // Copy a whole UTF-8 sequence; only ASCII letters are pseudo-localized.
        literal(out, c);
        ++i;
        continue;
      }
      at = i;
      std::size_t end = match_brace(i + 1);
      placeholder(i + 1, end - 1, out, depth);
      i = end;
    }
  }

  // The inside of one {…}, pattern[from, to).
  void placeholder(std::size_t from, std::size_t to, std::string& out, int depth) const {
    std::size_t i = from;
    while (i < to && (std::isalnum(static_cast<unsigned char>(pattern[i])) || pattern[i] == '_')) ++i;
    std::string_view name = pattern.substr(from, i - from);
    if (name.empty()) fail("a placeholder without a name (write {{ for a brace)");
    if (i == to) {
      if (uses != nullptr) uses->push_back({name, UseKind::Plain, {}, from - 1, to + 1});
      else out += plain(arg(name));
      return;
    }
    if (pattern[i] == ':') {
      std::string_view spec = pattern.substr(i + 1, to - i - 1);
      if (uses != nullptr) uses->push_back({name, UseKind::Spec, spec, from - 1, to + 1});
      else out += with_spec(arg(name), spec);
      return;
    }
    if (pattern[i] != ',') fail("bad placeholder {" + std::string(pattern.substr(from, to - from)) + "}");
    // {name, plural|select, sel {…} sel {…} …}
    std::size_t comma = find_in(pattern, ',', i + 1, to);
    if (comma == std::string_view::npos) fail("{" + std::string(name) + ", …} needs a kind and branches");
    std::string kind = trim(pattern.substr(i + 1, comma - i - 1));
    if (kind != "plural" && kind != "select") fail("unknown kind '" + kind + "' (plural or select)");
    struct Branch {
      std::string sel;
      std::size_t from, to;
    };
    std::vector<Branch> branches;
    for (std::size_t k = comma + 1; k < to;) {
      while (k < to && pattern[k] == ' ') ++k;
      if (k >= to) break;
      std::size_t open = find_in(pattern, '{', k, to);
      if (open == std::string_view::npos) fail("a branch of {" + std::string(name) + "} has no {text}");
      std::size_t close = match_brace(open + 1);
      branches.push_back({trim(pattern.substr(k, open - k)), open + 1, close - 1});
      k = close;
    }
    if (std::none_of(branches.begin(), branches.end(), [](const Branch& b) { return b.sel == "other"; }))
      fail("{" + std::string(name) + ", " + kind + "} needs an 'other' branch");
    if (uses != nullptr) {  // check mode: every branch
      uses->push_back({name, kind == "plural" ? UseKind::Plural : UseKind::Select, {}, from - 1, to + 1});
      static const std::string kHash = "#";
      for (const Branch& b : branches) run(b.from, b.to, out, kind == "plural" ? &kHash : nullptr, depth + 1);
      return;
    }
    const ArgValue& v = arg(name);
    std::string want = plain(v);
    std::string category = kind == "plural" ? (plural_one(v) ? "one" : "other") : want;
    // An exact "=N" first, then the category (one/other, or the selected word), then other.
    const Branch* pick = nullptr;
    for (const std::string& want_sel : {"=" + want, category, std::string("other")})
      for (const Branch& b : branches)
        if (pick == nullptr && b.sel == want_sel) pick = &b;
    std::string hash_text = kind == "plural" ? want : std::string();
    run(pick->from, pick->to, out, kind == "plural" ? &hash_text : nullptr, depth + 1);
  }
};

// Every placeholder of every branch of a pattern; false (with `at` at the '{' or '}' where it
// went wrong) when the pattern is malformed.
bool scan(std::string_view pattern, std::vector<Use>& uses, std::size_t& at) {
  static const Args none;
  Formatter f{pattern, none, Lang::En, false, &uses};
  std::string out;
  try {
    f.run(0, pattern.size(), out, nullptr, 0);
    return true;
  } catch (const std::logic_error&) {
    at = f.at;
    return false;
  }
}

// The index just past the '}' that closes the '{' before `from`, or npos.
std::size_t closing_brace(std::string_view p, std::size_t from) {
  int depth = 1;
  for (std::size_t i = from; i < p.size(); ++i) {
    if (p[i] == '{') ++depth;
    else if (p[i] == '}' && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

// Placeholders of a text: {name}, {name:spec}, and {name, kind, sel {text} …} whose branch texts
// are texts again (their own words are not placeholders, their {placeholders} are).
void collect_placeholders(std::string_view p, std::set<std::string>& names, int depth = 0) {
  if (depth > kMaxNesting) return;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '{' && i + 1 < p.size() && p[i + 1] == '{') { ++i; continue; }
    if (p[i] != '{') continue;
    std::size_t end = closing_brace(p, i + 1);
    if (end == std::string_view::npos) return;
    std::string_view inner = p.substr(i + 1, end - i - 2);
    std::size_t j = 0;
    while (j < inner.size() && (std::isalnum(static_cast<unsigned char>(inner[j])) || inner[j] == '_')) ++j;
    if (j > 0) names.insert(std::string(inner.substr(0, j)));
    if (j < inner.size() && inner[j] == ',') {
      std::size_t comma = inner.find(',', j + 1);
      for (std::size_t k = comma == std::string_view::npos ? inner.size() : comma + 1; k < inner.size();) {
        std::size_t open = inner.find('{', k);
        if (open == std::string_view::npos) break;
        std::size_t close = closing_brace(inner, open + 1);
        if (close == std::string_view::npos) break;
        collect_placeholders(inner.substr(open + 1, close - open - 2), names, depth + 1);
        k = close;
      }
    }
    i = end - 1;
  }
}

// ---- the check of a user's catalog ------------------------------------------------------------

// The types a value can have, as bits: what the code passes is one of these.
enum : unsigned { kInt = 1, kUint = 2, kReal = 4, kWord = 8, kAnyType = 15 };

ArgValue sample_value(unsigned type) {
  switch (type) {
    case kInt: return std::int64_t{2};
    case kUint: return std::uint64_t{2};
    case kReal: return 2.5;
    default: return std::string("word");
  }
}

// The types `spec` formats ({x:spec}): fmt's verdict depends on the type alone, not the value.
unsigned types_fitting(std::string_view spec) {
  static const Args none;
  Formatter f{spec, none, Lang::En, false};
  unsigned ok = 0;
  for (unsigned type : {kInt, kUint, kReal, kWord}) {
    try {
      f.with_spec(sample_value(type), spec);
      ok |= type;
    } catch (const std::exception&) {
    }
  }
  return ok;
}

// What the built-in English message of a key says about one of its values.
struct EnglishUse {
  unsigned types = kAnyType;  // the types its format specs fit ({x:,}: integers)
  bool plural = false;        // {x, plural, …}
  bool select = false;        // {x, select, …}
};
using Reference = std::map<std::string, std::map<std::string, EnglishUse, std::less<>>, std::less<>>;

const Reference& english_reference() {
  static const Reference ref = [] {
    Reference r;
    for (const EmbeddedFile& e : embedded_files()) {
      std::string name, lang;
      if (e.path.substr(0, 9) != "catalogs/" || !split_catalog_path(e.path, name, lang) || lang != "en") continue;
      CatalogFile f = parse_catalog(e.contents, name, lang, std::string(e.path));
      for (const auto& [key, pattern] : f.messages) {
        auto& values = r[key];
        std::vector<Use> uses;
        std::size_t at = 0;
        if (!scan(pattern, uses, at)) continue;  // a broken built-in message fails the catalog tests
        for (const Use& u : uses) {
          EnglishUse& v = values[std::string(u.name)];
          if (u.kind == UseKind::Spec) v.types &= types_fitting(u.spec);
          if (u.kind == UseKind::Plural) v.plural = true;
          if (u.kind == UseKind::Select) v.select = true;
        }
      }
    }
    for (auto& [key, values] : r)
      for (auto& [name, v] : values)
        if (v.types == 0) v.types = kAnyType;  // specs no type fits: the catalog tests fail on it
    return r;
  }();
  return ref;
}

// At most `max` bytes of s, cut at a UTF-8 boundary, "..." where cut.
std::string cut(std::string_view s, std::size_t max, bool keep_end = false) {
  if (s.size() <= max) return std::string(s);
  std::size_t n = max > 3 ? max - 3 : 0;
  if (keep_end) {
    std::size_t from = s.size() - n;
    while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) ++from;
    return "..." + std::string(s.substr(from));
  }
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "...";
}

// "FILE:LINE: key: {placeholder}", within the 80 characters an error shows of a value: the
// file's path gives way first (its end is kept), then the excerpt.
std::string problem_at(const CatalogFile& f, const std::string& full_key, std::string_view excerpt) {
  std::string key = full_key.compare(0, f.name.size() + 1, f.name + ".") == 0 ? full_key.substr(f.name.size() + 1) : full_key;
  auto line = f.lines.find(full_key);
  std::string tail = ":" + (line == f.lines.end() ? std::string("?") : std::to_string(line->second)) + ": " + cut(key, 40);
  if (!excerpt.empty()) tail += ": " + cut(excerpt, 24);
  constexpr std::size_t kShown = 80;
  std::size_t room = tail.size() + 16 < kShown ? kShown - tail.size() : 16;
  return cut(f.origin, room, true) + tail;
}

}  // namespace

std::string check_user_catalog(const CatalogFile& f) {
  const Reference& ref = english_reference();
  std::map<std::string, unsigned, std::less<>> fitting;  // spec -> types_fitting(spec), once each
  for (const auto& [key, pattern] : f.messages) {
    auto english = ref.find(key);
    if (english == ref.end()) return problem_at(f, key, "");  // the code never asks for it
    if (pattern.size() > kMaxMessageBytes) return problem_at(f, key, pattern);
    std::vector<Use> uses;
    std::size_t at = 0;
    if (!scan(pattern, uses, at)) return problem_at(f, key, std::string_view(pattern).substr(std::min(at, pattern.size())));
    for (const Use& u : uses) {
      std::string_view text = std::string_view(pattern).substr(u.from, u.to - u.from);
      auto value = english->second.find(u.name);
      if (value == english->second.end()) return problem_at(f, key, text);  // a value the code never passes
      const EnglishUse& v = value->second;
      bool ok = true;
      if (u.kind == UseKind::Spec) {
        auto it = fitting.find(u.spec);
        if (it == fitting.end()) it = fitting.emplace(std::string(u.spec), types_fitting(u.spec)).first;
        ok = (it->second & v.types) == v.types;  // every type the value may have
      } else if (u.kind == UseKind::Plural) {
        ok = v.plural || (v.types & kWord) == 0;  // a count: English pluralizes it or formats it as a number
      } else if (u.kind == UseKind::Select) {
        ok = v.select;  // a word English chooses by (true/false, a mode's name)
      }
      if (!ok) return problem_at(f, key, text);
    }
  }
  return "";
}

std::vector<Args> sample_args(std::string_view key) {
  const Reference& ref = english_reference();
  auto english = ref.find(key);
  if (english == ref.end()) return {};
  // Round r gives each value the r-th type it may have (cycling through fewer), so every type of
  // every value appears in some round.
  std::vector<Args> out;
  for (unsigned round = 0; round < 4; ++round) {
    Args args;
    bool fresh = false;
    for (const auto& [name, v] : english->second) {
      std::vector<unsigned> types;
      for (unsigned type : {kInt, kUint, kReal, kWord})
        if (v.types & type) types.push_back(type);
      fresh = fresh || round < types.size();
      args.push_back({name, std::string()});
      args.back().value = sample_value(types[round % types.size()]);
    }
    if (round > 0 && !fresh) break;
    out.push_back(std::move(args));
  }
  return out;
}

std::vector<std::string> placeholders(std::string_view pattern) {
  std::set<std::string> names;
  collect_placeholders(pattern, names);
  return {names.begin(), names.end()};
}

std::string format_message(std::string_view pattern, const Args& args, const Lang& lang) {
  std::string out;
  Formatter f{pattern, args, lang, lang.code == "qps"};
  f.run(0, pattern.size(), out, nullptr, 0);
  return out;
}

// ---- Text -------------------------------------------------------------------------------------

Text::Text(Lang lang) : lang_(std::move(lang)) {}

const std::string* Text::find(std::string_view key) const {
  const auto& langs = by_language();
  for (const std::string& code : {lang_.code, std::string("en")}) {
    auto l = langs.find(code);
    if (l == langs.end()) continue;
    auto m = l->second.find(key);
    if (m != l->second.end()) return m->second;
  }
  return nullptr;
}

bool Text::has(std::string_view key) const {
  auto l = by_language().find("en");
  return l != by_language().end() && l->second.count(key) > 0;
}

std::string Text::bare(std::string_view key, const Args& args) const {
  if (g_record_keys) g_used_keys.emplace_back(key);
  const std::string* pattern = find(key);
  if (pattern == nullptr) throw std::logic_error(fmt::format("no catalog message '{}' in English", key));
  return format_message(*pattern, args, lang_);
}

std::string Text::operator()(std::string_view key, const Args& args) const {
  std::string out = bare(key, args);
  return lang_.code == "qps" ? "⟦" + out + "⟧" : out;
}

std::map<std::string, std::string> Text::all_of(std::string_view name) const {
  std::map<std::string, std::string> out;
  std::string prefix = std::string(name) + ".";
  auto en = by_language().find("en");
  if (en == by_language().end()) return out;
  for (const auto& [k, v] : en->second)
    if (k.compare(0, prefix.size(), prefix) == 0 && placeholders(*v).empty())
      out[std::string(k.substr(prefix.size()))] = (*this)(k);
  return out;
}

void record_used_keys(bool on) { g_record_keys = on; }
const std::vector<std::string>& used_keys() { return g_used_keys; }

}  // namespace attn
