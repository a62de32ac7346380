// A trained variant saved as a Hugging Face Llama checkpoint (src/train/variant_checkpoint.h) is
// the same function there: attnlab's Llama reader (itself checked against PyTorch in
// test_checkpoint_llama.cpp) gives the decoder's own logits from the saved files.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "decoder.h"
#include "llama.h"
#include "run_cli.h"
#include "safetensors_writer.h"
#include "variant_checkpoint.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_variant_checkpoint {

using namespace attn;

namespace {
void write(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}
}  // namespace

TEST_CASE("a GQA variant saved as Llama gives the decoder's logits in attnlab's Llama reader") {
  for (decoder::Attention a : {decoder::Attention::Gqa, decoder::Attention::Mqa, decoder::Attention::Mha}) {
    decoder::DecoderConfig c;
    c.vocab = 19, c.n_positions = 12, c.d_model = 24, c.n_layer = 2, c.n_head = 4, c.n_kv_head = 2, c.d_ff = 40;
    c.attention = a, c.positions = decoder::Positions::Rope, c.ffn = decoder::Ffn::Swiglu, c.norm = decoder::Norm::RmsNorm;
    REQUIRE(train::llama_incompatibility(c).empty());
    decoder::Decoder m = decoder::make_decoder(c, 11);
    for (std::size_t i = 0; i < m.params.size(); ++i) m.params[i] += 0.05 * std::sin(static_cast<double>(i));  // not the init's symmetries
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("attnlab_variant_ckpt_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const train::LlamaTensors lt = train::llama_tensors(m);
    write(dir / "config.json", train::llama_config_json(c, true, ""));
    write(dir / "model.safetensors", train::safetensors_bytes(lt.tensors, train::SafeDtype::F64, {{"format", "pt"}}));
    const std::vector<int> tokens = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
    decoder::DecoderActs acts;
    decoder::decoder_forward(m, tokens.data(), nullptr, 1, tokens.size(), acts);
    const LlamaModel model(dir.string());
    const LlamaRun run = llama_forward(model, std::vector<std::int64_t>(tokens.begin(), tokens.end()), true);
    REQUIRE(run.logits.data.size() == acts.logits.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < acts.logits.size(); ++i) worst = std::max(worst, std::fabs(run.logits.data[i] - acts.logits[i]));
    INFO("attention " << decoder::attention_name(c));
    CHECK(worst <= 1e-12);
    CHECK(model.config().n_g == c.kv_heads());
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("train --attention refuses what it cannot train or save, with exit 2") {
  CliResult r = run_cli("train --task induction --attention gqa --kv-heads 2");
  CHECK(r.code == 2);
  CHECK(r.err.find("--task text") != std::string::npos);
  r = run_cli("train --task text --attention gqa --kv-heads 3 --heads 4");
  CHECK(r.code == 2);
  CHECK(r.err.find("--kv-heads") != std::string::npos);
  r = run_cli("train --task text --attention mla --ffn gelu --save /tmp/attnlab_never_written");
  CHECK(r.code == 2);
  CHECK(r.err.find("DeepSeek-V2") != std::string::npos);
  CHECK(r.err.find("differs in its ffn") != std::string::npos);
  r = run_cli("train --task text --attention gqa --kv-heads 2 --norm layernorm --save /tmp/attnlab_never_written");
  CHECK(r.code == 2);
  CHECK(r.err.find("differs in its norm") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists("/tmp/attnlab_never_written"));
  r = run_cli("train --task text --attention mha --pos nowhere");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
}

}  // namespace file_test_variant_checkpoint
