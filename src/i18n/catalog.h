#pragma once
// The text catalogs: every word a user reads comes from here.
//
// A catalog is a file NAME/LANG.cat: lessons/mha/en.cat, catalogs/cli/zh.cat, … (embedded in the
// binary at build time; more folders of NAME/LANG.cat files can be added at run time with the
// ATTNLAB_CATALOG_PATH environment variable, so a new language needs no C++ change). Keys are
// "NAME.key": the key `split_heads.title` in lessons/mha/en.cat is "mha.split_heads.title".
//
// The file format (see docs/ARCHITECTURE.md, "Where text lives"):
//   # a comment
//   split_heads.title = Split into heads
//   split_heads.text = d_k = d_model / h = {d_model} / {heads} = {d_k}. Head i takes …
//       a line that starts with spaces continues the message above (joined with one space,
//       or with none where either side is a Chinese character or full-width punctuation)
// Placeholders are named, never positional:
//   {name}              the value as passed (integers plain, reals in shortest form)
//   {name:,}            an integer with thousands separators: 2,359,296
//   {name:.3f}          a real with 3 decimals (never "-0.000")
//   {name:spec}         any other fmt format spec
//   {n, plural, one {# key} other {# keys}}     plural rules are the catalog's: English has
//                       one/other, Chinese only other; =0 {…} matches an exact number; # is n
//   {flag, select, true {…} other {…}}          choose by a value (bools arrive as true/false)
//   {{ and }}           literal braces;  \n  a line break
//
// Lookup: the run's language, then English. A key missing in English is a bug (std::logic_error),
// and the catalog tests check every key and placeholder of every language. The pseudo-locale
// "qps" (tests only) is English with every letter accented and every message in ⟦ ⟧, so a test
// can spot any word that did not come through a catalog.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "message.h"
#include "text.h"

namespace attn {

// One parsed catalog file.
struct CatalogFile {
  std::string name;  // "mha"
  std::string lang;  // "en"
  std::string origin;  // where it came from, for messages: "catalogs/mha/en.cat" or a path
  std::map<std::string, std::string> messages;  // full key "mha.split_heads.title" -> pattern
  std::vector<std::string> problems;            // duplicate keys, malformed lines
};
CatalogFile parse_catalog(std::string_view text, std::string name, std::string lang, std::string origin);

// Every catalog: the embedded ones, then those under ATTNLAB_CATALOG_PATH (later ones win).
const std::vector<CatalogFile>& all_catalogs();
// The language codes that have at least one catalog, plus "qps"; sorted.
std::vector<std::string> available_languages();

// "en", "zh", … -> Lang; a code with no catalog is a UsageError naming --lang.
Lang parse_lang(std::string_view code);
// The default language from the environment: LC_ALL, else LC_MESSAGES, else LANG; the part
// before '_' or '.' ("zh_CN.UTF-8" -> zh) if a catalog exists for it, otherwise English.
Lang lang_from_env();

// The placeholder names a pattern uses ({a}, {b:,}, {n, plural, …}), sorted and unique.
std::vector<std::string> placeholders(std::string_view pattern);

// Format one pattern with its values (the plural rule is the language's).
std::string format_message(std::string_view pattern, const Args& args, const Lang& lang);

// The messages of one language.
class Text {
 public:
  explicit Text(Lang lang);
  const Lang& lang() const { return lang_; }
  // The message for a full key ("mha.split_heads.title"), formatted.
  std::string operator()(std::string_view key, const Args& args = {}) const;
  std::string operator()(const Msg& m) const { return (*this)(m.key, m.args); }
  // The same without the pseudo-locale's ⟦ ⟧ (for words that are data, such as tokens).
  std::string bare(std::string_view key, const Args& args = {}) const;
  bool has(std::string_view key) const;  // in English (so in every language, by fallback)
  // Every key of one catalog NAME ("render"), with its message: for the trace's UI words.
  std::map<std::string, std::string> all_of(std::string_view name) const;

 private:
  const std::string* find(std::string_view key) const;
  Lang lang_;
};

// A record of every key looked up, for the catalog tests (off unless enabled).
void record_used_keys(bool on);
const std::vector<std::string>& used_keys();

}  // namespace attn
