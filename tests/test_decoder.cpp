// The chapter's variants as attnlab trains them (src/math/decoder*.cpp): every variant's loss and
// gradients against PyTorch autograd (tests/golden/gen_decoder_grads.py), the parameter count
// against the layout, and the same bits for one thread and two.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decoder.h"
#include "parallel.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_decoder {

using namespace attn;
using namespace attn::decoder;

namespace {

DecoderConfig config_of(const nlohmann::json& j) {
  DecoderConfig c;
  c.vocab = j["vocab"], c.n_positions = j["n_positions"], c.d_model = j["d_model"], c.n_layer = j["n_layer"];
  c.n_head = j["n_head"], c.head_dim = j["head_dim"], c.d_ff = j["d_ff"];
  const std::string a = j["attention"];
  c.attention = a == "mha" ? Attention::Mha : a == "gqa" ? Attention::Gqa : a == "mqa" ? Attention::Mqa : Attention::Mla;
  c.n_kv_head = j.value("n_kv_head", 0);
  c.kv_lora_rank = j.value("kv_lora_rank", 0);
  c.rope_dim = j.value("rope_dim", 0);
  c.positions = j["positions"] == "rope" ? Positions::Rope : Positions::Learned;
  c.ffn = j["ffn"] == "swiglu" ? Ffn::Swiglu : Ffn::Gelu;
  c.norm = j["norm"] == "rmsnorm" ? Norm::RmsNorm : Norm::LayerNorm;
  return c;
}

nlohmann::json fixture() {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/decoder_grads.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("every variant's loss and gradients equal PyTorch autograd's to 1e-10") {
  const nlohmann::json doc = fixture();
  REQUIRE(doc["cases"].size() == 7);
  for (const auto& [name, k] : doc["cases"].items()) {
    INFO("case " << name);
    const DecoderConfig c = config_of(k["config"]);
    REQUIRE(check_config(c).empty());
    const Decoder m = make_decoder(c, k["seed"]);
    CHECK(decoder_param_count(c) == static_cast<double>(m.layout.total));
    const std::vector<int> tokens = k["tokens"], targets = k["targets"];
    DecoderActs acts;
    decoder_forward(m, tokens.data(), targets.data(), k["B"], k["T"], acts);
    CHECK(std::fabs(acts.loss - k["loss"].get<double>()) <= 1e-12);
    std::vector<double> grads;
    decoder_backward(m, tokens.data(), targets.data(), acts, grads);
    REQUIRE(k["grads"].size() == m.layout.tensors.size());
    double worst = 0.0, largest = 0.0;
    for (const gpt::ParamTensor& t : m.layout.tensors) {
      INFO("tensor " << t.name);
      const std::vector<double> want = k["grads"].at(t.name);
      REQUIRE(want.size() == t.size);
      for (std::size_t i = 0; i < t.size; ++i) {
        worst = std::max(worst, std::fabs(grads[t.offset + i] - want[i]));
        largest = std::max(largest, std::fabs(want[i]));
      }
    }
    CHECK(worst <= 1e-10);
    CHECK(largest > 1e-3);  // the gradients are not all (near) zero: the comparison means something
  }
}

TEST_CASE("the variant decoder gives the same bits for one thread and two") {
  DecoderConfig c;
  c.vocab = 13, c.n_positions = 9, c.d_model = 16, c.n_layer = 2, c.n_head = 4;
  c.attention = Attention::Mla, c.kv_lora_rank = 6, c.rope_dim = 4;
  c.positions = Positions::Rope, c.ffn = Ffn::Swiglu, c.norm = Norm::RmsNorm;
  const Decoder m = make_decoder(c, 3);
  std::vector<int> tokens(3 * 9), targets(3 * 9);
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int>((i * 7) % 13), targets[i] = static_cast<int>((i * 5 + 1) % 13);
  DecoderActs a1, a2;
  std::vector<double> g1, g2;
  set_threads(1);
  decoder_forward(m, tokens.data(), targets.data(), 3, 9, a1);
  decoder_backward(m, tokens.data(), targets.data(), a1, g1);
  set_threads(2);
  decoder_forward(m, tokens.data(), targets.data(), 3, 9, a2);
  decoder_backward(m, tokens.data(), targets.data(), a2, g2);
  set_threads(0);
  CHECK(a1.loss == a2.loss);
  CHECK(g1 == g2);
}

TEST_CASE("variant configs that cannot be trained are named") {
  DecoderConfig c;
  c.attention = Attention::Gqa, c.n_head = 4, c.n_kv_head = 3;
  CHECK_FALSE(check_config(c).empty());
  c.n_kv_head = 2;
  CHECK(check_config(c).empty());
  c.attention = Attention::Mla, c.kv_lora_rank = 0;
  CHECK_FALSE(check_config(c).empty());
  c.kv_lora_rank = 8, c.positions = Positions::Rope, c.rope_dim = 0;
  CHECK_FALSE(check_config(c).empty());
  c.rope_dim = 4;
  CHECK(check_config(c).empty());
  // the cache per token per layer: MHA 2·H·hs, GQA 2·G·hs, MQA 2·hs, MLA Dc + R
  c.d_model = 64, c.n_head = 4;
  CHECK(c.cache_per_token() == 12);
  c.attention = Attention::Gqa;
  CHECK(c.cache_per_token() == 2 * 2 * 16);
  c.attention = Attention::Mqa;
  CHECK(c.cache_per_token() == 2 * 16);
  c.attention = Attention::Mha;
  CHECK(c.cache_per_token() == 2 * 4 * 16);
}

}  // namespace file_test_decoder
