// Parameter counts: every preset against its official total, config.json reading for each
// model_type (small fixtures worked out by hand, real published configs against their counts),
// and every bad-input case.
#include <catch2/catch.hpp>

#include "catalog.h"
#include "errors.h"
#include "models.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_models {

using namespace attn;

namespace {
std::string fixture(const std::string& name) { return std::string(ATTNLAB_TEST_DIR) + "/fixtures/configs/" + name; }
u64 total_of(const std::string& name) { return count_params(load_config_file(fixture(name))).total; }
}  // namespace

TEST_CASE("every preset's computed total equals its official count", "[models]") {
  // The eight presets of issue 5 each carry an exact official figure.
  for (const char* name : {"gpt2", "llama-2-7b", "llama-3-8b", "mistral-7b-v0.1", "qwen3-8b", "falcon-7b",
                           "deepseek-v2", "deepseek-v3"}) {
    ModelConfig m = load_preset(name);
    INFO(name);
    REQUIRE(m.official_total > 0);
    CHECK(count_params(m).total == m.official_total);
  }
  CHECK(load_preset("gpt2").official_total == 124439808u);
  CHECK(load_preset("llama-2-7b").official_total == 6738415616u);
  CHECK(load_preset("llama-3-8b").official_total == 8030261248u);
  CHECK(load_preset("mistral-7b-v0.1").official_total == 7241732096u);
  CHECK(load_preset("qwen3-8b").official_total == 8190735360u);
  CHECK(load_preset("falcon-7b").official_total == 6921720704u);
  CHECK(load_preset("deepseek-v2").official_total == 235741434880u);
  CHECK(load_preset("deepseek-v3").official_total == 671026419200u);
  // Presets without an exact official figure store none.
  CHECK(load_preset("deepseek-llm-67b").official_total == 0);
}

TEST_CASE("GPT-2 breakdown: the chapter's attention and FFN counts", "[models]") {
  ParamReport r = count_params(load_preset("gpt2"));
  REQUIRE(r.layers.size() == 1);
  const LayerParams& lp = r.layers[0];
  // W_Q..W_O: 768 x 768 x 4 = 2,359,296; plus four biases of 768.
  CHECK(lp.attention_total == 2359296u + 4 * 768);
  // W_1, W_2: 2 x 768 x 3072 = 4,718,592; plus b_1 3072 and b_2 768 = 4,722,432.
  CHECK(lp.ffn_total == 4722432u);
  CHECK(lp.layers == 12);
  CHECK(r.embedding_total == 50257u * 768 + 1024u * 768);
  CHECK(r.active == r.total);
}

TEST_CASE("MoE: active parameters and the MTP module", "[models]") {
  ParamReport v3 = count_params(load_preset("deepseek-v3"));
  // 3 dense layers + 58 MoE layers; one token passes through 8 routed + 1 shared expert.
  REQUIRE(v3.layers.size() == 2);
  CHECK(v3.layers[0].layers == 3);
  CHECK(v3.layers[1].layers == 58);
  CHECK(v3.active == 37552297472u);
  CHECK(v3.mtp == 11610068224u);  // layer 61 + eh_proj [14336, 7168] + 3 norms; not in the total
  CHECK(count_params(load_preset("deepseek-v2")).active == 21375800320u);
}

TEST_CASE("config.json: published configs give their published counts", "[models]") {
  CHECK(total_of("qwen2.5-7b.json") == 7615616512u);       // qwen2: q/k/v biases, untied
  CHECK(total_of("qwen3-0.6b.json") == 596049920u);        // qwen3: q/k norms, tied, head_dim 128
  CHECK(total_of("gemma-2-9b.json") == 9241705984u);       // gemma2: 4 norms, tied, head_dim 256
  CHECK(total_of("deepseek-v2-lite.json") == 15706484224u);  // deepseek_v2 without q_lora_rank
  ModelConfig f40 = load_config_file(fixture("falcon-40b.json"));
  CHECK(f40.n_g == 8);
  CHECK(f40.norms_per_layer == 2);
}

TEST_CASE("config.json: small fixtures worked by hand", "[models]") {
  // gpt2: V 100, 16 positions, d 8, 2 layers, 2 heads, d_ff 32.
  // embeddings 800 + 128; layer: attention 4*64 + 4*8 = 288, FFN 2*8*32 + 32 + 8 = 552, norms 2*16;
  // = 872 x 2 = 1,744; ln_f 16; lm_head tied. 928 + 1,744 + 16 = 2,688.
  CHECK(total_of("tiny-gpt2.json") == 2688u);
  // llama with attention_bias: d 8, n_h 4, n_g 2, d_h 2, d_ff 16, tied.
  // attention 64 + 32 + 32 + 64 + biases 8 + 4 + 4 + 8 = 216; FFN 3*8*16 = 384; norms 16 -> 616 x 2;
  // embedding 800, final norm 8: 800 + 1,232 + 8 = 2,040.
  CHECK(total_of("tiny-llama-bias.json") == 2040u);
  // mistral with head_dim 4: attention 128 + 64 + 64 + 128 = 384, FFN 384, norms 16 -> 784 x 2;
  // embedding and lm_head 800 each, final norm 8: 1,600 + 1,568 + 8 = 3,176.
  CHECK(total_of("tiny-mistral.json") == 3176u);
  // deepseek_v3: attention W_DQ 48 + q_a_ln 6 + q_b 72 + kv_a 48 + kv_ln 4 + kv_b 64 + W_O 64 = 306;
  // dense layer 306 + 16 + 384 = 706; MoE layer 306 + 16 + (4+1)*96 + router 32 + bias 4 = 838 (x2);
  // 1,600 + 706 + 1,676 + 8 = 3,990. Active MoE: (2+1)*96 + 36 = 324 -> 646 x 2: 3,606.
  ParamReport r = count_params(load_config_file(fixture("tiny-deepseek-v3.json")));
  CHECK(r.total == 3990u);
  CHECK(r.active == 3606u);
  CHECK(r.mtp == 24u + 128u + 838u);
}

TEST_CASE("family conventions read from config.json", "[models]") {
  ModelConfig q2 = load_config_file(fixture("qwen2.5-7b.json"));
  CHECK(q2.qkv_bias);
  CHECK_FALSE(q2.o_bias);
  CHECK(q2.sliding.empty() == false);  // sliding_window given, but use_sliding_window false:
  for (bool s : q2.sliding) CHECK_FALSE(s);
  ModelConfig g2 = load_config_file(fixture("gemma-2-9b.json"));
  CHECK(g2.tied_embeddings);
  CHECK(g2.norms_per_layer == 4);
  CHECK(g2.sliding[0]);
  CHECK_FALSE(g2.sliding[1]);
  ModelConfig f7 = load_preset("falcon-7b");
  CHECK(f7.n_g == 1);
  CHECK(attn_kind(f7) == AttnKind::MQA);
  CHECK(f7.norms_per_layer == 1);
  ModelConfig q3 = load_preset("qwen3-8b");
  CHECK(q3.qk_norm);
  CHECK(q3.d_h == 128);
}

TEST_CASE("bad config.json files: one clear error naming file and key", "[models]") {
  auto err = [](const std::string& name) { return usage_error([&] { load_config_file(fixture(name)); }); };
  auto where = [](const std::string& name) { return "where=" + fixture(name); };
  CHECK_THAT(err("bad-not-json.json"), Catch::StartsWith("input.err.json_syntax " + where("bad-not-json.json")));
  CHECK_THAT(err("bad-missing-key.json"), Catch::StartsWith("calc.err.key_missing") && Catch::Contains("key=hidden_size"));
  CHECK_THAT(err("bad-model-type.json"), Catch::StartsWith("calc.err.model_type_unknown") &&
                                             Catch::Contains("type=mamba") && Catch::Contains("deepseek_v3"));
  CHECK_THAT(err("bad-kv-heads.json"), Catch::StartsWith("calc.err.kv_divide") && Catch::Contains("hf=true") &&
                                           Catch::Contains("kv_key=num_key_value_heads n_g=3"));
  CHECK_THAT(err("bad-negative.json"), Catch::StartsWith("calc.err.key_not_uint") && Catch::Contains("key=intermediate_size"));
  CHECK_THAT(err("bad-zero.json"), Catch::StartsWith("calc.err.positive") && Catch::Contains("key=num_hidden_layers"));
  CHECK_THAT(err("bad-overflow.json"), Catch::StartsWith("calc.err.overflow_mul " + where("bad-overflow.json")));
  CHECK_THAT(err("does-not-exist.json"), Catch::StartsWith("input.err.file_open flag=--config path=" + fixture("does-not-exist.json")) &&
                                             Catch::Contains("reason=ENOENT"));
  CHECK_THAT(usage_error([] { load_preset("gpt5"); }),
             Catch::StartsWith("calc.err.preset_unknown name=gpt5") && Catch::Contains("llama-3-8b"));
  // The English words of two of them, once: file and key named.
  Text en(Lang{"en"});
  try {
    load_config_file(fixture("bad-zero.json"));
  } catch (const UsageError& e) {
    CHECK_THAT(en(e.msg), Catch::Contains("bad-zero.json: key 'num_hidden_layers' must be a positive size"));
  }
  try {
    load_config_file(fixture("bad-overflow.json"));
  } catch (const UsageError& e) {
    CHECK_THAT(en(e.msg), Catch::Contains("bad-overflow.json: ") && Catch::Contains("overflows 64 bits"));
  }
}

TEST_CASE("checked arithmetic never wraps", "[models]") {
  CHECK(mul(1u << 31, 1u << 31, "x") == (u64{1} << 62));
  CHECK(usage_error([] { mul(u64{1} << 32, u64{1} << 32, "kv"); }) ==
        "calc.err.overflow_mul where=- what=kv a=4294967296 b=4294967296");
  CHECK(Text(Lang{"en"})(Msg{"calc.err.overflow_mul", {{"where", "-"}, {"what", "kv"}, {"a", 2}, {"b", 3}}}) ==
        "KV-cache size overflows 64 bits (2 x 3); use smaller sizes");
  CHECK_THROWS_AS(add(~u64{0}, 1, "x"), UsageError);
}

}  // namespace file_test_models
