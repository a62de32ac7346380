// Unicode NFC (src/tokenizer/nfc.cpp): cases worked by hand from UnicodeData.txt, then every case
// of the golden fixture written by Python's unicodedata.normalize (tests/golden/gen_nfc.py).
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "nfc.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_nfc {

using attn::nfc;

TEST_CASE("NFC by hand: compose, reorder, exclusions, singletons, Hangul", "[nfc]") {
  // e (U+0065) + COMBINING ACUTE (U+0301) is the pair of U+00E9's decomposition: one code point.
  CHECK(nfc("e\xcc\x81") == "\xc3\xa9");
  // U+1E0B (d with dot above) + U+0323 (dot below). Decompose: d U+0307 U+0323; reorder by class
  // (U+0307 is 230, U+0323 is 220): d U+0323 U+0307; compose: d + U+0323 -> U+1E0D, then U+0307 is
  // not blocked (nothing between) but U+1E0D + U+0307 has no composite: U+1E0D U+0307.
  CHECK(nfc("\xe1\xb8\x8b\xcc\xa3") == "\xe1\xb8\x8d\xcc\x87");
  // U+0958 DEVANAGARI QA = U+0915 U+093C is in CompositionExclusions.txt: it decomposes and stays so.
  CHECK(nfc("\xe0\xa5\x98") == "\xe0\xa4\x95\xe0\xa4\xbc");
  CHECK(nfc("\xe0\xa4\x95\xe0\xa4\xbc") == "\xe0\xa4\x95\xe0\xa4\xbc");
  // Singletons: U+212B ANGSTROM SIGN -> U+00C5, U+2126 OHM SIGN -> U+03A9, never back.
  CHECK(nfc("\xe2\x84\xab") == "\xc3\x85");
  CHECK(nfc("\xe2\x84\xa6") == "\xce\xa9");
  // A + U+030A (ring above) composes to U+00C5 as well.
  CHECK(nfc("A\xcc\x8a") == "\xc3\x85");
  // Hangul: L U+1112 + V U+1161 + T U+11AB -> 0xAC00 + ((0x12 * 21) + 0) * 28 + (0x11AB - 0x11A7)
  // = 0xAC00 + 10584 + 4 = 0xD55C (the syllable han, UTF-8 ED 95 9C).
  CHECK(nfc("\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab") == "\xed\x95\x9c");
  // L V alone -> 0xAC00 + 10584 = 0xD558 (ED 95 98); that LV syllable + T composes too.
  CHECK(nfc("\xe1\x84\x92\xe1\x85\xa1") == "\xed\x95\x98");
  CHECK(nfc("\xed\x95\x98\xe1\x86\xab") == "\xed\x95\x9c");
  // An LVT syllable takes no second T: U+D55C + U+11AB stays two code points. Nor does an LV take
  // U+11A7 (TBase itself: "no T") or U+11C3 (past the 27 Ts), nor an L U+1176 (past the 21 Vs).
  CHECK(nfc("\xed\x95\x9c\xe1\x86\xab") == "\xed\x95\x9c\xe1\x86\xab");
  CHECK(nfc("\xed\x95\x98\xe1\x86\xa7") == "\xed\x95\x98\xe1\x86\xa7");
  CHECK(nfc("\xed\x95\x98\xe1\x87\x83") == "\xed\x95\x98\xe1\x87\x83");
  CHECK(nfc("\xe1\x84\x92\xe1\x85\xb6") == "\xe1\x84\x92\xe1\x85\xb6");
  // Blocking: a + U+0323 (220) + U+0301 (230): a + U+0323 -> U+1EA1, then U+0301 is not blocked and
  // U+1EA1 + U+0301 has no composite: U+1EA1 U+0301. But a + U+0301 + U+0301: the first acute composes
  // (U+00E1); the second is not blocked either (nothing kept between) but U+00E1 + U+0301 has no composite.
  CHECK(nfc("a\xcc\xa3\xcc\x81") == "\xe1\xba\xa1\xcc\x81");
  CHECK(nfc("a\xcc\x81\xcc\x81") == "\xc3\xa1\xcc\x81");
  // A starter between blocks: U+200B (class 0, composes with nothing) becomes the last starter, so
  // e U+200B U+0301 keeps all three.
  CHECK(nfc("e\xe2\x80\x8b\xcc\x81") == "e\xe2\x80\x8b\xcc\x81");
}

TEST_CASE("NFC leaves NFC text, ASCII and invalid UTF-8 byte for byte", "[nfc]") {
  for (const char* s : {"", "hello world", "caf\xc3\xa9 na\xc3\xafve",                       // ASCII, Latin-1
                        "\xe7\x8c\xab\xe5\x92\xaa \xed\x95\x9c\xea\xb5\xad\xec\x96\xb4",  // CJK, Hangul syllables
                        "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd \xe2\x9d\xa4\xef\xb8\x8f",      // emoji, skin tone, VS16
                        "\xe1\xb8\x8d\xcc\x87"}) {                                           // already composed + mark
    INFO("text: " << s);
    CHECK(nfc(s) == s);
  }
  // Not UTF-8 (a lone continuation byte, an overlong slash, a surrogate, a truncated sequence): as it is,
  // for the pre-tokenizer to refuse; even with a mark that would compose if the text were valid.
  for (const char* s : {"e\xcc\x81\x80", "\xc0\xaf\xcc\x81", "\xed\xa0\x80\xcc\x81", "e\xcc"}) CHECK(nfc(s) == s);
  // The version docs/README.template.md names; tables regenerated from another Python must update it.
  CHECK(std::string(attn::nfc_unicode_version()) == "14.0.0");
}

TEST_CASE("NFC agrees with Python's unicodedata on every golden case", "[nfc][golden]") {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/nfc.json");
  REQUIRE(in.good());
  nlohmann::json g = nlohmann::json::parse(in);
  CHECK(g["unicode"] == attn::nfc_unicode_version());
  REQUIRE(g["cases"].size() >= 700);
  std::size_t wrong = 0;
  for (const auto& c : g["cases"]) {
    std::string text = c["text"], expected = c["nfc"];
    std::string got = nfc(text);
    INFO("text: " << nlohmann::json(text).dump(-1, ' ', true));
    CHECK(got == expected);
    wrong += got != expected;
  }
  CHECK(wrong == 0);
}

}  // namespace file_test_nfc
