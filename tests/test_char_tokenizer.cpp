// The character-level tokenizer (src/tokenizer/char_vocab.h): the vocabulary built from a text, its
// tokenizer.json, read back. Hugging Face `tokenizers` is not installed here, so the ids are checked
// against tests/golden/char_tokenizer.py, an independent reader of the committed fixture with
// Python's json module (tests/golden/char_tokenizer.json), and the fixture against the writer, byte
// for byte.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "char_vocab.h"
#include "checkpoint_files.h"
#include "random.h"
#include "run_cli.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_char_tokenizer {

using namespace attn;
using namespace ckpt_test;

namespace {

using Ids = std::vector<std::int64_t>;
using Tokens = std::vector<std::string>;

std::string fixture_dir() { return std::string(ATTNLAB_TEST_DIR) + "/fixtures/char_tokenizer"; }
std::string fixture_file() { return fixture_dir() + "/tokenizer.json"; }
// The fixture's recipe: corpus.txt, characters seen at least twice.
CharVocab fixture_vocab() { return build_char_vocab(read_bytes(fixture_dir() + "/corpus.txt"), 2); }

}  // namespace

TEST_CASE("char vocabulary: <unk> is id 0, then characters by descending count, ties by code point", "[tokenizer][char]") {
  // a: 3, b: 3, c: 2, newline: 2, 猫 (U+732B): 2, d: 1, 狗 (U+72D7): 1. Ties by code point:
  // a (U+0061) before b; newline (U+000A) before c (U+0063) before 猫.
  CharVocab v = build_char_vocab("abca\nbcab\n\xe7\x8c\xab\xe7\x8c\xab" "d\xe7\x8b\x97", 2);
  CHECK(v.tokens == Tokens{"<unk>", "a", "b", "\n", "c", "\xe7\x8c\xab"});
  CHECK(v.counts == std::vector<std::uint64_t>{2, 3, 3, 2, 2, 2});  // counts[0]: d and 狗, left out
  // min_count 1 (and 0, the same): every character; d (U+0064) before 狗 (U+72D7), both once.
  for (std::size_t min : {0, 1}) {
    CharVocab all = build_char_vocab("abca\nbcab\n\xe7\x8c\xab\xe7\x8c\xab" "d\xe7\x8b\x97", min);
    CHECK(all.tokens == Tokens{"<unk>", "a", "b", "\n", "c", "\xe7\x8c\xab", "d", "\xe7\x8b\x97"});
    CHECK(all.counts.front() == 0);
  }
  // A higher bar keeps fewer; nothing at all is <unk> alone.
  CHECK(build_char_vocab("abca\nbcab\n", 3).tokens == Tokens{"<unk>", "a", "b"});
  CHECK(build_char_vocab("abca\nbcab\n", 4).tokens == Tokens{"<unk>"});
  CHECK(build_char_vocab("", 1).tokens == Tokens{"<unk>"});
  // A 4-byte character is one character; text that is not UTF-8 is refused at its bad byte.
  CHECK(build_char_vocab("\xf0\x9f\xa6\x93\xf0\x9f\xa6\x93", 2).tokens == Tokens{"<unk>", "\xf0\x9f\xa6\x93"});
  CHECK(usage_error([] { build_char_vocab("ab\xff", 1); }) == "checkpoint.err.vocab_utf8 at=2");
  CHECK(usage_error([] { build_char_vocab("a\xed\xa0\x80", 1); }) == "checkpoint.err.vocab_utf8 at=1");  // a surrogate
  CHECK(usage_error([] { build_char_vocab("a\xc3", 1); }) == "checkpoint.err.vocab_utf8 at=1");          // cut short
}

TEST_CASE("char tokenizer.json: the writer reproduces the committed fixture byte for byte", "[tokenizer][char]") {
  CharVocab v = fixture_vocab();
  std::string written = char_tokenizer_json(v);
  CHECK(written == read_bytes(fixture_file()));
  CHECK(char_tokenizer_json(fixture_vocab()) == written);  // same vocabulary, same bytes
  // Valid JSON, keys in the order tokenizers writes them, the vocab in id order, UTF-8 unescaped.
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(written);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  CHECK(keys == Tokens{"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder", "model"});
  std::int64_t next = 0;
  for (auto it = j["model"]["vocab"].begin(); it != j["model"]["vocab"].end(); ++it) {
    CHECK(it.key() == v.tokens[static_cast<std::size_t>(next)]);
    CHECK(it.value() == next++);
  }
  CHECK(written.find("\"\xe7\x8c\xab\"") != std::string::npos);  // 猫 as itself, not \u732b
  CHECK(written.find("\"\\t\"") != std::string::npos);            // tab, quote, backslash escaped
  CHECK(written.find("\"\\\"\"") != std::string::npos);
  CHECK(written.find("\"\\\\\"") != std::string::npos);
  CHECK(written.find("\"Regex\": \"[\\\\s\\\\S]\"") != std::string::npos);
  // Control characters as serde_json writes them: \n, or \u00XX in lowercase hex.
  CharVocab odd{{"<unk>", "\n", std::string(1, '\x1f'), "\x7f"}, {0, 1, 1, 1}};
  std::string o = char_tokenizer_json(odd);
  CHECK(o.find("\"\\n\": 1,\n      \"\\u001f\": 2,\n      \"\x7f\": 3\n") != std::string::npos);
  CHECK(nlohmann::json::parse(o)["model"]["vocab"][std::string(1, '\x1f')] == 2);
}

TEST_CASE("char tokenizer.json read back gives the writer's vocabulary and ids", "[tokenizer][char]") {
  CharVocab v = fixture_vocab();
  CharTokenizer from_file = CharTokenizer::from_tokenizer_json(read_bytes(fixture_file()), fixture_file());
  CharTokenizer in_memory(v);
  REQUIRE(from_file.vocab_size() == v.tokens.size());
  CHECK(in_memory.vocab_size() == v.tokens.size());
  for (std::size_t id = 0; id < v.tokens.size(); ++id) {
    CHECK(from_file.decode(static_cast<std::int64_t>(id)) == v.tokens[id]);
    if (id > 0) CHECK(from_file.encode(v.tokens[id]) == Ids{static_cast<std::int64_t>(id)});
  }
  CHECK(from_file.unk_id() == 0);
  CHECK(from_file.unk_token() == "<unk>");
  // The whole corpus: one id per character, the same both ways, and decoding gives it back where
  // no character was left out.
  std::string corpus = read_bytes(fixture_dir() + "/corpus.txt");
  Ids ids = from_file.encode(corpus);
  CHECK(ids == in_memory.encode(corpus));
  CHECK(static_cast<std::uint64_t>(std::count(ids.begin(), ids.end(), 0)) == v.counts[0]);
  CHECK(from_file.decode(Ids{3, 1, 2}) == v.tokens[3] + v.tokens[1] + v.tokens[2]);
  // A checkpoint folder's tokenizer.json is read by its model.type: this one as characters.
  std::shared_ptr<const Tokenizer> any = read_tokenizer_json(read_bytes(fixture_file()), fixture_file());
  REQUIRE(dynamic_cast<const CharTokenizer*>(any.get()) != nullptr);
  CHECK(any->encode(corpus) == ids);
  CHECK(any->vocab_size() == v.tokens.size());
  // Outside the vocabulary: "" to decode, "<>" to show.
  CHECK(from_file.decode(-1).empty());
  CHECK(from_file.decode(static_cast<std::int64_t>(v.tokens.size())).empty());
  CHECK(from_file.label(static_cast<std::int64_t>(v.tokens.size())) == "<>");
}

TEST_CASE("char tokenizer: a character outside the vocabulary is <unk>", "[tokenizer][char]") {
  CharTokenizer tok(build_char_vocab("aaabbb\n\nZ", 2));  // <unk> a b \n (Z once: left out)
  CHECK(tok.encode("ab") == Ids{1, 2});
  CHECK(tok.encode("aZb") == Ids{1, 0, 2});
  CHECK(tok.encode("\xe7\x8c\xab\n") == Ids{0, 3});       // 猫: one <unk>, not three bytes
  CHECK(tok.encode("\xf0\x9f\xa6\x93") == Ids{0});        // a 4-byte emoji: one <unk>
  CHECK(tok.encode("a<unk>b") == Ids{1, 0, 2});           // the unk token in the text: one id, as tokenizers does
  CHECK(tok.encode("") == Ids{});
  CHECK(tok.decode(Ids{1, 0, 2}) == "a<unk>b");
  // Labels as a learner reads them.
  CHECK(tok.label(0) == "<unk>");
  CHECK(tok.label(3) == "\xe2\x86\xb5");  // ↵
  CharTokenizer spaced(build_char_vocab(" \t\x01", 1));
  CHECK(spaced.label(spaced.encode(" ")[0]) == "\xe2\x90\xa3");  // ␣
  CHECK(spaced.label(spaced.encode("\t")[0]) == "\xe2\x87\xa5");  // ⇥
  CHECK(spaced.label(spaced.encode("\x01")[0]) == "<01>");
  // Text that is not UTF-8: refused at its byte, after an added token too.
  CHECK(usage_error([&] { tok.encode("ab\xff"); }) == "checkpoint.err.utf8 at=2");
  CHECK(usage_error([&] { tok.encode("a<unk>\xc3"); }) == "checkpoint.err.utf8 at=6");
}

TEST_CASE("char tokenizer ids equal those of the Python reference (tests/golden/char_tokenizer.py)", "[tokenizer][char][golden]") {
  nlohmann::json golden = nlohmann::json::parse(read_bytes(std::string(ATTNLAB_TEST_DIR) + "/golden/char_tokenizer.json"));
  REQUIRE(golden["tokenizer"] == "fixtures/char_tokenizer/tokenizer.json");
  CharTokenizer tok = CharTokenizer::from_tokenizer_json(read_bytes(fixture_file()), fixture_file());
  CHECK(golden["vocab_size"] == tok.vocab_size());
  REQUIRE(golden["cases"].size() >= 8);
  for (const auto& c : golden["cases"]) {
    INFO("text: " << c["text"].get<std::string>());
    CHECK(tok.encode(c["text"].get<std::string>()) == c["ids"].get<Ids>());
  }
}

TEST_CASE("char tokenizer.json files with a malformed field are refused naming the key", "[tokenizer][char][bad_input]") {
  const nlohmann::json good = nlohmann::json::parse(read_bytes(fixture_file()));
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    std::string as_char = usage_error([&] { CharTokenizer::from_tokenizer_json(j.dump(), "f"); });
    std::string any = usage_error([&] { read_tokenizer_json(j.dump(), "f"); });
    // read_tokenizer_json reads the same file the same way, or as BPE when model.type says so
    if (j.is_object() && j.contains("model") && j["model"].is_object() && j["model"].value("type", nlohmann::json()) == "WordLevel")
      CHECK(any == as_char);
    return as_char;
  };
  const std::string key = "checkpoint.err.tokenizer_json file=f key=";
  CHECK(refused([](nlohmann::json&) {}) == "no error");
  // model.type: not WordLevel, a number, null, missing (then BPE, which this is not)
  CHECK(refused([](nlohmann::json& j) { j["model"]["type"] = 3; }) == key + "model.type");
  CHECK(refused([](nlohmann::json& j) { j["model"]["type"] = nullptr; }) == key + "model.type");
  CHECK(refused([](nlohmann::json& j) { j["model"]["type"] = "BPE"; }) == key + "model.type");
  CHECK(refused([](nlohmann::json& j) { j["model"].erase("type"); }) == key + "model.type");
  CHECK(refused([](nlohmann::json& j) { j["model"] = 3; }) == key + "model.type");
  CHECK(refused([](nlohmann::json& j) { j.erase("model"); }) == key + "model");
  CHECK(refused([](nlohmann::json& j) { j = nlohmann::json::array(); }) == key + "model");
  // the vocab: an object of one-character keys, ids 0…N-1 each once
  CHECK(refused([](nlohmann::json& j) { j["model"].erase("vocab"); }) == key + "model.vocab");
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"] = nlohmann::json::array({"a"}); }) == key + "model.vocab");
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"] = nlohmann::json::object(); }) == key + "model.vocab");
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"]["a"] = 1; }) == key + "model.vocab");          // id 1 twice
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"]["a"] = 9999; }) == key + "model.vocab");       // a hole
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"]["a"] = -1; }) == key + "model.vocab");
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"]["a"] = "1"; }) == key + "model.vocab");
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"]["a"] = 1.5; }) == key + "model.vocab");
  CHECK(refused([](nlohmann::json& j) { j["model"]["vocab"]["a"] = nullptr; }) == key + "model.vocab");
  std::size_t n = good["model"]["vocab"].size();
  CHECK(refused([&](nlohmann::json& j) { j["model"]["vocab"]["ab"] = n; }) == key + "model.vocab");  // two characters
  CHECK(refused([&](nlohmann::json& j) { j["model"]["vocab"][""] = n; }) == key + "model.vocab");    // none
  CHECK(refused([&](nlohmann::json& j) { j["model"]["vocab"]["e\xcc\x81"] = n; }) == key + "model.vocab");  // e + U+0301
  CHECK(refused([&](nlohmann::json& j) { j["model"]["vocab"]["Z"] = n; }) == "no error");  // one more character is fine
  // unk_token: a string of the vocab
  CHECK(refused([](nlohmann::json& j) { j["model"].erase("unk_token"); }) == key + "model.unk_token");
  CHECK(refused([](nlohmann::json& j) { j["model"]["unk_token"] = "[UNK]"; }) == key + "model.unk_token");
  CHECK(refused([](nlohmann::json& j) { j["model"]["unk_token"] = 0; }) == key + "model.unk_token");
  CHECK(refused([](nlohmann::json& j) { j["model"]["unk_token"] = nullptr; }) == key + "model.unk_token");
  // the pre-tokenizer: exactly the per-character Split
  CHECK(refused([](nlohmann::json& j) { j.erase("pre_tokenizer"); }) == key + "pre_tokenizer");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"] = nullptr; }) == key + "pre_tokenizer.type");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["type"] = "Whitespace"; }) == key + "pre_tokenizer.type");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["type"] = 7; }) == key + "pre_tokenizer.type");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["pattern"]["Regex"] = "."; }) == key + "pre_tokenizer.pattern");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["pattern"] = {{"String", "[\\s\\S]"}}; }) == key + "pre_tokenizer.pattern");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["pattern"]["Regex"] = 1; }) == key + "pre_tokenizer.pattern");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["pattern"] = "[\\s\\S]"; }) == key + "pre_tokenizer.pattern");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"].erase("pattern"); }) == key + "pre_tokenizer.pattern");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["behavior"] = "Removed"; }) == key + "pre_tokenizer.behavior");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["behavior"] = nullptr; }) == key + "pre_tokenizer.behavior");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["invert"] = true; }) == key + "pre_tokenizer.invert");
  CHECK(refused([](nlohmann::json& j) { j["pre_tokenizer"]["invert"] = "no"; }) == key + "pre_tokenizer.invert");
  // the normalizer: none or NFC
  CHECK(refused([](nlohmann::json& j) { j["normalizer"] = {{"type", "Lowercase"}}; }) == key + "normalizer");
  CHECK(refused([](nlohmann::json& j) { j["normalizer"] = {{"type", 5}}; }) == key + "normalizer");
  CHECK(refused([](nlohmann::json& j) { j["normalizer"] = {{"type", "NFC"}}; }) == "no error");
  // added tokens: tokens of the vocab with their ids, plain
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"] = 3; }) == key + "added_tokens");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"][0]["id"] = 5; }) == key + "added_tokens[0].id");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"][0]["id"] = nullptr; }) == key + "added_tokens[0].id");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"][0]["content"] = "<pad>"; }) == key + "added_tokens[0].content");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"][0].erase("content"); }) == key + "added_tokens[0].content");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"][0]["lstrip"] = true; }) == key + "added_tokens[0].lstrip");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"][0]["special"] = "yes"; }) == key + "added_tokens[0].special");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"][0] = 1; }) == key + "added_tokens[0].content");
  CHECK(refused([](nlohmann::json& j) { j["added_tokens"] = nullptr; }) == "no error");
  // not JSON, or a number JSON cannot hold
  CHECK(usage_error([] { CharTokenizer::from_tokenizer_json("{\"model\": ", "f"); }) == key + "(JSON)");
  CHECK(usage_error([] { read_tokenizer_json("{\"model\": 1e999}", "f"); }) == key + "(JSON)");
}

TEST_CASE("no edit of one value in a tokenizer.json ends in anything but a UsageError", "[tokenizer][char][bad_input]") {
  // Every value of the char fixture and of the Llama 3-style BPE fixture, in turn replaced by a
  // value of each JSON kind or removed: read_tokenizer_json either reads the file or refuses it with
  // a UsageError; never nlohmann's type_error or anything else (one line on stderr, exit 2).
  const std::vector<nlohmann::json> replacements = {3, -1, 1.5, nullptr, true, "x", nlohmann::json::array(), nlohmann::json::object()};
  std::size_t edits = 0, refused = 0;
  for (const std::string& file : {fixture_file(), std::string(ATTNLAB_TEST_DIR) + "/fixtures/tokenizer_json/llama3-style/tokenizer.json"}) {
    const nlohmann::json good = nlohmann::json::parse(read_bytes(file));
    nlohmann::json flat = good.flatten();
    // the paths of every value and of every object and array holding them
    std::set<std::string> paths;
    for (auto it = flat.begin(); it != flat.end(); ++it)
      for (std::string p = it.key(); !p.empty(); p = p.substr(0, p.rfind('/'))) paths.insert(p);
    for (const std::string& p : paths) {
      nlohmann::json::json_pointer ptr(p);
      std::vector<std::function<void(nlohmann::json&)>> edits_here;
      for (const nlohmann::json& r : replacements) edits_here.push_back([&, r](nlohmann::json& j) { j[ptr] = r; });
      edits_here.push_back([&](nlohmann::json& j) {
        nlohmann::json& parent = j[ptr.parent_pointer()];
        if (parent.is_object()) parent.erase(ptr.back());
        else parent.erase(static_cast<std::size_t>(std::stoul(ptr.back())));
      });
      for (const auto& edit : edits_here) {
        nlohmann::json j = good;
        edit(j);
        ++edits;
        bool ok = true;
        try {
          read_tokenizer_json(j.dump(), "f");
        } catch (const UsageError&) {
          ++refused;
        } catch (const std::exception& e) {
          ok = false;
          UNSCOPED_INFO(file << ": " << p << " -> " << j.at(ptr.parent_pointer()).dump().substr(0, 200) << ": " << e.what());
        }
        if (!ok) CHECK(ok);
      }
    }
  }
  CHECK(edits > 1000);
  CHECK(refused > edits / 2);
}

namespace {
// A one-layer GPT-2 checkpoint in `dir` whose vocabulary is the fixture's characters.
void write_char_checkpoint(const std::string& dir) {
  const std::size_t V = fixture_vocab().tokens.size(), D = 8, P = 64, F = 32;
  Rng rng(5);
  auto r = [&](Shape s) { return scale(randn(rng, s), 0.3); };
  write_bytes(dir + "/model.safetensors",
              write_f32({{"wte.weight", r({V, D})}, {"wpe.weight", r({P, D})}, {"h.0.ln_1.weight", r({D})}, {"h.0.ln_1.bias", r({D})},
                         {"h.0.attn.c_attn.weight", r({D, 3 * D})}, {"h.0.attn.c_attn.bias", r({3 * D})},
                         {"h.0.attn.c_proj.weight", r({D, D})}, {"h.0.attn.c_proj.bias", r({D})}, {"h.0.ln_2.weight", r({D})},
                         {"h.0.ln_2.bias", r({D})}, {"h.0.mlp.c_fc.weight", r({D, F})}, {"h.0.mlp.c_fc.bias", r({F})},
                         {"h.0.mlp.c_proj.weight", r({F, D})}, {"h.0.mlp.c_proj.bias", r({D})}, {"ln_f.weight", r({D})},
                         {"ln_f.bias", r({D})}}));
  write_bytes(dir + "/config.json", R"({"model_type": "gpt2", "vocab_size": )" + std::to_string(V) +
                                        R"(, "n_positions": 64, "n_embd": 8, "n_layer": 1, "n_head": 2})");
  write_bytes(dir + "/tokenizer.json", read_bytes(fixture_file()));
}
}  // namespace

TEST_CASE("a checkpoint folder with a character tokenizer.json cuts --text into characters", "[tokenizer][char][cli]") {
  TempDir d("chartok");
  write_char_checkpoint(d.path);
  CharTokenizer tok = CharTokenizer::from_tokenizer_json(read_bytes(fixture_file()), fixture_file());
  const std::string text = "the cat\xe7\x8c\xab Z";  // Z is not in the vocabulary
  CliResult h = run_cli("heads --weights '" + d.path + "' --text '" + text + "' --json -");
  REQUIRE(h.code == 0);
  nlohmann::json j = nlohmann::json::parse(h.out);
  CHECK(j["token_ids"] == tok.encode(text));
  CHECK(j["tokens"] == Tokens{"t", "h", "e", "\xe2\x90\xa3", "c", "a", "t", "\xe7\x8c\xab", "\xe2\x90\xa3", "<unk>"});
  CliResult g = run_cli("generate --weights '" + d.path + "' --text 'the cat' --tokens 3");
  CHECK(g.code == 0);
  CliResult m = run_cli("lesson mha --weights '" + d.path + "' --text 'the cat'");
  CHECK(m.code == 0);
  // A malformed tokenizer.json there: one line on stderr naming the file and the key, exit 2.
  nlohmann::json bad = nlohmann::json::parse(read_bytes(fixture_file()));
  bad["model"]["vocab"]["ab"] = 1000;
  write_bytes(d.path + "/tokenizer.json", bad.dump());
  CliResult b = run_cli("heads --weights '" + d.path + "' --text 'the cat'");
  CHECK(b.code == 2);
  CHECK(b.out.empty());
  CHECK(std::count(b.err.begin(), b.err.end(), '\n') == 1);
  CHECK(b.err.find(d.path + "/tokenizer.json: model.vocab") != std::string::npos);
}

}  // namespace file_test_char_tokenizer
