// MLA checkpoints in the DeepSeek-V2 layout (src/checkpoint/deepseek.h): the forward against an
// independent PyTorch forward (tests/golden/gen_deepseek_forward.py, which de-interleaves the RoPE
// pairs and applies rotate_half as DeepSeek-V2's code does), the absorbed KV cache of `generate`
// against the naive full forward, a trained MLA variant read back as the decoder computed it, and
// the refusals that name what is not supported.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "decoder.h"
#include "deepseek.h"
#include "generate.h"
#include "run_cli.h"
#include "safetensors_writer.h"
#include "usage_error.h"
#include "variant_checkpoint.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_checkpoint_mla {

using namespace attn;
using namespace ckpt_test;
namespace fs = std::filesystem;

namespace {

double max_diff(const Tensor& t, const nlohmann::json& j) {
  std::vector<double> flat;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& x) {
    if (x.is_array())
      for (const auto& y : x) walk(y);
    else
      flat.push_back(x.get<double>());
  };
  walk(j);
  REQUIRE(flat.size() == t.numel());
  double m = 0;
  for (std::size_t i = 0; i < flat.size(); ++i) m = std::max(m, std::fabs(flat[i] - t.data[i]));
  return m;
}

nlohmann::json golden() {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/checkpoint_mla.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in)["tiny-mla"];
}

// A value recorded by some step of a JSON trace, or -1 if no step has it.
double step_value(const nlohmann::json& trace, const char* name) {
  for (const auto& step : trace["steps"])
    if (step["values"].contains(name)) return step["values"][name].get<double>();
  return -1;
}

// A copy of tiny-mla whose config.json has `patch` merged in (null removes a key).
std::string with_config(const TempDir& d, const nlohmann::json& patch) {
  fs::copy_file(fixture("tiny-mla/model.safetensors"), d.path + "/model.safetensors");
  std::ifstream in(fixture("tiny-mla/config.json"));
  nlohmann::json c = nlohmann::json::parse(in);
  c.merge_patch(patch);
  std::ofstream(d.path + "/config.json") << c.dump();
  return d.path;
}

}  // namespace

TEST_CASE("an MLA checkpoint's forward matches the PyTorch DeepSeek-V2 golden to 1e-9", "[checkpoint][mla][golden]") {
  const nlohmann::json g = golden();
  const std::vector<std::int64_t> ids = g["token_ids"].get<std::vector<std::int64_t>>();
  const MlaModel m(fixture("tiny-mla"));
  CHECK(m.config().d_c == 5);
  CHECK(m.config().d_R == 4);
  CHECK_FALSE(m.config().mla_kv_norm);
  const MlaRun r = mla_forward(m, ids, true);
  REQUIRE(r.residuals.size() == g["residuals"].size());
  REQUIRE(r.attention.size() == g["attention"].size());
  for (std::size_t i = 0; i < r.residuals.size(); ++i) CHECK(max_diff(r.residuals[i], g["residuals"][i]) < 1e-9);
  for (std::size_t i = 0; i < r.attention.size(); ++i) CHECK(max_diff(r.attention[i], g["attention"][i]) < 1e-9);
  CHECK(max_diff(r.logits, g["logits"]) < 1e-9);
}

TEST_CASE("generate on an MLA checkpoint caches the latent and the RoPE key, and the absorbed steps give the naive logits",
          "[checkpoint][mla][generate]") {
  const MlaModel m(fixture("tiny-mla"));
  const std::vector<std::int64_t> prompt = {2, 17, 5, 2};
  const GenerateRun run = generate_greedy({nullptr, nullptr, &m}, prompt, 6);
  REQUIRE(run.cache.K.size() == 2);
  CHECK(run.cache.K[0].shape == Shape{1, 9, 5});  // c_KV: prompt + 6 − 1 tokens, d_c 5
  CHECK(run.cache.V[1].shape == Shape{1, 9, 4});  // K_R: d_R 4
  Tensor full;
  const double diff = cached_vs_full({nullptr, nullptr, &m}, run, prompt.size(), &full);
  CHECK(diff < 1e-12);
  CHECK(max_abs(full) > 0.5);  // real logits, not zeros on both sides
  // and they are the golden forward's own logits for the tokens the golden shares
  const nlohmann::json g = golden();
  const MlaRun r = mla_forward(m, g["token_ids"].get<std::vector<std::int64_t>>(), true);
  CHECK(max_diff(r.logits, g["logits"]) < 1e-9);
}

TEST_CASE("an MLA variant saved in the DeepSeek-V2 layout gives the decoder's logits and attention in attnlab's reader",
          "[checkpoint][mla][variant]") {
  decoder::DecoderConfig c;
  c.vocab = 19, c.n_positions = 12, c.d_model = 24, c.n_layer = 2, c.n_head = 3, c.head_dim = 6, c.d_ff = 40;
  c.attention = decoder::Attention::Mla, c.kv_lora_rank = 7, c.rope_dim = 4;
  c.positions = decoder::Positions::Rope, c.ffn = decoder::Ffn::Swiglu, c.norm = decoder::Norm::RmsNorm;
  REQUIRE(decoder::check_config(c).empty());
  REQUIRE(train::deepseek_incompatibility(c).empty());
  decoder::Decoder d = decoder::make_decoder(c, 5);
  for (std::size_t i = 0; i < d.params.size(); ++i) d.params[i] += 0.07 * std::sin(static_cast<double>(i));  // not the init's symmetries
  const TempDir dir("mla_variant");
  const train::LlamaTensors lt = train::deepseek_tensors(d);
  write_bytes(dir.path + "/config.json", train::deepseek_config_json(c, true, ""));
  write_bytes(dir.path + "/model.safetensors", train::safetensors_bytes(lt.tensors, train::SafeDtype::F64, {{"format", "pt"}}));
  const std::vector<int> tokens = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
  decoder::DecoderActs acts;
  decoder::decoder_forward(d, tokens.data(), nullptr, 1, tokens.size(), acts);
  const MlaModel model(dir.path);
  const MlaRun run = mla_forward(model, std::vector<std::int64_t>(tokens.begin(), tokens.end()), true);
  REQUIRE(run.logits.data.size() == acts.logits.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < acts.logits.size(); ++i) worst = std::max(worst, std::fabs(run.logits.data[i] - acts.logits[i]));
  CHECK(worst <= 1e-12);
  // layer 1's attention weights, (H, T, T) in both (acts.att is (L, B, H, T, T) with B = 1)
  const std::size_t T = tokens.size(), H = c.n_head;
  double att = 0.0;
  for (std::size_t i = 0; i < H * T * T; ++i) att = std::max(att, std::fabs(run.attention[1].data[i] - acts.att[H * T * T + i]));
  CHECK(att <= 1e-12);
  // RoPE written in rotate_half order instead (no interleave) would not give these logits: the
  // permutation is what makes the file DeepSeek's
  CHECK(max_abs(run.logits) > 0.1);
}

TEST_CASE("MLA checkpoints: what attnlab cannot run is refused with the key named, exit 2 from the CLI", "[checkpoint][mla]") {
  const TempDir a("mla_q"), b("mla_norm"), e("mla_moe");
  CHECK(usage_error([&] { MlaModel m(with_config(a, {{"q_lora_rank", 8}})); }).find("q_lora_rank") != std::string::npos);
  CHECK(usage_error([&] { MlaModel m(with_config(b, {{"attnlab_mla", nullptr}})); }).find("kv_a_layernorm") != std::string::npos);
  CHECK(usage_error([&] {
          MlaModel m(with_config(e, {{"n_routed_experts", 4}, {"num_experts_per_tok", 2}, {"n_shared_experts", 1}}));
        }).find("experts") != std::string::npos);
  CliResult r = run_cli("lesson mha --weights '" + fixture("tiny-mla") + "' --token-ids 1,2,3");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("lesson mla --weights") != std::string::npos);
  r = run_cli("lesson mla --weights '" + fixture("tiny-gpt2") + "' --token-ids 1,2,3");
  CHECK(r.code == 2);
  CHECK(r.err.find("deepseek_v2") != std::string::npos);
  r = run_cli("lesson mla --weights '" + fixture("tiny-mla") + "' --token-ids 1,2,3 --latent-dim 4");
  CHECK(r.code == 2);
  CHECK(r.err.find("--latent-dim") != std::string::npos);
}

TEST_CASE("a trained MLA model: train --save, then lesson mla --weights absorbs exactly, heads, generate and params read it",
          "[checkpoint][mla][train]") {
  const TempDir dir("mla_trained");
  const std::string save = dir.path + "/model";
  CliResult t = run_cli("train --task text --corpus en --attention mla --latent 8 --rope-dim 4 --d-model 32 --heads 2 --layers 2 "
                        "--seq-len 16 --batch 4 --steps 40 --save '" + save + "'");
  REQUIRE(t.code == 0);
  CHECK(t.out.find("DeepSeek-V2") != std::string::npos);
  nlohmann::json cfg = nlohmann::json::parse(read_bytes(save + "/config.json"));
  CHECK(cfg["model_type"] == "deepseek_v2");
  CHECK(cfg["kv_lora_rank"] == 8);
  CHECK(cfg["attnlab_mla"]["kv_a_layernorm"] == false);

  CliResult l = run_cli("lesson mla --weights '" + save + "' --text 'the king said' --layer 2 --json -");
  REQUIRE(l.code == 0);
  const nlohmann::json j = nlohmann::json::parse(l.out);
  const double scores = step_value(j, "absorb_scores_diff"), output = step_value(j, "absorb_output_diff");
  CHECK(scores >= 0);
  CHECK(scores <= 1e-12);
  CHECK(output >= 0);
  CHECK(output <= 1e-12);

  CliResult h = run_cli("heads --weights '" + save + "' --text 'the king'");
  CHECK(h.code == 0);
  CHECK(h.out.find("(MLA)") != std::string::npos);
  CliResult g = run_cli("generate --weights '" + save + "' --text 'the ' --tokens 5 --json -");
  REQUIRE(g.code == 0);
  const nlohmann::json gj = nlohmann::json::parse(g.out);
  CHECK(gj["check"]["max_abs_diff_vs_full_forward"].get<double>() < 1e-12);
  CHECK(gj["cache"]["numbers_per_token_per_layer"] == 12);  // d_c 8 + d_R 4
  CliResult p = run_cli("params --weights '" + save + "'");
  CHECK(p.code == 0);
  CHECK(p.out.find("agree") != std::string::npos);
}

namespace {
std::string shipped(const std::string& rel) { return slurp(std::string(ATTNLAB_SOURCE_DIR) + "/data/trained/" + rel); }
}  // namespace

TEST_CASE("the shipped mla-en is the trade-offs study's MLA run at seed 1, and a retrain reproduces its first 20 steps byte for byte",
          "[checkpoint][mla][slow]") {
  const nlohmann::json c = nlohmann::json::parse(shipped("mla-en/config.json"));
  const nlohmann::json rec = nlohmann::json::parse(shipped("mla-en/training.json"));
  const nlohmann::json study = nlohmann::json::parse(slurp(std::string(ATTNLAB_SOURCE_DIR) + "/data/tradeoffs/results.json"));
  // the study's mla-32 variant, seed 1: the same config, the same held-out loss and evaluations
  nlohmann::json run, variant;
  for (const auto& r : study["runs"])
    if (r["variant"] == "mla-32" && r["seed"] == 1) run = r;
  for (const auto& v : study["variants"])
    if (v["id"] == "mla-32") variant = v;
  REQUIRE(run.is_object());
  REQUIRE(variant.is_object());
  CHECK(c["kv_lora_rank"] == variant["config"]["kv_lora_rank"]);
  CHECK(c["qk_rope_head_dim"] == variant["config"]["rope_dim"]);
  CHECK(c["intermediate_size"] == variant["config"]["d_ff"]);
  CHECK(c["attnlab_train"]["seed"] == 1);
  CHECK(rec["text"]["heldout_loss"].get<double>() == run["heldout_loss"].get<double>());
  REQUIRE(rec["evals"].size() == run["evals"].size());
  for (std::size_t i = 0; i < rec["evals"].size(); ++i) CHECK(rec["evals"][i]["loss"].get<double>() == run["evals"][i][1].get<double>());

  const std::size_t steps = 20;  // inside the warmup: the learning rate does not depend on the run's length
  REQUIRE(steps <= c["attnlab_train"]["warmup"].get<std::size_t>());
  const TempDir dir("mla_retrain");
  const auto& t = c["attnlab_train"];
  const std::string flags = fmt::format(
      "train --task text --corpus en --attention mla --latent {} --rope-dim {} --d-model {} --layers {} --heads {} --seq-len {} "
      "--d-ff {} --batch {} --steps {} --warmup {} --lr {} --seed {} --json '{}/run.json' --quiet",
      c["kv_lora_rank"].get<int>(), c["qk_rope_head_dim"].get<int>(), c["hidden_size"].get<int>(), c["num_hidden_layers"].get<int>(),
      c["num_attention_heads"].get<int>(), c["max_position_embeddings"].get<int>(), c["intermediate_size"].get<int>(),
      t["batch"].get<int>(), steps, t["warmup"].get<int>(), t["lr"].get<double>(), t["seed"].get<int>(), dir.path);
  CliResult r = run_cli(flags);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json got = nlohmann::json::parse(read_bytes(dir.path + "/run.json"));
  REQUIRE(got["loss_curve"].size() == steps);
  for (std::size_t i = 0; i < steps; ++i) {
    INFO("step " << i + 1);
    CHECK(got["loss_curve"][i].get<double>() == rec["loss_curve"][i].get<double>());
  }
}

TEST_CASE("lesson mla --weights mla-en: the shipped trained MLA absorbs to 1e-12, in English and Chinese", "[checkpoint][mla]") {
  for (const char* lang : {"en", "zh"}) {
    INFO(lang);
    const std::string env = "XDG_CACHE_HOME=/tmp/attnlab_mla_cache_" + std::to_string(::getpid()) + " ";
    CliResult r = run_cli(std::string("lesson mla --weights mla-en --text 'And Peter said unto Jesus' --layer 2 --lang ") + lang + " --json -", env);
    INFO(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["config"]["weights"] == "mla-en");
    const double scores = step_value(j, "absorb_scores_diff"), output = step_value(j, "absorb_output_diff");
    CHECK(scores >= 0);
    CHECK(scores <= 1e-12);
    CHECK(output >= 0);
    CHECK(output <= 1e-12);
    CHECK(j["steps"][0]["id"] == "real");
  }
  std::filesystem::remove_all("/tmp/attnlab_mla_cache_" + std::to_string(::getpid()));
}

}  // namespace file_test_checkpoint_mla
