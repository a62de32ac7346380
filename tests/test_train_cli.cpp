// attnlab train as a user runs it: a tiny run, its bytes for every --threads, the JSON trace, the
// Hugging Face checkpoint read back by a Python script (json + numpy) and the usage errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "gpt.h"
#include "head_roles.h"
#include "run_cli.h"
#include "trainer.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_train_cli {

using namespace attn;

namespace {
// A tiny configuration: runs in well under a second.
const std::string kTiny = "train --layers 2 --heads 2 --d-model 8 --vocab 12 --seq-len 10 --batch 4 --steps 12 --warmup 3";

train::TrainConfig tiny_config(bool mlp) {
  train::TrainConfig c;
  c.model = {12, 10, 8, 2, 2, mlp};
  c.batch = 4, c.steps = 12, c.warmup = 3, c.eval_every = 1;
  return c;
}
}  // namespace

TEST_CASE("train: a tiny run prints the loss curve and the heads, the same bytes for every thread count") {
  CliResult one = run_cli(kTiny + " --threads 1");
  CliResult two = run_cli(kTiny + " --threads 2");
  REQUIRE(one.code == 0);
  CHECK(one.err.empty());  // no progress bar when stderr is not a terminal
  CHECK(one.out == two.out);
  CHECK(one.out.find("Training a GPT-2 on the induction task") != std::string::npos);
  CHECK(one.out.find("attention only: ") != std::string::npos);
  // A head is called an induction head only by heads' rule (head_roles.h); twelve steps grow none.
  const train::TrainResult t = train::train(tiny_config(false));
  const Tensor& ind = t.evals.back().scores.induction;
  // heads' rule for a text of T/2 = 5 tokens repeated: at least 0.30 and 3× an even spread over the second copy
  const double best = std::max(ind(1, 0), ind(1, 1)), threshold = std::max(0.3, 3 * (1.0 / 6 + 1.0 / 7 + 1.0 / 8 + 1.0 / 9 + 1.0 / 10) / 5);
  CHECK(threshold == Approx(role_threshold(even_share(10, 5))).epsilon(1e-15));
  CHECK(best < threshold);
  CHECK(one.out.find("Induction head: layer 2") == std::string::npos);
  CHECK(one.out.find(fmt::format("No induction head: the best score, layer 2 head {}'s {:.3f}, is under the {:.3f} that names one.",
                                 ind(1, 0) >= ind(1, 1) ? 1 : 2, best, threshold)) != std::string::npos);
  CHECK(one.out.find("The two heads on one held-out sequence") != std::string::npos);
  CliResult zh = run_cli(kTiny + " --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(zh.out.find(fmt::format("没有归纳头：最高分是第 2 层第 {} 个头的 {:.3f}，低于认定所需的 {:.3f}。", ind(1, 0) >= ind(1, 1) ? 1 : 2,
                                best, threshold)) != std::string::npos);
}

TEST_CASE("train --json: the loss curve and head scores of the run, as the trainer computes them") {
  for (bool mlp : {true, false}) {
    CliResult r = run_cli(kTiny + (mlp ? " --mlp" : " --no-mlp") + " --json -");
    REQUIRE(r.code == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    train::TrainResult t = train::train(tiny_config(mlp));
    CHECK(j["config"]["mlp"] == mlp);
    CHECK(j["config"]["parameters"] == t.model.layout.total);
    CHECK(j["loss_curve"].get<std::vector<double>>() == t.loss_curve);
    CHECK(j["evals"].size() == t.evals.size());
    CHECK(j["induction_score"][1][0].get<double>() == t.evals.back().scores.induction(1, 0));
    CHECK(j["values"]["ln_vocab"].get<double>() == std::log(12.0));
    CHECK(j["values"]["loss_repeated_half_ablated"].get<double>() == t.repeat_loss_ablated);
    REQUIRE(j["values"]["ablated_heads"].size() == t.ablated.size());
    CHECK(j["attention_final"]["shape"] == nlohmann::json::array({2, 2, 10, 10}));
    CHECK(j["attention_final"]["data"].get<std::vector<double>>() == t.final_attention.data);
    CHECK(j["pattern_tokens"].get<std::vector<int>>() == t.pattern_tokens);
    CHECK(j["values"]["ablated_heads"][0][0] == t.ablated[0].first + 1);
  }
}

TEST_CASE("train --save writes a GPT-2 checkpoint that json + numpy read back with the same numbers") {
  namespace fs = std::filesystem;
  for (bool mlp : {true, false})
    for (std::string dtype : {"f64", "f32"}) {
      INFO("mlp " << mlp << " dtype " << dtype);
      fs::path dir = fs::temp_directory_path() / ("attnlab_train_save_" + std::to_string(::getpid()) + dtype + (mlp ? "m" : "a"));
      fs::remove_all(dir);
      CliResult r = run_cli(kTiny + (mlp ? " --mlp" : " --no-mlp") + " --dtype " + dtype + " --save '" + dir.string() + "/ckpt'");
      REQUIRE(r.code == 0);
      CHECK(r.out.find("config.json, model.safetensors, training.json.") != std::string::npos);
      std::vector<int> tokens = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
      std::string cmd = "/usr/bin/python3 '" + std::string(ATTNLAB_TEST_DIR) + "/golden/read_train_checkpoint.py' '" +
                        (dir / "ckpt").string() + "' 3,1,4,1,5,9,2,6,5,3 > '" + (dir / "read.json").string() + "'";
      REQUIRE(std::system(cmd.c_str()) == 0);
      nlohmann::json got = nlohmann::json::parse(slurp((dir / "read.json").string()));
      const auto& cfg = got["config"];
      CHECK(cfg["model_type"] == "gpt2");
      CHECK(cfg["n_layer"] == 2);
      CHECK(cfg["n_head"] == 2);
      CHECK(cfg["n_embd"] == 8);
      CHECK(cfg["n_positions"] == 10);
      CHECK(cfg["vocab_size"] == 12);
      CHECK(cfg["attnlab_attention_only"] == !mlp);
      CHECK(got["metadata"]["format"] == "pt");
      train::TrainConfig tc = tiny_config(mlp);
      if (dtype == "f32") tc.compute = train::Precision::F32;  // --dtype f32 trains in float32 too
      train::TrainResult t = train::train(tc);
      REQUIRE(got["tensors"].size() == t.model.layout.tensors.size());
      CHECK(got["tensors"].contains("h.1.attn.c_attn.weight"));
      CHECK(got["tensors"].contains("h.0.mlp.c_fc.weight") == mlp);
      CHECK(got["tensors"]["h.0.attn.c_attn.weight"]["shape"] == nlohmann::json::array({8, 24}));
      double worst = 0.0;
      for (const gpt::ParamTensor& p : t.model.layout.tensors) {
        const auto& g = got["tensors"][p.name];
        REQUIRE(g["shape"].get<Shape>() == p.shape);
        CHECK(g["dtype"] == (dtype == "f64" ? "F64" : "F32"));
        for (std::size_t i = 0; i < p.size; ++i) {
          double mine = t.model.params[p.offset + i];
          if (dtype == "f32") mine = static_cast<double>(static_cast<float>(mine));
          worst = std::max(worst, std::fabs(g["data"][i].get<double>() - mine));
        }
      }
      CHECK(worst == 0.0);
      if (dtype == "f64") {  // numpy's GPT-2 forward on the read weights = ours
        gpt::GptActs a;
        gpt::gpt_forward(t.model, tokens.data(), nullptr, 1, tokens.size(), a);
        double worst_logit = 0.0;
        for (std::size_t i = 0; i < tokens.size(); ++i)
          for (std::size_t v = 0; v < 12; ++v)
            worst_logit = std::max(worst_logit, std::fabs(got["logits"][i][v].get<double>() - a.logits[i * 12 + v]));
        CHECK(worst_logit < 1e-12);
        // generate (the KV-cache path, attention-only blocks included) picks numpy's argmax of the
        // logits after the prompt 3,1,4,1,5, with numpy's logit
        CliResult gen = run_cli("generate --weights '" + (dir / "ckpt").string() + "' --token-ids 3,1,4,1,5 --tokens 1 --json -");
        REQUIRE(gen.code == 0);
        nlohmann::json step = nlohmann::json::parse(gen.out)["steps"][0];
        const auto& row = got["logits"][4];
        std::size_t best = 0;
        for (std::size_t v = 1; v < 12; ++v)
          if (row[v].get<double>() > row[best].get<double>()) best = v;
        CHECK(step["id"] == best);
        CHECK(std::fabs(step["logit"].get<double>() - row[best].get<double>()) < 1e-12);
        // the lessons that show an MLP refuse an attention-only checkpoint in one line
        for (const char* lesson : {"block", "kv-memory", "ffn"}) {
          CliResult l = run_cli(std::string("lesson ") + lesson + " --weights '" + (dir / "ckpt").string() + "' --token-ids 3,1,4");
          INFO(lesson << ": " << l.err);
          CHECK(l.code == (mlp ? 0 : 2));
          if (!mlp) CHECK(l.err.find("attention-only") != std::string::npos);
        }
      }
      fs::remove_all(dir);
    }
}

TEST_CASE("train: bad values are one line on stderr naming the flag, exit 2, nothing on stdout") {
  struct Case {
    const char* args;
    const char* says;
  };
  for (const Case& c : {Case{"--task nosuch", "--task: unknown task 'nosuch'; the tasks are: induction, repeat-half"},
                        Case{"--layers 0", "--layers must be a positive integer"},
                        Case{"--heads 3", "--d-model 64 must be divisible by --heads 3"},
                        Case{"--lr 0", "--lr must be more than 0"}, Case{"--lr nan", "--lr"},
                        Case{"--lr 2", "at most 1"}, Case{"--vocab 10", "--vocab 10 is too small for the induction task"},
                        Case{"--seq-len 4", "--seq-len 4 is too short"}, Case{"--seed -1", "--seed"},
                        Case{"--threads 0", "--threads"}, Case{"--dtype bf16", "--dtype: 'bf16' is not one of f32, f64"},
                        Case{"--steps 1000000", "reduce --steps"}, Case{"--batch 100000 --steps 1", "reduce --batch"},
                        Case{"--steps x", "--steps"}, Case{"--warmup -1", "--warmup"}, Case{"--mlp --no-mlp", "--mlp and --no-mlp contradict"},
                        Case{"--steps 1 --batch 1 --save /proc/nope/x", "--save: cannot write '/proc/nope/x': the folder '/proc/nope' does not exist"}}) {
    CliResult r = run_cli(std::string("train ") + c.args);
    INFO("train " << c.args << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("train --dtype f32: the same bytes for 1, 2 and 3 threads, a checkpoint heads and generate read") {
  namespace fs = std::filesystem;
  // wide enough (batch 16 x 16 positions, d_model 32, the MLP) that the matmuls run on several threads
  const std::string flags = "train --layers 2 --heads 4 --d-model 32 --vocab 16 --seq-len 16 --batch 16 --steps 8 --warmup 2 --mlp --dtype f32";
  const fs::path base = fs::temp_directory_path() / ("attnlab_train_f32_" + std::to_string(::getpid()));
  fs::remove_all(base);
  std::vector<CliResult> runs;
  for (int threads : {1, 2, 3}) {
    runs.push_back(run_cli(flags + " --threads " + std::to_string(threads) + " --save '" + (base / std::to_string(threads)).string() + "'"));
    INFO("threads " << threads << ": " << runs.back().err);
    REQUIRE(runs.back().code == 0);
  }
  CHECK(runs[0].out.find("computed in float32") != std::string::npos);
  for (const char* file : {"model.safetensors", "training.json", "config.json"})
    for (int threads : {2, 3}) {
      INFO(file << " threads " << threads);
      CHECK(slurp((base / std::to_string(threads) / file).string()) == slurp((base / "1" / file).string()));
    }
  auto report = [](const CliResult& r) { return r.out.substr(0, r.out.find("Saved a GPT-2 checkpoint to")); };  // the folders differ
  CHECK(report(runs[1]) == report(runs[0]));
  CHECK(report(runs[2]) == report(runs[0]));
  nlohmann::json cfg = nlohmann::json::parse(slurp((base / "1" / "config.json").string()));
  CHECK(cfg["attnlab_train"]["compute"] == "f32");
  CHECK(cfg["torch_dtype"] == "float32");
  // not the f64 run: its loss curve differs (and f64 writes no "compute" key, as before the flag)
  CliResult f64 = run_cli("train --layers 2 --heads 4 --d-model 32 --vocab 16 --seq-len 16 --batch 16 --steps 8 --warmup 2 --mlp --save '" +
                          (base / "f64").string() + "'");
  REQUIRE(f64.code == 0);
  CHECK(f64.out.find("float32") == std::string::npos);
  CHECK(slurp((base / "f64" / "training.json").string()) != slurp((base / "1" / "training.json").string()));
  CHECK_FALSE(nlohmann::json::parse(slurp((base / "f64" / "config.json").string()))["attnlab_train"].contains("compute"));
  CliResult h = run_cli("heads --weights '" + (base / "1").string() + "' --token-ids 1,2,3,4,1,2,3,4 --json -");
  INFO(h.err);
  CHECK(h.code == 0);
  CHECK(h.out.find("\"scores\"") != std::string::npos);
  CliResult g = run_cli("generate --weights '" + (base / "1").string() + "' --token-ids 3,1,4,1,5 --tokens 3 --json -");
  INFO(g.err);
  CHECK(g.code == 0);
  CHECK(nlohmann::json::parse(g.out)["steps"].size() == 3);
  fs::remove_all(base);
}

TEST_CASE("train --dtype: a bad value, or f32 with a variant, is one line on stderr, exit 2") {
  for (const auto& [args, says] : {std::pair<std::string, std::string>{"--dtype bf16", "--dtype: 'bf16' is not one of f32, f64"},
                                   {"--dtype f32 --task text --attention gqa --kv-heads 2", "--dtype f32 trains the GPT-2 only"},
                                   {"--dtype f32 --study tradeoffs", "--dtype: train --study runs its own fixed settings and does not use this flag"}}) {
    CliResult r = run_cli("train " + args);
    INFO("train " << args << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(says) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

}  // namespace file_test_train_cli
