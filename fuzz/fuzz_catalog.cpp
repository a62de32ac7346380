// libFuzzer: the catalog parser, the check of a catalog from ATTNLAB_CATALOG_PATH and the message
// formatter, end to end. Problems are reported in the file's `problems` or by the check, never by a
// crash; formatting a bad pattern is a std::logic_error (a catalog bug the tests catch).
//
// The input is one catalog file. Its first line may name the catalog it stands for, "#@calc"
// (a comment to the parser); otherwise the built-in catalog that has its first key (in key order), or mha.
// Seeds: fuzz/corpus/catalog (real catalogs), dictionary fuzz/catalog.dict.
//
// The invariant: a message check_user_catalog accepts formats, in a language with plurals and in
// one without, with every set of values sample_args gives for its key (each value as an integer,
// a real or a word, as far as the built-in English message allows). A failure there is a message
// the check let through that would end a run with exit 1: abort, so libFuzzer reports it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "catalog.h"
#include "errors.h"

namespace {

std::string catalog_name(std::string_view text, const attn::CatalogFile& probe) {
  if (text.substr(0, 2) == "#@") {
    std::string_view name = text.substr(2, text.find('\n') == std::string_view::npos ? std::string_view::npos : text.find('\n') - 2);
    if (!name.empty() && name.size() < 40) return std::string(name);
  }
  if (!probe.messages.empty()) {
    std::string key = probe.messages.begin()->first.substr(probe.name.size() + 1);
    for (const attn::CatalogFile& f : attn::all_catalogs())
      if (f.lang == "en" && f.messages.count(f.name + "." + key)) return f.name;
  }
  return "mha";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > attn::kMaxCatalogFileBytes) return 0;  // the loader refuses it before parsing
  std::string_view text(reinterpret_cast<const char*>(data), size);
  attn::CatalogFile probe = attn::parse_catalog(text, "x", "fr", "fuzz");
  attn::CatalogFile f = attn::parse_catalog(text, catalog_name(text, probe), "fr", "fuzz/fr.cat");

  // The formatter alone, on every message, with values of each kind under common names.
  for (const auto& [key, pattern] : f.messages) {
    try {
      attn::format_message(pattern, {{"n", 3}, {"x", 0.5}, {"name", "a"}, {"flag", "--x"}}, attn::Lang::En);
    } catch (const std::logic_error&) {
    } catch (const attn::UsageError&) {
    }
    (void)attn::placeholders(pattern);
  }

  // A user's catalog, as the loader takes it: parsed cleanly and checked, then every message used.
  if (!f.problems.empty()) return 0;
  if (!attn::check_user_catalog(f).empty()) return 0;
  for (const auto& [key, pattern] : f.messages) {
    for (const attn::Args& args : attn::sample_args(key)) {
      for (const attn::Lang& lang : {attn::Lang{"fr"}, attn::Lang{"zh"}, attn::Lang{"qps"}}) {
        try {
          attn::format_message(pattern, args, lang);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "accepted message %s failed to format: %s\n", key.c_str(), e.what());
          std::abort();
        }
      }
    }
  }
  return 0;
}
