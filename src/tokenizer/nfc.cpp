// Unicode NFC (UAX #15; the Unicode Standard, section 3.11), in three steps over code points:
//   1. decompose: each code point replaced by its full canonical decomposition (the table applied
//      recursively; Hangul syllables by arithmetic, section 3.12), U+00E9 -> U+0065 U+0301
//   2. reorder: each run of non-starters (combining class != 0) sorted, stably, by class
//   3. compose: left to right, a code point C joins the last starter L when L + C is a primary
//      composite and nothing between them blocks C (a code point of class 0, or >= C's class)
// The tables (nfc_tables.inc) come from Python's unicodedata via scripts/gen-nfc-tables.py.
#include "nfc.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "utf8.h"

namespace attn {

namespace {

struct CombiningRange {
  char32_t first, last;
  std::uint8_t ccc;
};
struct Decomposition {
  char32_t cp, a, b;  // cp -> a b, or a alone when b == 0
};
struct Composition {
  char32_t a, b, cp;  // a b -> cp
};

#include "nfc_tables.inc"

// Hangul: syllable S = SBase + (L - LBase) * NCount + (V - VBase) * TCount + (T - TBase), T optional.
constexpr char32_t SBase = 0xAC00, LBase = 0x1100, VBase = 0x1161, TBase = 0x11A7;
constexpr char32_t LCount = 19, VCount = 21, TCount = 28, NCount = VCount * TCount, SCount = LCount * NCount;

int combining_class(char32_t c) {
  auto it = std::upper_bound(std::begin(kCombiningClass), std::end(kCombiningClass), c,
                             [](char32_t x, const CombiningRange& r) { return x < r.first; });
  if (it == std::begin(kCombiningClass)) return 0;
  --it;
  return c <= it->last ? it->ccc : 0;
}

// Step 1 for one code point, appended to `out`.
void decompose(char32_t c, std::u32string& out) {
  if (c >= SBase && c < SBase + SCount) {  // U+D55C -> U+1112 U+1161 U+11AB
    char32_t s = c - SBase;
    out += LBase + s / NCount;
    out += VBase + (s % NCount) / TCount;
    if (s % TCount != 0) out += TBase + s % TCount;
    return;
  }
  auto it = std::lower_bound(std::begin(kDecomposition), std::end(kDecomposition), c,
                             [](const Decomposition& d, char32_t x) { return d.cp < x; });
  if (it == std::end(kDecomposition) || it->cp != c) {
    out += c;
    return;
  }
  decompose(it->a, out);
  if (it->b != 0) decompose(it->b, out);
}

// Step 2: U+1E0D U+0307 stays, U+0064 U+0307 U+0323 (classes 230, 220) -> U+0064 U+0323 U+0307.
void reorder(std::u32string& s) {
  auto by_class = [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); };
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    while (j < s.size() && combining_class(s[j]) != 0) ++j;
    if (j > i) std::stable_sort(s.begin() + static_cast<std::ptrdiff_t>(i), s.begin() + static_cast<std::ptrdiff_t>(j), by_class);
    i = j + 1;
  }
}

// The primary composite of a then b, or 0 if they do not compose.
char32_t compose_pair(char32_t a, char32_t b) {
  if (a >= LBase && a < LBase + LCount && b >= VBase && b < VBase + VCount)  // L V -> LV
    return SBase + ((a - LBase) * VCount + (b - VBase)) * TCount;
  if (a >= SBase && a < SBase + SCount && (a - SBase) % TCount == 0 && b > TBase && b < TBase + TCount)  // LV T -> LVT
    return a + (b - TBase);
  auto it = std::lower_bound(std::begin(kComposition), std::end(kComposition), std::make_pair(a, b),
                             [](const Composition& c, const std::pair<char32_t, char32_t>& x) {
                               return c.a < x.first || (c.a == x.first && c.b < x.second);
                             });
  return it != std::end(kComposition) && it->a == a && it->b == b ? it->cp : 0;
}

// Step 3. last_class: the class of the last code point kept after the starter, -1 if none
// (C is then adjacent to it); it is never 0, since a kept starter becomes the new starter.
std::u32string compose(const std::u32string& s) {
  std::u32string out;
  std::size_t starter = std::u32string::npos;
  int last_class = -1;
  for (char32_t c : s) {
    int cc = combining_class(c);
    if (starter != std::u32string::npos && last_class < cc) {
      if (char32_t composite = compose_pair(out[starter], c)) {
        out[starter] = composite;
        continue;
      }
    }
    if (cc == 0) {
      starter = out.size();
      last_class = -1;
    } else {
      last_class = cc;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string nfc(std::string_view utf8) {
  // Every code point below U+0300 has class 0, is NFC alone and composes with nothing before it
  // (checked by the generator): text whose UTF-8 has no byte >= 0xCC (U+0300 is CC 80) is NFC.
  if (std::none_of(utf8.begin(), utf8.end(), [](char b) { return static_cast<unsigned char>(b) >= 0xCC; }))
    return std::string(utf8);
  std::u32string cps, decomposed;
  if (!decode_utf8(utf8, cps)) return std::string(utf8);
  for (char32_t c : cps) decompose(c, decomposed);
  reorder(decomposed);
  return encode_utf8(compose(decomposed));
}

const char* nfc_unicode_version() { return kUnicodeVersion; }

}  // namespace attn
