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
//   {name:spec}         any other fmt format spec: [[fill]align][sign][#][0][width][.precision][type],
//                       width and precision at most kMaxSpecNumber, type one of bBdoxX aAeEfFgG s
//   {n, plural, one {# key} other {# keys}}     plural rules are the catalog's: English has
//                       one/other, Chinese only other; =0 {…} matches an exact number; # is n
//   {flag, select, true {…} other {…}}          choose by a value (bools arrive as true/false)
//   {{ and }}           literal braces;  \n  a line break
//
// Catalogs from ATTNLAB_CATALOG_PATH are checked when they load, against the built-in English
// message of each key (the code passes the values that message uses): see check_user_catalog.
//
// Lookup: the run's language, then English. A key missing in English is a bug (std::logic_error),
// and the catalog tests check every key and placeholder of every language. The pseudo-locale
// "qps" (tests only) is English with every letter accented and every message in ⟦ ⟧, so a test
// can spot any word that did not come through a catalog.
#include <cstddef>
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
  std::map<std::string, std::size_t> lines;     // full key -> the line that defines it
};
CatalogFile parse_catalog(std::string_view text, std::string name, std::string lang, std::string origin);

// The limits of a catalog from ATTNLAB_CATALOG_PATH, so that loading and checking one stays fast.
inline constexpr std::size_t kMaxCatalogFileBytes = std::size_t{1} << 20;  // a .cat file
inline constexpr std::size_t kMaxMessageBytes = std::size_t{16} << 10;    // one message
inline constexpr int kMaxSpecNumber = 200;  // width and precision in {x:spec} (any message)
inline constexpr int kMaxNesting = 8;       // plurals and selects inside branches (any message)

// The check a catalog from ATTNLAB_CATALOG_PATH passes before it is used; "" when it passes,
// otherwise the problem as "FILE:LINE: key: {placeholder}". The built-in English message of each
// key is the reference: the code passes exactly the values it uses, with types that fit its
// format specs. A message of the user's catalog is refused when
//   - its key is not a built-in English key, or it is longer than kMaxMessageBytes;
//   - it is malformed (a stray brace, a plural or select without 'other', nesting past kMaxNesting);
//   - it uses a placeholder the English message does not;
//   - {x:spec} has a spec that fails for a type the English message allows x (a plain {x} may be
//     an integer, a real or a word, so only fill, align and width fit it; {x:,} in English says
//     x is an integer; {x:.3f} a real), or a width or precision over kMaxSpecNumber;
//   - {x, plural, …} where English neither pluralizes x nor formats it as a number, or
//     {x, select, …} where English does not select on x.
// Every message it accepts formats with any values the code can pass (one pass over the message).
std::string check_user_catalog(const CatalogFile& f);
// Values for the built-in English message of `key`: one set per type each placeholder may have
// (integer, real, word, as its format specs allow). For the tests and fuzz/fuzz_catalog.cpp.
std::vector<Args> sample_args(std::string_view key);

// Every catalog: the embedded ones, then those under ATTNLAB_CATALOG_PATH (later ones win). A
// catalog there that cannot be read or fails its check is a UsageError, thrown by every call of
// all_catalogs() and available_languages(); Text then uses the built-in catalogs alone, so that
// the error itself can be told.
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
