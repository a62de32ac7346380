// attnlab_nfc_bench: what the tokenizer.json NFC normalizer costs. Times nfc() (src/tokenizer/nfc.h)
// on 1 MiB of ASCII, Latin-1, Chinese, and decomposed Latin ("e" U+0301), and Gpt2Tokenizer::encode
// of 4 KiB of the ASCII text with the normalizer off and on (the Llama 3-style test tokenizer).
// Built only on request: cmake --build build --target attnlab_nfc_bench
//   build/attnlab_nfc_bench [reps]   (default 5; prints the best of reps, in ns per byte)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bpe.h"
#include "nfc.h"

namespace {

double best_ns_per_byte(const std::function<std::size_t()>& run, std::size_t bytes, int reps) {
  double best = 1e300;
  std::size_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    sink += run();
    best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  if (sink == 1) std::printf(" ");  // keeps the work
  return best / static_cast<double>(bytes);
}

std::string repeat(const std::string& unit, std::size_t bytes) {
  std::string s;
  while (s.size() < bytes) s += unit;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::size_t kBytes = std::size_t{1} << 20;
  struct Case {
    const char* name;
    std::string text;
  } cases[] = {
      {"ascii", repeat("The quick brown fox jumps over the lazy dog. ", kBytes)},
      {"latin1", repeat("caf\xc3\xa9 na\xc3\xafve d\xc3\xa9j\xc3\xa0 vu ", kBytes)},
      {"chinese", repeat("\xe6\xb3\xa8\xe6\x84\x8f\xe5\x8a\x9b\xe6\x9c\xba\xe5\x88\xb6", kBytes)},
      {"decomposed", repeat("cafe\xcc\x81 deja\xcc\x80 ", kBytes)},
  };
  for (const Case& c : cases)
    std::printf("nfc %-10s %8.3f ns/byte\n", c.name,
                best_ns_per_byte([&] { return attn::nfc(c.text).size(); }, c.text.size(), reps));
  std::string file = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/tokenizer_json/llama3-style/tokenizer.json";
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str());
  // 4 KiB, a long --text: encode's cost grows faster than the text's length (PCRE2 checks the
  // whole subject's UTF-8 at every match), so 1 MiB would time the pre-tokenizer alone.
  const std::string ascii = cases[0].text.substr(0, 4096);
  for (bool on : {false, true}) {
    j["normalizer"] = on ? nlohmann::json{{"type", "NFC"}} : nlohmann::json(nullptr);
    attn::Gpt2Tokenizer tok = attn::Gpt2Tokenizer::from_tokenizer_json(j.dump(), file);
    std::printf("encode ascii, normalizer %-4s %8.3f ns/byte\n", on ? "NFC" : "none",
                best_ns_per_byte([&] { return tok.encode(ascii).size(); }, ascii.size(), reps));
  }
  std::printf("(Unicode %s tables)\n", attn::nfc_unicode_version());
}
