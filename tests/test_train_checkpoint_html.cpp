// Where the round's commands meet: a model `attnlab train --save` wrote loads in `attnlab heads`
// like any GPT-2 checkpoint, and train and heads write pages with --html.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "run_cli.h"

namespace {

const std::string kTiny = "train --layers 2 --heads 2 --d-model 8 --vocab 12 --seq-len 10 --batch 4 --steps 6";

bool is_page(const CliResult& r) {
  return r.code == 0 && r.out.rfind("<!DOCTYPE html>", 0) == 0 && r.out.find("Content-Security-Policy") != std::string::npos &&
         r.out.find("http://") == std::string::npos && r.out.find("https://") == std::string::npos;
}

}  // namespace

TEST_CASE("a checkpoint written by train --mlp --save loads in heads like any GPT-2", "[train][checkpoint]") {
  // With the MLP the model is a complete GPT-2. (An attention-only model has no ln_2 / mlp tensors:
  // the reader refuses it by name, tested below.)
  for (const char* dtype : {"f32", "f64"}) {
    std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_trained_" + dtype;
    std::filesystem::remove_all(dir);
    CliResult t = run_cli(kTiny + " --mlp --dtype " + dtype + " --save " + dir);
    INFO(dtype << ": " << t.err);
    REQUIRE(t.code == 0);
    CliResult h = run_cli("heads --weights " + dir + " --token-ids 1,2,3,4,1,2,3,4 --json");
    INFO(h.err);
    CHECK(h.code == 0);
    CHECK(h.out.find("\"scores\"") != std::string::npos);
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("an attention-only checkpoint is refused by the GPT-2 reader with the missing tensor named", "[train][checkpoint]") {
  std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_trained_attn_only";
  std::filesystem::remove_all(dir);
  REQUIRE(run_cli(kTiny + " --save " + dir).code == 0);
  CliResult h = run_cli("heads --weights " + dir + " --token-ids 1,2,3,4");
  CHECK(h.code == 2);
  CHECK(h.out.empty());
  CHECK(h.err.find("ln_2") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("train and heads write self-contained pages with --html", "[train][checkpoint][html]") {
  CliResult t = run_cli(kTiny + " --html -");
  INFO(t.err);
  CHECK(is_page(t));
  std::string w = std::string(ATTNLAB_TEST_DIR) + "/fixtures/checkpoints/tiny-gpt2";
  CliResult h = run_cli("heads --weights " + w + " --token-ids 1,2,3,4 --html - --lang zh");
  INFO(h.err);
  CHECK(is_page(h));
  CHECK(h.out.find("lang=\"zh\"") != std::string::npos);
}
