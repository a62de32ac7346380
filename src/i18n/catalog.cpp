#include "catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "embedded_data.h"
#include "errors.h"

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
  CatalogFile f{std::move(name), std::move(lang), std::move(origin), {}, {}};
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

// True when the pattern formats for some choice of values: each placeholder tried as an
// integer, a real and a word (at most 3^6 tries).
bool formats_somehow(const std::string& pattern, const Lang& lang) {
  std::vector<std::string> names = placeholders(pattern);
  if (names.size() > 6) names.resize(6);
  std::size_t combos = 1;
  for (std::size_t i = 0; i < names.size(); ++i) combos *= 3;
  for (std::size_t c = 0; c < combos; ++c) {
    Args args;
    std::size_t code = c;
    for (const std::string& n : names) {
      int kind = static_cast<int>(code % 3);
      code /= 3;
      if (kind == 0) args.push_back({n, std::int64_t{2}});
      else if (kind == 1) args.push_back({n, 2.5});
      else args.push_back({n, "word"});
    }
    try {
      format_message(pattern, args, lang);
      return true;
    } catch (const std::exception&) {
    }
  }
  return false;
}

std::vector<CatalogFile> load_all() {
  std::vector<CatalogFile> out;
  for (const EmbeddedFile& e : embedded_files()) {
    if (e.path.substr(0, 9) != "catalogs/") continue;
    std::string name, lang;
    if (split_catalog_path(e.path, name, lang)) out.push_back(parse_catalog(e.contents, name, lang, std::string(e.path)));
  }
  // Extra folders (a translator's work in progress, a test's own language): DIR/NAME/LANG.cat.
  const char* extra = std::getenv("ATTNLAB_CATALOG_PATH");
  if (extra != nullptr && *extra != '\0') {
    std::stringstream dirs(extra);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      std::error_code ec;
      if (dir.empty() || !std::filesystem::is_directory(dir, ec))
        throw UsageError("cli.err.catalog_path", {{"path", dir}});
      std::vector<std::filesystem::path> files;
      for (const auto& sub : std::filesystem::directory_iterator(dir, ec))
        if (sub.is_directory(ec))
          for (const auto& file : std::filesystem::directory_iterator(sub.path(), ec))
            if (file.path().extension() == ".cat" && file.is_regular_file(ec)) files.push_back(file.path());
      std::sort(files.begin(), files.end());
      for (const auto& path : files) {
        std::ifstream in(path, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) throw UsageError("cli.err.catalog_read", {{"path", path.string()}});
        std::string name, lang;
        split_catalog_path(path.string(), name, lang);
        CatalogFile f = parse_catalog(text, name, lang, path.string());
        if (!f.problems.empty()) throw UsageError("cli.err.catalog_bad", {{"problem", f.problems.front()}});
        // A message that cannot format (a bad {x:spec}, a plural without "other", a stray brace)
        // is refused here, with its key, rather than failing later in the middle of a run.
        for (const auto& [key, pattern] : f.messages)
          if (!formats_somehow(pattern, Lang{lang}))
            throw UsageError("cli.err.catalog_bad", {{"problem", f.origin + ": " + key}});
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

// Per language: full key -> pattern (later catalogs override earlier ones).
const std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>& by_language() {
  static const auto table = [] {
    std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> t;
    for (const CatalogFile& f : all_catalogs())
      for (const auto& [k, v] : f.messages) t[f.lang][k] = v;
    return t;
  }();
  return table;
}

bool g_record_keys = false;
std::vector<std::string> g_used_keys;

}  // namespace

const std::vector<CatalogFile>& all_catalogs() {
  static const std::vector<CatalogFile> catalogs = load_all();
  return catalogs;
}

std::vector<std::string> available_languages() {
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

struct Formatter {
  std::string_view pattern;
  const Args& args;
  const Lang& lang;
  bool pseudo;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::logic_error(fmt::format("catalog message \"{}\": {}", pattern, why));
  }

  void literal(std::string& out, char c) const {
    if (pseudo && c >= 'a' && c <= 'z') out += kPseudoLower[c - 'a'];
    else if (pseudo && c >= 'A' && c <= 'Z') out += kPseudoUpper[c - 'A'];
    else out += c;
  }

  const ArgValue& arg(const std::string& name) const {
    for (const Arg& a : args)
      if (a.name == name) return a.value;
    fail("uses {" + name + "} but the code passed no value of that name");
  }

  static std::string plain(const ArgValue& v) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (auto* u = std::get_if<std::uint64_t>(&v)) return std::to_string(*u);
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    return fmt::format("{}", std::get<double>(v));
  }

  std::string with_spec(const ArgValue& v, const std::string& spec) const {
    if (spec == ",") {
      if (auto* i = std::get_if<std::int64_t>(&v)) return with_commas(*i);
      if (auto* u = std::get_if<std::uint64_t>(&v)) return with_commas_u(*u);
      fail("{…:,} needs an integer");
    }
    try {  // a spec fmt refuses is a broken message: std::logic_error like every other
      if (auto* d = std::get_if<double>(&v)) {
        if (spec.size() >= 3 && spec.size() <= 4 && spec[0] == '.' && spec.back() == 'f' &&
            std::isdigit(static_cast<unsigned char>(spec[1])) && std::isdigit(static_cast<unsigned char>(spec[spec.size() - 2])))
          return fixed(*d, std::atoi(spec.substr(1, spec.size() - 2).c_str()));
        return fmt::format(fmt::runtime("{:" + spec + "}"), *d);
      }
      return std::visit([&](const auto& x) { return fmt::format(fmt::runtime("{:" + spec + "}"), x); }, v);
    } catch (const fmt::format_error& e) {
      fail(std::string("format spec ':") + spec + "': " + e.what());
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

  void run(std::size_t from, std::size_t to, std::string& out, const std::string* hash) const {
    for (std::size_t i = from; i < to;) {
      char c = pattern[i];
      if (c == '{' && i + 1 < to && pattern[i + 1] == '{') { out += '{'; i += 2; continue; }
      if (c == '}' && i + 1 < to && pattern[i + 1] == '}') { out += '}'; i += 2; continue; }
      if (c == '#' && hash != nullptr) { out += *hash; ++i; continue; }
      if (c == '}') fail("a '}' with no '{' (write }} for a brace)");
      if (c != '{') {
        // Copy a whole UTF-8 sequence; only ASCII letters are pseudo-localized.
        literal(out, c);
        ++i;
        continue;
      }
      std::size_t end = match_brace(i + 1);
      placeholder(i + 1, end - 1, out);
      i = end;
    }
  }

  // The inside of one {…}, pattern[from, to).
  void placeholder(std::size_t from, std::size_t to, std::string& out) const {
    std::size_t i = from;
    while (i < to && (std::isalnum(static_cast<unsigned char>(pattern[i])) || pattern[i] == '_')) ++i;
    std::string name(pattern.substr(from, i - from));
    if (name.empty()) fail("a placeholder without a name (write {{ for a brace)");
    const ArgValue& v = arg(name);
    if (i == to) { out += plain(v); return; }
    if (pattern[i] == ':') { out += with_spec(v, std::string(pattern.substr(i + 1, to - i - 1))); return; }
    if (pattern[i] != ',') fail("bad placeholder {" + std::string(pattern.substr(from, to - from)) + "}");
    // {name, plural|select, sel {…} sel {…} …}
    std::size_t comma = pattern.find(',', i + 1);
    if (comma == std::string_view::npos || comma > to) fail("{" + name + ", …} needs a kind and branches");
    std::string kind = trim(pattern.substr(i + 1, comma - i - 1));
    if (kind != "plural" && kind != "select") fail("unknown kind '" + kind + "' (plural or select)");
    std::string want = plain(v);
    std::string category = kind == "plural" ? (plural_one(v) ? "one" : "other") : want;
    struct Branch {
      std::string sel;
      std::size_t from, to;
    };
    std::vector<Branch> branches;
    for (std::size_t k = comma + 1; k < to;) {
      while (k < to && pattern[k] == ' ') ++k;
      if (k >= to) break;
      std::size_t open = pattern.find('{', k);
      if (open == std::string_view::npos || open >= to) fail("a branch of {" + name + "} has no {text}");
      std::size_t close = match_brace(open + 1);
      branches.push_back({trim(pattern.substr(k, open - k)), open + 1, close - 1});
      k = close;
    }
    // An exact "=N" first, then the category (one/other, or the selected word), then other.
    const Branch* pick = nullptr;
    for (const std::string& want_sel : {"=" + want, category, std::string("other")})
      for (const Branch& b : branches)
        if (pick == nullptr && b.sel == want_sel) pick = &b;
    if (std::none_of(branches.begin(), branches.end(), [](const Branch& b) { return b.sel == "other"; }))
      fail("{" + name + ", " + kind + "} needs an 'other' branch");
    std::size_t pick_from = pick->from, pick_to = pick->to;
    std::string hash_text = kind == "plural" ? want : std::string();
    run(pick_from, pick_to, out, kind == "plural" ? &hash_text : nullptr);
  }
};

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
void collect_placeholders(std::string_view p, std::set<std::string>& names) {
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
        collect_placeholders(inner.substr(open + 1, close - open - 2), names);
        k = close;
      }
    }
    i = end - 1;
  }
}

}  // namespace

std::vector<std::string> placeholders(std::string_view pattern) {
  std::set<std::string> names;
  collect_placeholders(pattern, names);
  return {names.begin(), names.end()};
}

std::string format_message(std::string_view pattern, const Args& args, const Lang& lang) {
  std::string out;
  Formatter f{pattern, args, lang, lang.code == "qps"};
  f.run(0, pattern.size(), out, nullptr);
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
    if (m != l->second.end()) return &m->second;
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
    if (k.compare(0, prefix.size(), prefix) == 0 && placeholders(v).empty()) out[k.substr(prefix.size())] = (*this)(k);
  return out;
}

void record_used_keys(bool on) { g_record_keys = on; }
const std::vector<std::string>& used_keys() { return g_used_keys; }

}  // namespace attn
