// tokenizer.json: byte-level BPE with the pre-tokenizer pattern the file names. Python's
// `tokenizers` is not installed here, so: (1) GPT-2's vocabulary written as tokenizer.json (both
// ways a file can say it) must give the ids the vocab.json path gives on the npm gpt-3-encoder
// corpus; (2) a tiny Llama 3-style file (tests/golden/gen_tokenizer_json.py) with ids worked by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bpe.h"
#include "checkpoint_files.h"
#include "random.h"
#include "run_cli.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_tokenizer_json {

using namespace attn;
using namespace ckpt_test;
namespace fs = std::filesystem;

namespace {

std::string gpt2_dir() { return std::string(ATTNLAB_TEST_DIR) + "/fixtures/gpt2_tokenizer"; }
std::string llama3_file() { return std::string(ATTNLAB_TEST_DIR) + "/fixtures/tokenizer_json/llama3-style/tokenizer.json"; }

// GPT-2's vocab.json + merges.txt as one tokenizer.json. sequence: Split on GPT-2's pattern, then
// ByteLevel without a regex, merges as pairs; otherwise ByteLevel with its regex, merges as "a b".
std::string gpt2_as_tokenizer_json(bool sequence) {
  nlohmann::json vocab = nlohmann::json::parse(read_bytes(gpt2_dir() + "/vocab.json"));
  nlohmann::json merges = nlohmann::json::array();
  std::istringstream in(read_bytes(gpt2_dir() + "/merges.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("#version", 0) == 0) continue;
    std::size_t sp = line.find(' ');
    if (sequence) merges.push_back({line.substr(0, sp), line.substr(sp + 1)});
    else merges.push_back(line);
  }
  nlohmann::json pre = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  if (sequence)
    pre = {{"type", "Sequence"},
           {"pretokenizers",
            {{{"type", "Split"},
              {"pattern", {{"Regex", R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"}}},
              {"behavior", "Isolated"},
              {"invert", false}},
             {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
  nlohmann::json j = {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}},
                      {"added_tokens", {{{"id", 50256}, {"content", "<|endoftext|>"}, {"special", true}}}},
                      {"normalizer", nullptr},
                      {"pre_tokenizer", pre}};
  return j.dump();
}

const Gpt2Tokenizer& llama3_style() {
  static const Gpt2Tokenizer tok = Gpt2Tokenizer::from_tokenizer_json(read_bytes(llama3_file()), llama3_file());
  return tok;
}

using Ids = std::vector<std::int64_t>;

}  // namespace

TEST_CASE("GPT-2 written as tokenizer.json gives the vocab.json ids on the npm corpus", "[tokenizer]") {
  nlohmann::json expected = nlohmann::json::parse(read_bytes(gpt2_dir() + "/expected.json"));
  REQUIRE(expected.size() >= 20);
  for (bool sequence : {false, true}) {
    Gpt2Tokenizer tok = Gpt2Tokenizer::from_tokenizer_json(gpt2_as_tokenizer_json(sequence), "x/tokenizer.json");
    for (const auto& e : expected) {
      INFO("sequence " << sequence << ", text: " << e["text"].get<std::string>());
      CHECK(tok.encode(e["text"].get<std::string>()) == e["ids"].get<Ids>());
    }
    CHECK(tok.label(50256) == "<|endoftext|>");
  }
}

TEST_CASE("a Llama 3-style tokenizer.json: its own pattern and ignore_merges, ids by hand", "[tokenizer]") {
  const Gpt2Tokenizer& tok = llama3_style();
  // "hello" is a token (259) and so is "Ġworld" (262): with ignore_merges each piece is taken whole.
  CHECK(tok.encode("hello world") == Ids{259, 262});
  // " hello" is not a token: BPE merges Ġ h e l l o by rank: he (0), ll (1), hell (2), hello (3) -> Ġ, hello.
  CHECK(tok.encode(" hello") == Ids{32, 259});
  // Llama 3 cuts digits in runs of at most 3: "121" + "2"; "1 2" merges -> 12, 1 | 2 = 261, 49, 50.
  // (GPT-2's pattern keeps "1212" whole: 261, 261.)
  CHECK(tok.encode("1212") == Ids{261, 49, 50});
  // Case-insensitive contractions: "HELLO" + "'S"; no merge has capitals: H E L L O ' S byte ids.
  CHECK(tok.encode("HELLO'S") == Ids{72, 69, 76, 76, 79, 39, 83});
  // "a", "\n\n" (\s*[\r\n]+), "b": newline is byte 10 ("Ċ").
  CHECK(tok.encode("a\n\nb") == Ids{97, 10, 10, 98});
  // 猫 is 3 bytes, e7 8c ab, none merged.
  CHECK(tok.encode("\xe7\x8c\xab") == Ids{0xe7, 0x8c, 0xab});
  CHECK(tok.label(262) == "\xe2\x90\xa3" "world");
  CHECK(tok.label(263) == "<|begin_of_text|>");
  // Without ignore_merges, " world" goes through BPE: Ġw (260), o, r, l, d.
  nlohmann::json j = nlohmann::json::parse(read_bytes(llama3_file()));
  j["model"]["ignore_merges"] = false;
  CHECK(Gpt2Tokenizer::from_tokenizer_json(j.dump(), "x").encode("hello world") == Ids{259, 260, 111, 114, 108, 100});
}

TEST_CASE("tokenizer.json files attnlab does not read are refused naming the key", "[tokenizer][bad_input]") {
  nlohmann::json good = nlohmann::json::parse(read_bytes(llama3_file()));
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return usage_error([&] { Gpt2Tokenizer::from_tokenizer_json(j.dump(), "f"); });
  };
  CHECK(refused([](nlohmann::json& j) { j["model"]["type"] = "WordPiece"; }) == "checkpoint.err.tokenizer_json file=f key=model.type");
  CHECK(refused([](nlohmann::json& j) { j["model"]["byte_fallback"] = true; }) == "checkpoint.err.tokenizer_json file=f key=model.byte_fallback");
  CHECK(refused([](nlohmann::json& j) { j["model"]["merges"][2] = "abc"; }) == "checkpoint.err.tokenizer_json file=f key=model.merges[2]");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed"; }) ==
        "checkpoint.err.tokenizer_json file=f key=pre_tokenizer.pretokenizers[0].behavior");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"] = {{"type", "Metaspace"}}; }) == "checkpoint.err.tokenizer_json file=f key=pre_tokenizer.type");
  CHECK(refused([](nlohmann::json& j) { j["normalizer"] = {{"type", "Lowercase"}}; }) == "checkpoint.err.tokenizer_json file=f key=normalizer");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(unclosed"; }) ==
        "checkpoint.err.tokenizer_regex file=f at=9");
  CHECK(usage_error([] { Gpt2Tokenizer::from_tokenizer_json("{not json", "f"); }) == "checkpoint.err.tokenizer_json file=f key=(JSON)");
}

TEST_CASE("an NFC normalizer gives e + U+0301 the ids of the precomposed letter", "[tokenizer][nfc]") {
  nlohmann::json j = nlohmann::json::parse(read_bytes(llama3_file()));
  const std::string precomposed = "caf\xc3\xa9", decomposed = "cafe\xcc\x81";  // U+00E9, e U+0301
  // No normalizer: "cafe" is a piece (\p{L}+) and the mark another ([^\s\p{L}\p{N}]+); no merge
  // applies, so each byte is its own id: c a f e, then U+0301's bytes cc 81.
  Gpt2Tokenizer none = Gpt2Tokenizer::from_tokenizer_json(j.dump(), "x");
  CHECK(none.encode(decomposed) == Ids{99, 97, 102, 101, 0xcc, 0x81});
  CHECK(none.encode(precomposed) == Ids{99, 97, 102, 0xc3, 0xa9});
  // NFC (Qwen2's), alone or as a Sequence of NFC alone: the text becomes "caf" U+00E9 first, one
  // piece whose bytes are c a f c3 a9.
  for (const nlohmann::json& normalizer :
       {nlohmann::json{{"type", "NFC"}}, nlohmann::json{{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}}}}}) {
    j["normalizer"] = normalizer;
    Gpt2Tokenizer tok = Gpt2Tokenizer::from_tokenizer_json(j.dump(), "x");
    INFO("normalizer " << normalizer.dump());
    CHECK(tok.encode(decomposed) == Ids{99, 97, 102, 0xc3, 0xa9});
    CHECK(tok.encode(precomposed) == Ids{99, 97, 102, 0xc3, 0xa9});
    CHECK(tok.encode("hello world") == Ids{259, 262});
  }
}

TEST_CASE("normalizers other than NFC are refused naming the key", "[tokenizer][nfc][bad_input]") {
  nlohmann::json good = nlohmann::json::parse(read_bytes(llama3_file()));
  auto refused = [&](const nlohmann::json& normalizer) {
    nlohmann::json j = good;
    j["normalizer"] = normalizer;
    return usage_error([&] { Gpt2Tokenizer::from_tokenizer_json(j.dump(), "f"); });
  };
  CHECK(refused({{"type", "NFKC"}}) == "checkpoint.err.tokenizer_json file=f key=normalizer");
  CHECK(refused("NFC") == "checkpoint.err.tokenizer_json file=f key=normalizer");
  CHECK(refused({{"type", "Sequence"}}) == "checkpoint.err.tokenizer_json file=f key=normalizer.normalizers");
  CHECK(refused({{"type", "Sequence"}, {"normalizers", nlohmann::json::array()}}) ==
        "checkpoint.err.tokenizer_json file=f key=normalizer.normalizers");
  CHECK(refused({{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}, {{"type", "Lowercase"}}}}}) ==
        "checkpoint.err.tokenizer_json file=f key=normalizer.normalizers[1]");
  // Text that is not UTF-8 is still refused by the pre-tokenizer, NFC or not.
  good["normalizer"] = {{"type", "NFC"}};
  Gpt2Tokenizer tok = Gpt2Tokenizer::from_tokenizer_json(good.dump(), "f");
  CHECK(usage_error([&] { tok.encode("e\xcc\x81\xff"); }) == "checkpoint.err.utf8 at=3");  // the byte 0xff
}

namespace {
// A one-layer GPT-2 checkpoint (V 264, d 8) in `dir` with the Llama 3-style tokenizer.json,
// its normalizer set to `normalizer`.
void write_tiny_checkpoint(const std::string& dir, const nlohmann::json& normalizer) {
  const std::size_t V = 264, D = 8, P = 32, F = 32;
  Rng rng(3);
  auto r = [&](Shape s) { return scale(randn(rng, s), 0.3); };
  write_bytes(dir + "/model.safetensors",
              write_f32({{"wte.weight", r({V, D})}, {"wpe.weight", r({P, D})}, {"h.0.ln_1.weight", r({D})}, {"h.0.ln_1.bias", r({D})},
                         {"h.0.attn.c_attn.weight", r({D, 3 * D})}, {"h.0.attn.c_attn.bias", r({3 * D})},
                         {"h.0.attn.c_proj.weight", r({D, D})}, {"h.0.attn.c_proj.bias", r({D})}, {"h.0.ln_2.weight", r({D})},
                         {"h.0.ln_2.bias", r({D})}, {"h.0.mlp.c_fc.weight", r({D, F})}, {"h.0.mlp.c_fc.bias", r({F})},
                         {"h.0.mlp.c_proj.weight", r({F, D})}, {"h.0.mlp.c_proj.bias", r({D})}, {"ln_f.weight", r({D})},
                         {"ln_f.bias", r({D})}}));
  write_bytes(dir + "/config.json",
              R"({"model_type": "gpt2", "vocab_size": 264, "n_positions": 32, "n_embd": 8, "n_layer": 1, "n_head": 2})");
  nlohmann::json tok = nlohmann::json::parse(read_bytes(llama3_file()));
  tok["normalizer"] = normalizer;
  write_bytes(dir + "/tokenizer.json", tok.dump());
}
}  // namespace

TEST_CASE("a checkpoint folder with tokenizer.json tokenizes --text", "[tokenizer][cli]") {
  TempDir d("tokjson");
  write_tiny_checkpoint(d.path, nullptr);
  CliResult h = run_cli("heads --weights '" + d.path + "' --text 'hello world 1212' --json -");
  REQUIRE(h.code == 0);
  // "hello", " world", " ", "121", "2"? No: " 1212" is not a piece: the space stands alone
  // (\s+(?!\S) leaves it before the digits), then "121", "2".
  CHECK(nlohmann::json::parse(h.out)["token_ids"] == Ids{259, 262, 32, 261, 49, 50});
  CliResult g = run_cli("generate --weights '" + d.path + "' --text 'hello world' --tokens 2");
  CHECK(g.code == 0);
}

TEST_CASE("attnlab heads on a checkpoint whose tokenizer.json is NFC: e + U+0301 is the precomposed letter", "[tokenizer][nfc][cli]") {
  TempDir d("tokjson_nfc");
  write_tiny_checkpoint(d.path, {{"type", "NFC"}});
  auto ids = [&](const std::string& text) {
    CliResult h = run_cli("heads --weights '" + d.path + "' --text '" + text + "' --json -");
    REQUIRE(h.code == 0);
    return nlohmann::json::parse(h.out)["token_ids"].get<Ids>();
  };
  // "caf" U+00E9 and "cafe" U+0301: both c a f c3 a9, the byte ids (see the test above).
  CHECK(ids("caf\xc3\xa9") == Ids{99, 97, 102, 0xc3, 0xa9});
  CHECK(ids("cafe\xcc\x81") == Ids{99, 97, 102, 0xc3, 0xa9});
}

TEST_CASE("the real-weights narration says where the tokens came from: --text or --token-ids", "[tokenizer][cli][wording]") {
  TempDir d("tokfrom");
  write_tiny_checkpoint(d.path, nullptr);
  for (const char* lesson : {"attention", "block"}) {
    INFO(lesson);
    CliResult text = run_cli(std::string("lesson ") + lesson + " --weights '" + d.path + "' --text 'hello world' --step real_model");
    CliResult ids = run_cli(std::string("lesson ") + lesson + " --weights '" + d.path + "' --token-ids 5,6,7 --step real_model");
    REQUIRE(text.code == 0);
    REQUIRE(ids.code == 0);
    CHECK(text.out.find("your sentence cut by its own tokenizer") != std::string::npos);
    CHECK(ids.out.find("your sentence") == std::string::npos);
    CHECK(ids.out.find("the token ids you gave (--token-ids)") != std::string::npos);
  }
}

}  // namespace file_test_tokenizer_json
