// The conversation's last three models (issue 15): Llama 4 Scout (GQA, chunked local attention
// in 3 of 4 layers, MoE with a shared expert, config nested under text_config), GLM-4-9B (ChatGLM's
// names, GQA with 2 KV groups) and MiniCPM3-4B (MLA outside DeepSeek). Totals worked out by hand
// in the comments, KV bytes per token by hand, tiny configs counted by hand, and every refusal of
// the new config.json keys.
#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "catalog.h"
#include "errors.h"
#include "models.h"
#include "run_cli.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_presets_conversation {

using namespace attn;

namespace {
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
ModelConfig parse(const std::string& text) { return parse_hf_config(text, "t.json"); }
std::string refusal(const std::string& text) { return usage_error([&] { parse(text); }); }
const Dtype kBf16{"bf16", 16};
}  // namespace

TEST_CASE("GLM-4-9B: ChatGLM's config names, the published count", "[presets15]") {
  ModelConfig m = load_preset("glm-4-9b");
  CHECK(m.model_type == "chatglm");
  CHECK(m.l == 40);
  CHECK(m.n_h == 32);
  CHECK(m.n_g == 2);  // multi_query_group_num: the chapter's "2 KV groups"
  CHECK(m.d_h == 128);
  CHECK(m.d_ff == 13696);
  CHECK(m.vocab == 151552);
  CHECK(attn_kind(m) == AttnKind::GQA);
  // per layer: query_key_value 4,096 x (32 + 2·2)·128 = 4,096 x 4,608 = 18,874,368, its bias 4,608;
  // dense 4,096 x 4,096 = 16,777,216; dense_h_to_4h 4,096 x 27,392 = 112,197,632;
  // dense_4h_to_h 13,696 x 4,096 = 56,098,816; two RMSNorms 8,192 -> 203,960,832.
  // 40 x 203,960,832 = 8,158,433,280; embedding and output layer 2 x 151,552 x 4,096 = 1,241,513,984;
  // final norm 4,096 -> 9,399,951,360, the count of the published glm-4-9b-chat checkpoint.
  ParamReport r = count_params(m);
  REQUIRE(r.layers.size() == 1);
  CHECK(r.layers[0].total == 203960832u);
  CHECK(r.total == 9399951360u);
  CHECK(m.official_total == 9399951360u);
  CHECK(r.active == r.total);
  // KV per token: 2 x n_g x d_h x l = 2 x 2 x 128 x 40 = 20,480 elements = 40,960 bytes in bf16
  KvUsage u = kv_usage(m, 1, 1, kBf16, 1);
  CHECK(u.elements_per_token == 20480u);
  CHECK(u.bytes_per_token == 40960u);
}

TEST_CASE("MiniCPM3-4B: MLA outside DeepSeek, tied head, no guessed total", "[presets15]") {
  ModelConfig m = load_preset("minicpm3-4b");
  CHECK(m.mla);
  CHECK(attn_kind(m) == AttnKind::MLA);
  CHECK(m.d_c == 256);
  CHECK(m.d_R == 32);
  CHECK(m.d_v == 64);  // not in the file: hidden_size / num_attention_heads = 2,560 / 40
  CHECK(m.tied_embeddings);
  CHECK(m.official_total == 0);
  // per layer attention: q_a_proj 2,560 x 768 = 1,966,080; q_a_layernorm 768;
  // q_b_proj 768 x 40·(64+32) = 2,949,120; kv_a_proj_with_mqa 2,560 x (256+32) = 737,280;
  // kv_a_layernorm 256; kv_b_proj 256 x 40·(64+64) = 1,310,720; o_proj 40·64 x 2,560 = 6,553,600
  // -> 13,517,824. MLP 3 x 2,560 x 6,400 = 49,152,000; norms 5,120 -> 62,674,944 a layer.
  // 62 x 62,674,944 = 3,885,846,528; embedding 73,448 x 2,560 = 188,026,880 (lm_head tied);
  // final norm 2,560 -> 4,073,875,968.
  ParamReport r = count_params(m);
  REQUIRE(r.layers.size() == 1);
  CHECK(r.layers[0].attention_total == 13517824u);
  CHECK(r.layers[0].total == 62674944u);
  CHECK(r.total == 4073875968u);
  // KV per token: (d_c + d_R) x l = (256 + 32) x 62 = 17,856 elements = 35,712 bytes in bf16,
  // against 2 x 40 x 64 x 62 = 317,440 elements for MHA on the paper's d_h = 64
  KvUsage u = kv_usage(m, 1, 1, kBf16, 1);
  CHECK(u.elements_per_token == 17856u);
  CHECK(u.bytes_per_token == 35712u);
  std::vector<KvVariant> v = kv_variants(m, whatif_dims(m, 0, 0, 0), 1, 1, kBf16);
  CHECK(v.front().elements_per_token == 317440u);
  CHECK(v.back().actual);  // the MLA row is the model's own
  // the latent is replicated on every GPU: per GPU the same bytes under --tp 8
  CHECK(kv_usage(m, 1000, 1, kBf16, 8).per_gpu_bytes == 1000u * 35712u);
}

TEST_CASE("Llama 4 Scout: text model, MoE with a shared expert, chunked layers bound the cache", "[presets15]") {
  ModelConfig m = load_preset("llama-4-scout");
  CHECK(m.model_type == "llama4");
  CHECK(m.l == 48);
  CHECK(m.n_h == 40);
  CHECK(m.n_g == 8);
  CHECK(m.n_routed == 16);
  CHECK(m.n_shared == 1);
  CHECK(m.top_k == 1);
  CHECK(m.chunked);
  CHECK(m.window == 8192);
  CHECK(m.official_total == 0);  // the index's total includes the vision tower and was not checked
  // chunked (RoPE) layers: all but every 4th -> layers 3, 7, ..., 47 are global (NoPE)
  REQUIRE(m.sliding.size() == 48);
  CHECK(m.sliding[0]);
  CHECK(!m.sliding[3]);
  CHECK(!m.sliding[47]);
  // per layer: attention q 5,120 x 5,120 + k, v 5,120 x 1,024 each + o 5,120 x 5,120 = 62,914,560;
  // 16 routed experts 16 x 3 x 5,120 x 8,192 = 2,013,265,920; shared expert 125,829,120;
  // router 5,120 x 16 = 81,920; norms 10,240 -> 2,202,101,760. 48 layers = 105,700,884,480;
  // embed_tokens and lm_head 2 x 202,048 x 5,120 = 2,068,971,520; norm 5,120 -> 107,769,861,120.
  ParamReport r = count_params(m);
  REQUIRE(r.layers.size() == 1);
  CHECK(r.layers[0].moe);
  CHECK(r.layers[0].layers == 48);
  CHECK(r.layers[0].total == 2202101760u);
  CHECK(r.total == 107769861120u);
  // active: per layer 62,914,560 + 10,240 + (1 routed + 1 shared) x 125,829,120 + 81,920
  // = 314,664,960; x 48 = 15,103,918,080; + 2,068,971,520 + 5,120 = 17,172,894,720 ("17B active")
  CHECK(r.active == 17172894720u);
  // KV per token: 2 x 8 x 128 x 48 = 98,304 elements = 196,608 bytes in bf16
  KvUsage one = kv_usage(m, 1, 1, kBf16, 1);
  CHECK(one.elements_per_token == 98304u);
  CHECK(one.bytes_per_token == 196608u);
  CHECK(one.sliding_layers == 36);
  // within one chunk every layer holds every token: 4,096 x 196,608 bytes
  CHECK(kv_usage(m, 4096, 1, kBf16, 1).total_bytes == 805306368u);
  // 32,768 tokens: 36 chunked layers hold 8,192, 12 global layers hold 32,768:
  // 2,048 x (36 x 8,192 + 12 x 32,768) = 2,048 x 688,128 = 1,409,286,144 elements, x 2 bytes
  CHECK(kv_usage(m, 32768, 1, kBf16, 1).total_bytes == 2818572288u);
  // 100,000 tokens: 2,048 x (36 x 8,192 + 12 x 100,000) x 2 = 6,123,159,552 bytes, not 48 x 100,000
  CHECK(kv_usage(m, 100000, 1, kBf16, 1).total_bytes == 6123159552u);
}

TEST_CASE("the new presets in the CLI: models, params and kv-cache in en and zh", "[presets15]") {
  CliResult models = run_cli("models --lang en");
  REQUIRE(models.code == 0);
  for (const char* name : {"llama-4-scout", "glm-4-9b", "minicpm3-4b"}) CHECK(has(models.out, name));
  CHECK(has(models.out, "9,399,951,360"));
  CHECK(has(models.out, "107,769,861,120"));
  CHECK(has(models.out, "4,073,875,968"));
  CliResult kv = run_cli("kv-cache --model llama-4-scout --seq-len 32768 --lang en");
  REQUIRE(kv.code == 0);
  CHECK(has(kv.out, "36 use chunked local attention with chunks of 8,192 tokens"));
  CHECK(has(kv.out, "(2,818,572,288 B)"));
  CliResult js = run_cli("kv-cache --model llama-4-scout --seq-len 32768 --json -");
  REQUIRE(js.code == 0);
  nlohmann::json j = nlohmann::json::parse(js.out);
  CHECK(j["actual"]["bounded_layers"]["kind"] == "chunked");
  CHECK(j["actual"]["bounded_layers"]["layers"] == 36);
  CHECK(j["actual"]["bounded_layers"]["max_tokens"] == 8192);
  CHECK(j["actual"]["total_bytes"] == 2818572288u);
  CHECK(!nlohmann::json::parse(run_cli("kv-cache --model glm-4-9b --json -").out)["actual"].contains("bounded_layers"));
  CliResult kv_zh = run_cli("kv-cache --model llama-4-scout --seq-len 32768 --lang zh");
  CHECK(has(kv_zh.out, "分块局部注意力"));
  CHECK(has(run_cli("params --model llama-4-scout --lang en").out, "vision encoder"));
  CHECK(has(run_cli("params --model llama-4-scout --lang zh").out, "视觉编码器"));
  CHECK(has(run_cli("params --model glm-4-9b --lang en").out, "GQA with 2 KV groups"));
  CHECK(has(run_cli("params --model glm-4-9b --lang zh").out, "2 个 KV 组"));
  CHECK(has(run_cli("params --model minicpm3-4b --lang en").out, "no exact official total could be checked"));
  CHECK(has(run_cli("params --model minicpm3-4b --lang zh").out, "没能核对"));
  CHECK(has(run_cli("kv-cache --model minicpm3-4b --lang en").out, "d_c + d_R = 256 + 32"));
}

TEST_CASE("tiny configs of the new families, counted by hand", "[presets15]") {
  // llama4_text, MoE every 2nd layer (interleave_moe_layer_step 2: layers 1, 3 of 5), no chunking.
  // attention 16x16 + 16x8 + 16x8 + 16x16 = 768; dense SwiGLU 3 x 16 x 24 = 1,152;
  // MoE: 2 experts x 3 x 16 x 8 = 768, shared 384, router 16 x 2 = 32 -> 1,184; norms 32.
  // 3 dense layers x 1,952 + 2 MoE layers x 1,984 = 9,824; embeddings 2 x 32 x 16 = 1,024; norm 16.
  const std::string tiny4 = R"({"model_type": "llama4_text", "vocab_size": 32, "hidden_size": 16,
    "num_hidden_layers": 5, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
    "intermediate_size": 8, "intermediate_size_mlp": 24, "num_local_experts": 2,
    "num_experts_per_tok": 1, "interleave_moe_layer_step": 2})";
  ModelConfig t = parse(tiny4);
  ParamReport r = count_params(t);
  REQUIRE(r.layers.size() == 2);
  CHECK(r.layers[0].layers == 3);
  CHECK(r.layers[0].total == 1952u);
  CHECK(r.layers[1].layers == 2);
  CHECK(r.layers[1].total == 1984u);
  CHECK(r.total == 10864u);
  CHECK(!is_moe_layer(t, 0));
  CHECK(is_moe_layer(t, 1));
  CHECK(is_moe_layer(t, 3));
  CHECK(!is_moe_layer(t, 4));
  CHECK(t.sliding.empty());

  // nested under text_config with chunks of 4 and the default interval: layers 0, 1, 2 chunked,
  // layer 3 global. 10 tokens: 2 x 1 x 8 = 16 elements a layer-token, (3 x 4 + 10) x 16 = 352
  // elements = 704 bytes in bf16 (without the chunk bound: 4 x 10 x 16 x 2 = 1,280).
  const std::string nested = R"({"model_type": "llama4", "tie_word_embeddings": true, "text_config": {
    "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 4, "num_attention_heads": 2,
    "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8, "intermediate_size_mlp": 24,
    "num_local_experts": 2, "num_experts_per_tok": 1, "attention_chunk_size": 4}})";
  ModelConfig c = parse(nested);
  CHECK(c.chunked);
  CHECK(c.tied_embeddings);
  CHECK(kv_usage(c, 10, 1, kBf16, 1).total_bytes == 704u);
  CHECK(kv_usage(c, 3, 1, kBf16, 1).total_bytes == 4u * 3u * 16u * 2u);  // shorter than a chunk: no bound
  // no_rope_layers given: [1, 0, 1, 0] -> layers 0 and 2 chunked: (2 x 4 + 2 x 10) x 16 x 2 = 896
  std::string listed = nested;
  listed.replace(listed.find("\"attention_chunk_size\": 4"), 25, R"("attention_chunk_size": 4, "no_rope_layers": [1, 0, 1, 0])");
  CHECK(kv_usage(parse(listed), 10, 1, kBf16, 1).total_bytes == 896u);

  // chatglm: hidden 8, 2 layers, 4 heads of kv_channels 2, 2 groups, ffn 6, vocab 10.
  // query_key_value 8 x (4 + 2·2)·2 = 128 + bias 16; dense 8 x 8 = 64; MLP 8 x 12 + 6 x 8 = 144;
  // norms 16 -> 368 a layer; 2 layers 736; embedding + output layer 2 x 80; final norm 8 -> 904.
  const std::string glm = R"({"model_type": "chatglm", "padded_vocab_size": 10, "hidden_size": 8,
    "num_layers": 2, "num_attention_heads": 4, "kv_channels": 2, "multi_query_attention": true,
    "multi_query_group_num": 2, "ffn_hidden_size": 6, "add_qkv_bias": true})";
  ModelConfig g = parse(glm);
  CHECK(g.n_g == 2);
  CHECK(count_params(g).total == 904u);
  std::string no_final = glm;
  no_final.insert(no_final.size() - 1, R"(, "post_layer_norm": false)");
  CHECK(count_params(parse(no_final)).total == 896u);
  std::string layernorm = glm;
  layernorm.insert(layernorm.size() - 1, R"(, "rmsnorm": false)");  // LayerNorm: weight and bias
  CHECK(count_params(parse(layernorm)).total == 944u);
  std::string mha = glm;
  mha.replace(mha.find("\"multi_query_attention\": true"), 29, "\"multi_query_attention\": false");
  CHECK(parse(mha).n_g == 4);  // without multi_query_attention the group number is ignored

  // minicpm3: no v_head_dim -> hidden / heads; 2 layers of hidden 8, 2 heads, q_lora 4, kv_lora 3,
  // nope 2, rope 1, ffn 5, vocab 7. attention: 8x4 + 4 + 4 x 2·3 + 8 x (3+1) + 3 + 3 x 2·(2+4)
  // + 2·4 x 8 = 32 + 4 + 24 + 32 + 3 + 36 + 64 = 195; MLP 3 x 8 x 5 = 120; norms 16 -> 331;
  // 2 layers 662; embedding 56 (tied); norm 8 -> 726.
  const std::string cpm = R"({"model_type": "minicpm3", "vocab_size": 7, "hidden_size": 8,
    "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 5, "q_lora_rank": 4,
    "kv_lora_rank": 3, "qk_nope_head_dim": 2, "qk_rope_head_dim": 1, "scale_emb": 12, "scale_depth": 1.4})";
  ModelConfig p = parse(cpm);
  CHECK(p.d_v == 4);
  CHECK(count_params(p).total == 726u);
  CHECK(kv_elements_per_layer(p) == 4u);  // d_c + d_R = 3 + 1
}

TEST_CASE("config.json of the new families: one clear refusal naming the key", "[presets15]") {
  // llama4: the nested text model is named with its path
  CHECK(refusal(R"({"model_type": "llama4"})") == "calc.err.key_missing where=t.json key=text_config");
  CHECK(refusal(R"({"model_type": "llama4", "text_config": [1]})") ==
        "presets.err.not_object where=t.json key=text_config value=[1]");
  CHECK_THAT(refusal(R"({"model_type": "llama4", "text_config": {"vocab_size": 8}})"),
             Catch::Equals("calc.err.key_missing where=t.json key=text_config.hidden_size"));
  const std::string base = R"({"model_type": "llama4", "text_config": {"vocab_size": 32, "hidden_size": 16,
    "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
    "intermediate_size": 8, "intermediate_size_mlp": 24, "num_local_experts": 2, "num_experts_per_tok": 1, )";
  auto with = [&](const std::string& tail) { return refusal(base + tail + "}}"); };
  CHECK_THAT(with(R"("attention_chunk_size": 0)"),
             Catch::StartsWith("input.err.key_range where=t.json key=text_config.attention_chunk_size value=0"));
  CHECK_THAT(with(R"("attention_chunk_size": -5)"),
             Catch::StartsWith("calc.err.key_not_uint where=t.json key=text_config.attention_chunk_size"));
  CHECK(with(R"("attention_chunk_size": 8, "no_rope_layers": [1, 0])") ==
        "presets.err.layer_list where=t.json key=text_config.no_rope_layers l=4 kind=rope");
  CHECK(with(R"("attention_chunk_size": 8, "no_rope_layers": [1, 0, 2, 1])") ==
        "presets.err.layer_list where=t.json key=text_config.no_rope_layers l=4 kind=rope");
  CHECK(with(R"("attention_chunk_size": 8, "layer_types": ["chunked_attention", "x", "full_attention", "full_attention"])") ==
        "presets.err.layer_list where=t.json key=text_config.layer_types l=4 kind=types");
  CHECK_THAT(with(R"("interleave_moe_layer_step": 0)"),
             Catch::StartsWith("input.err.key_range where=t.json key=text_config.interleave_moe_layer_step value=0"));
  CHECK_THAT(with(R"("attention_chunk_size": 8, "no_rope_layer_interval": 0)"),
             Catch::StartsWith("input.err.key_range where=t.json key=text_config.no_rope_layer_interval value=0"));
  CHECK_THAT(with(R"("use_qk_norm": true, "attention_bias": "yes")"),
             Catch::StartsWith("calc.err.key_not_bool where=t.json key=text_config.attention_bias"));
  // validation after reading names the nested keys by their path too
  auto swapped = [&](const std::string& from, const std::string& to) {
    std::string b = base;
    b.replace(b.find(from), from.size(), to);
    return refusal(b + R"("use_qk_norm": true}})");
  };
  CHECK_THAT(swapped(R"("num_key_value_heads": 1)", R"("num_key_value_heads": 3)"),
             Catch::StartsWith("calc.err.kv_divide where=t.json") && Catch::Contains("kv_key=text_config.num_key_value_heads n_g=3"));
  CHECK(swapped(R"("num_experts_per_tok": 1)", R"("num_experts_per_tok": 3)") == "calc.err.top_k where=t.json top_k=3 n_routed=2");
  CHECK_THAT(swapped(R"("intermediate_size": 8)", R"("intermediate_size": 0)"),
             Catch::StartsWith("calc.err.positive where=t.json") &&
                 (Catch::Contains("key=text_config.intermediate_size ") || Catch::EndsWith("key=text_config.intermediate_size")));
  // a layer count past the cap is refused before any per-layer table is built
  CHECK_THAT(refusal(R"({"model_type": "llama4", "text_config": {"vocab_size": 32, "hidden_size": 16,
    "num_hidden_layers": 3000000000}})"),
             Catch::StartsWith("input.err.key_range where=t.json key=text_config.num_hidden_layers value=3000000000"));

  // chatglm: THUDM's names in the messages
  const std::string glm = R"({"model_type": "chatglm", "padded_vocab_size": 10, "hidden_size": 8,
    "num_attention_heads": 4, "kv_channels": 2, "multi_query_attention": true, "ffn_hidden_size": 6, )";
  CHECK(refusal(glm + R"("num_layers": 2, "multi_query_group_num": 3})") ==
        "calc.err.key_multiple where=t.json a_key=num_attention_heads a=4 b_key=multi_query_group_num b=3");
  CHECK(refusal(glm + R"("num_layers": 2, "multi_query_group_num": 0})") ==
        "calc.err.key_multiple where=t.json a_key=num_attention_heads a=4 b_key=multi_query_group_num b=0");
  CHECK(refusal(glm + R"("num_layers": 2})") == "calc.err.key_missing where=t.json key=multi_query_group_num");
  CHECK_THAT(refusal(glm + R"("num_layers": -1, "multi_query_group_num": 2})"),
             Catch::StartsWith("calc.err.key_not_uint where=t.json key=num_layers"));
  CHECK_THAT(refusal(glm + R"("multi_query_group_num": 2})"), Catch::Equals("calc.err.key_missing where=t.json key=num_layers"));
  CHECK_THAT(refusal(R"({"model_type": "chatglm", "padded_vocab_size": 10, "hidden_size": 8, "num_layers": 2,
    "num_attention_heads": 4})"), Catch::Equals("calc.err.key_missing where=t.json key=ffn_hidden_size"));
  CHECK_THAT(refusal(R"({"model_type": "chatglm", "padded_vocab_size": 10, "hidden_size": 8, "num_layers": 2,
    "num_attention_heads": 3, "ffn_hidden_size": 6})"),
             Catch::Equals("calc.err.key_multiple where=t.json a_key=hidden_size a=8 b_key=num_attention_heads b=3"));
  // sizes whose product overflows 64 bits are an error, not a wrapped count
  CHECK_THAT(refusal(R"({"model_type": "chatglm", "padded_vocab_size": 4294967296, "hidden_size": 4294967296,
    "num_layers": 2, "num_attention_heads": 1, "ffn_hidden_size": 6})"),
             Catch::StartsWith("calc.err.overflow_mul where=t.json"));

  // minicpm3
  const std::string cpm = R"({"model_type": "minicpm3", "vocab_size": 7, "hidden_size": 8,
    "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 5, "q_lora_rank": 4, )";
  CHECK(refusal(cpm + R"("qk_nope_head_dim": 2, "qk_rope_head_dim": 1})") == "calc.err.key_missing where=t.json key=kv_lora_rank");
  CHECK(refusal(cpm + R"("kv_lora_rank": 3, "qk_nope_head_dim": 2, "qk_rope_head_dim": 1, "attention_bias": true})") ==
        "presets.err.not_modelled where=t.json key=attention_bias value=true");
  CHECK_THAT(refusal(cpm + R"("kv_lora_rank": 0, "qk_nope_head_dim": 2, "qk_rope_head_dim": 1})"),
             Catch::StartsWith("calc.err.positive where=t.json") && Catch::Contains("key=kv_lora_rank"));
  CHECK(refusal(R"({"model_type": "minicpm3", "vocab_size": 7, "hidden_size": 9, "num_hidden_layers": 2,
    "num_attention_heads": 2, "intermediate_size": 5, "kv_lora_rank": 3, "qk_nope_head_dim": 2, "qk_rope_head_dim": 1})") ==
        "calc.err.key_multiple where=t.json a_key=hidden_size a=9 b_key=num_attention_heads b=2");

  // the words, once each, in English and Chinese: file and key named on one line
  Text en(Lang{"en"}), zh(Lang{"zh"});
  try {
    parse(base + R"("attention_chunk_size": 8, "no_rope_layers": [1]}})");
  } catch (const UsageError& e) {
    CHECK(en(e.msg) == "t.json: key 'text_config.no_rope_layers' must list one entry per layer (4), each 1 (RoPE, "
                       "chunked attention) or 0 (no RoPE, global attention)");
    CHECK(has(zh(e.msg), "t.json：键“text_config.no_rope_layers”须为每层列一项（共 4 层）"));
  }
}

TEST_CASE("bad config.json of the new families through the CLI: one line, exit 2", "[presets15]") {
  std::string path = std::string(ATTNLAB_TEST_DIR) + "/fixtures/configs/bad-llama4-text-config.json";
  CliResult r = run_cli("params --config " + path + " --lang en");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(has(r.err, "key 'text_config' must be an object"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("claims never shown: Gemma and Llama 3 70B are presets, and kv-cache sets Llama 3 70B beside DeepSeek-V3", "[presets15][seed]") {
  // Llama 3 70B by hand: embeddings and untied head 2 × 128,256 × 8,192 = 2,101,346,304; a layer:
  // q, o 2 × 8,192² = 134,217,728, k, v 2 × 8,192 × 1,024 = 16,777,216, SwiGLU 3 × 8,192 × 28,672 =
  // 704,643,072, 2 norms 16,384: 855,654,400 × 80 = 68,452,352,000; final norm 8,192.
  CHECK(count_params(load_preset("llama-3-70b")).total == 70553706496u);
  // Gemma 2 9B: embeddings 256,000 × 3,584 (tied); a layer: q, o 2 × 3,584 × 4,096, k, v 2 × 3,584 × 2,048,
  // GeGLU 3 × 3,584 × 14,336, 4 norms: 198,195,200 × 42; final norm 3,584.
  CHECK(count_params(load_preset("gemma-2-9b")).total == 9241705984u);
  CliResult kv = run_cli("kv-cache --compare llama-3-70b,deepseek-v3 --seq-len 32768 --lang en");
  REQUIRE(kv.code == 0);
  CHECK(has(kv.out, "327,680"));  // 2 × 8 KV heads × 128 × 80 layers × 2 bytes
  CHECK(has(kv.out, "70,272"));   // (512 + 64) × 61 layers × 2 bytes
  CHECK(has(run_cli("kv-cache --help").out, "llama-3-70b,deepseek-v3"));
  CliResult g = run_cli("kv-cache --model gemma-2-9b --seq-len 32768 --lang zh");
  REQUIRE(g.code == 0);
  CHECK(has(g.out, "4,096"));  // its local layers' window
  CHECK(has(run_cli("models --lang en").out, "gemma-2-9b"));
}

}  // namespace file_test_presets_conversation
