#pragma once
// The book (attnlab book --html FILE): one self-contained page holding every lesson. The page runs
// the lessons itself with the book's core, the WebAssembly build of attnlab (cmake/book.cmake),
// and draws each run with the page `--html` writes. Like every renderer it translates nothing:
// the manifest carries the lessons, their options and the page's words in every language.
#include <string>

namespace attn {

struct BookPage {
  std::string lang = "en";  // the language the page opens in (the URL's #lang=… wins)
  std::string manifest;     // JSON: {version, langs, words{LANG{key: text}}, lessons[{name, summary, options, cli_only}]}
  std::string core;         // attnlab-book-core.js: defines AttnlabCore (emscripten, the wasm inlined)
};

// Whether `core` can be the book's core: it defines AttnlabCore and holds no text that would end
// its <script> element ("</script" or "<!--"), which an emscripten build never writes.
bool book_core_fits(const std::string& core);

// The page. Throws std::invalid_argument for a core that does not fit (book_core_fits).
std::string render_book(const BookPage& book);

}  // namespace attn
