// Issue 30, "real sizes that run": every lesson at the sizes of one real model it talks about, read
// from data/models (Llama 3 8B for gqa, transmla and decode; DeepSeek-V3 for mla at its real d_c,
// d_R and head widths; GPT-2 for mha, ffn and block), through the CLI, with the default short
// sequences. Each either runs within the work cap (exit 0) or is refused in one line that names the
// part that costs too much and a flag that shrinks it (exit 2). Which of the two each does is
// pinned too, so that a lesson which stops running at its model's sizes fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include "models.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_real_dims {

using namespace attn;

namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

// Runs `args`; exit 0, or exit 2 with one line on stderr holding `part` (the words of the part
// that costs too much) and `flag` (one that shrinks it). Returns the exit code.
int runs_or_names_part(const std::string& args, const std::string& part, const std::string& flag) {
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = run_cli(args + " --color never");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(args << "\nexit " << r.code << " in " << seconds << " s\n" << r.err);
  REQUIRE((r.code == 0 || r.code == 2));
  if (r.code == 0) {
    CHECK(r.err.empty());
    CHECK(!r.out.empty());
  } else {
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(part) != std::string::npos);
    CHECK(r.err.find(flag) != std::string::npos);
  }
  return r.code;
}

}  // namespace

TEST_CASE("real sizes: Llama 3 8B's attention runs in gqa and transmla, and decode names the part too large", "[real_dims][cli]") {
  const ModelConfig m = load_preset("llama-3-8b");
  REQUIRE(m.d == 4096);
  REQUIRE(m.n_h == 32);
  REQUIRE(m.n_g == 8);
  REQUIRE(m.d_h == 128);
  const std::string attention = " --d-model " + num(m.d) + " --heads " + num(m.n_h) + " --kv-heads " + num(m.n_g);
  CHECK(runs_or_names_part("lesson gqa" + attention, "", "") == 0);
  // The exact rewrite at d_c = 2·8·128 = 2048, its SVD by the Gram method, four ranks in the sweep.
  const CliResult t = run_cli("lesson transmla" + attention + " --head-dim " + num(m.d_h) + " --color never");
  INFO(t.err);
  REQUIRE(t.code == 0);
  CHECK(t.out.find("2048 singular values") != std::string::npos);
  CHECK(t.out.find("Gram") != std::string::npos);
  CHECK(t.out.find("256, 512, 1024 and 2048") != std::string::npos);  // a list in running text (common.list.*)
  CHECK(t.out.find("At r = 2048 the error is") != std::string::npos);
  // decode's small decoder at Llama 3 8B's sizes, all 32 layers and the real vocabulary: 24 GiB.
  const std::string decode = "lesson decode" + attention + " --layers " + num(m.l) + " --vocab " + num(m.vocab);
  CHECK(runs_or_names_part(decode, "most of it for the 32 layers' weights", "reduce --layers") == 2);
  CHECK(runs_or_names_part("lesson decode" + attention + " --layers 1 --vocab " + num(m.vocab),
                           "most of it for the embedding and the unembedding (128256 × 4096 each)", "reduce --vocab") == 2);
}

TEST_CASE("real sizes: DeepSeek-V3's MLA names the folded W_UV,i W_O,i and --heads", "[real_dims][cli]") {
  const ModelConfig m = load_preset("deepseek-v3");
  REQUIRE(m.d_c == 512);
  REQUIRE(m.d_R == 64);
  const std::string dims = " --d-model " + num(m.d) + " --head-dim " + num(m.d_nope) + " --latent-dim " + num(m.d_c) +
                           " --q-latent-dim " + num(m.d_cq) + " --rope-dim " + num(m.d_R);
  // 128 heads fold W_UV,i W_O,i into 128 × 512 × 7168 numbers (3.5 GiB) for the absorbed path.
  CHECK(runs_or_names_part("lesson mla" + dims + " --heads " + num(m.n_h),
                           "most of it for the absorbed path's folded W_UV,i W_O,i (128 × 512 × 7168)", "reduce --heads") == 2);
}

TEST_CASE("real sizes: GPT-2's mha, ffn and block run", "[real_dims][cli]") {
  const ModelConfig m = load_preset("gpt2");
  REQUIRE(m.d == 768);
  REQUIRE(m.n_h == 12);
  REQUIRE(m.d_ff == 3072);
  CHECK(runs_or_names_part("lesson mha --d-model " + num(m.d) + " --heads " + num(m.n_h), "", "") == 0);
  CHECK(runs_or_names_part("lesson ffn --d-model " + num(m.d) + " --d-ff " + num(m.d_ff), "", "") == 0);
  CHECK(runs_or_names_part("lesson block --d-model " + num(m.d) + " --heads " + num(m.n_h) + " --d-ff " + num(m.d_ff), "", "") == 0);
}

}  // namespace file_test_real_dims
