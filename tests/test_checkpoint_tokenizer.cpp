// GPT-2's byte-level BPE against an implementation no one here wrote: npm's gpt-3-encoder
// (tests/bpe_reference/make_fixture.js wrote tests/fixtures/gpt2_tokenizer/expected.json from
// corpus.json; GPT-2's vocab.json and merges.txt sit beside them). Then --text on a checkpoint.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "bpe.h"
#include "checkpoint_files.h"
#include "random.h"
#include "run_cli.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_checkpoint_tokenizer {

using namespace attn;
using namespace ckpt_test;
namespace fs = std::filesystem;

namespace {

std::string tokenizer_dir() { return std::string(ATTNLAB_TEST_DIR) + "/fixtures/gpt2_tokenizer"; }

const Gpt2Tokenizer& gpt2_tokenizer() {
  static const Gpt2Tokenizer tok = Gpt2Tokenizer::from_folder(tokenizer_dir());
  return tok;
}

// A random GPT-2 with the real vocabulary (50257 tokens), one layer, d_model 8, and the tokenizer.
void write_vocab_model(const std::string& dir) {
  const std::size_t V = 50257, D = 8, P = 64, F = 32;
  Rng rng(7);
  auto r = [&](Shape s) { return scale(randn(rng, s), 0.3); };
  std::vector<std::pair<std::string, Tensor>> t = {
      {"wte.weight", r({V, D})},          {"wpe.weight", r({P, D})},
      {"h.0.ln_1.weight", r({D})},        {"h.0.ln_1.bias", r({D})},
      {"h.0.attn.c_attn.weight", r({D, 3 * D})}, {"h.0.attn.c_attn.bias", r({3 * D})},
      {"h.0.attn.c_proj.weight", r({D, D})},     {"h.0.attn.c_proj.bias", r({D})},
      {"h.0.ln_2.weight", r({D})},        {"h.0.ln_2.bias", r({D})},
      {"h.0.mlp.c_fc.weight", r({D, F})}, {"h.0.mlp.c_fc.bias", r({F})},
      {"h.0.mlp.c_proj.weight", r({F, D})}, {"h.0.mlp.c_proj.bias", r({D})},
      {"ln_f.weight", r({D})},            {"ln_f.bias", r({D})}};
  write_bytes(dir + "/model.safetensors", write_f32(t));
  write_bytes(dir + "/config.json",
              R"({"model_type": "gpt2", "vocab_size": 50257, "n_positions": 64, "n_embd": 8, "n_layer": 1, "n_head": 2})");
  fs::copy_file(tokenizer_dir() + "/vocab.json", dir + "/vocab.json");
  fs::copy_file(tokenizer_dir() + "/merges.txt", dir + "/merges.txt");
}

}  // namespace

TEST_CASE("GPT-2 BPE agrees with npm gpt-3-encoder on every corpus string", "[tokenizer]") {
  std::ifstream in(tokenizer_dir() + "/expected.json");
  REQUIRE(in.good());
  nlohmann::json expected = nlohmann::json::parse(in);
  REQUIRE(expected.size() >= 20);
  for (const auto& e : expected) {
    std::string text = e["text"].get<std::string>();
    INFO("text: " << text);
    CHECK(gpt2_tokenizer().encode(text) == e["ids"].get<std::vector<std::int64_t>>());
  }
}

TEST_CASE("GPT-2 BPE: pieces, labels and bad input", "[tokenizer]") {
  CHECK(gpt2_pretokenize("Hello world's  end") == std::vector<std::string>{"Hello", " world", "'s", " ", " end"});
  const Gpt2Tokenizer& tok = gpt2_tokenizer();
  CHECK(tok.vocab_size() == 50257);
  CHECK(tok.encode("The cat") == std::vector<std::int64_t>{464, 3797});
  CHECK(tok.label(3797) == "\xe2\x90\xa3" "cat");  // a leading space shows as U+2423
  CHECK(tok.decode_bytes(3797) == " cat");
  // A token whose bytes are a control character shows them as <hex>: C0 (0x07) and, since a trace
  // with one is refused by attnlab render, C1 too (U+0085, bytes c2 85; in GPT-2's byte alphabet
  // 0xC2 is "\u00c2" and 0x85 is "\u0127").
  Gpt2Tokenizer small(R"({"\u00c2\u0127": 0, "\u0107": 1, "a\u00c2\u00a9": 2})", "#version: 0.2\n", "x");
  CHECK(small.decode_bytes(0) == "\xc2\x85");
  CHECK(small.label(0) == "<c2><85>");
  CHECK(small.label(1) == "<07>");
  CHECK(small.label(2) == "a\xc2\xa9");  // U+00A9 is printable: shown as it is
  // "猫" is 3 bytes, split by GPT-2 into byte tokens: each half shows as <hex>.
  std::vector<std::int64_t> cat = tok.encode("\xe7\x8c\xab");
  std::string joined;
  for (auto id : cat) joined += tok.decode_bytes(id);
  CHECK(joined == "\xe7\x8c\xab");
  CHECK(usage_error([&] { tok.encode("bad \xff byte"); }) == "checkpoint.err.utf8 at=4");  // named where it is
  CHECK(usage_error([] { Gpt2Tokenizer t("[1]", "", "x"); }) == "checkpoint.err.vocab file=x/vocab.json");
  CHECK(usage_error([] { Gpt2Tokenizer t("{\"a\": 0}", "#version: 0.2\na b c\n", "x"); }) ==
        "checkpoint.err.merges file=x/merges.txt line=2");
  CHECK(usage_error([] { Gpt2Tokenizer("{\"a\": 0}", "", "x").encode("b"); }) == "checkpoint.err.no_token file=x/vocab.json token=b");
}

TEST_CASE("attnlab heads --text tokenizes the learner's sentence", "[tokenizer][cli]") {
  TempDir d("vocab");
  write_vocab_model(d.path);
  CliResult r = run_cli("heads --weights '" + d.path + "' --text 'The cat sat on the mat.' --json -");
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["token_ids"] == std::vector<std::int64_t>{464, 3797, 3332, 319, 262, 2603, 13});
  CHECK(j["tokens"][1] == "\xe2\x90\xa3" "cat");
  CliResult zh = run_cli("heads --weights '" + d.path + "' --text '猫坐在垫子上。' --lang zh");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("首词元得分") != std::string::npos);
}

}  // namespace file_test_checkpoint_tokenizer
