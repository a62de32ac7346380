// lesson induction: the shipped models (data/trained/) meet the targets, read back exactly,
// are what `attnlab train` writes with their recorded flags (the [slow] tests, byte for byte), and
// the lesson's own numbers are those train() records.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "head_scores.h"
#include "model_report.h"
#include "run_cli.h"
#include "trained_gpt.h"
#include "trainer.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_induction {

using namespace attn;

namespace {

const nlohmann::json& value_of(const nlohmann::json& doc, const std::string& name) {
  for (const auto& s : doc["steps"])
    if (s["values"].contains(name)) return s["values"][name];
  FAIL("no value " << name);
  static nlohmann::json none;
  return none;
}

double max_in_layer(const nlohmann::json& t, std::size_t layer) {  // row `layer` (from 0) of an (L, H) tensor of the trace
  const std::size_t H = t["shape"][1].get<std::size_t>();
  double best = -1;
  for (std::size_t i = layer * H; i < (layer + 1) * H; ++i) best = std::max(best, t["data"][i].get<double>());
  return best;
}

std::string data_file(const std::string& rel) { return slurp(std::string(ATTNLAB_SOURCE_DIR) + "/data/trained/" + rel); }

// `attnlab train` flags that reproduce a shipped model, from its config.json.
std::string train_flags(const std::string& name) {
  nlohmann::json c = nlohmann::json::parse(data_file(name + "/config.json"));
  const auto& t = c["attnlab_train"];
  return "train --task " + c["attnlab_task"].get<std::string>() + " --layers " + std::to_string(c["n_layer"].get<int>()) +
         " --heads " + std::to_string(c["n_head"].get<int>()) + " --d-model " + std::to_string(c["n_embd"].get<int>()) +
         " --vocab " + std::to_string(c["vocab_size"].get<int>()) + " --seq-len " + std::to_string(c["n_positions"].get<int>()) +
         (c["attnlab_attention_only"].get<bool>() ? " --no-mlp" : " --mlp") + " --batch " + std::to_string(t["batch"].get<int>()) +
         " --steps " + std::to_string(t["steps"].get<int>()) + " --lr " + t["lr"].dump() + " --warmup " +
         std::to_string(t["warmup"].get<int>()) + " --seed " + std::to_string(t["seed"].get<int>()) + " --dtype " +
         (c["torch_dtype"] == "float64" ? "f64" : "f32");
}

// The first `steps` training losses of a retrain equal the shipped run's, bit for bit. (Warmup, then a
// constant rate: a shorter run takes the same first steps. The full retrain is the README's command.)
void check_reproduces(const std::string& name, std::size_t steps) {
  std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_reproduce_" + name;
  std::filesystem::remove_all(dir);
  std::string flags = train_flags(name);
  flags.replace(flags.find(" --steps ") + 9, flags.find(' ', flags.find(" --steps ") + 9) - flags.find(" --steps ") - 9, std::to_string(steps));
  INFO("attnlab " << flags);
  CliResult r = run_cli(flags + " --threads 2 --save " + dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json got = nlohmann::json::parse(slurp(dir + "/training.json"));
  nlohmann::json want = nlohmann::json::parse(data_file(name + "/training.json"));
  REQUIRE(got["loss_curve"].size() == steps);
  for (std::size_t i = 0; i < steps; ++i) {
    INFO("step " << i + 1);
    CHECK(got["loss_curve"][i].get<double>() == want["loss_curve"][i].get<double>());
  }
  CHECK(got["evals"][0] == want["evals"][0]);  // the untrained model on the evaluation batch
  std::filesystem::remove_all(dir);
}

}  // namespace

TEST_CASE("lesson induction on the shipped models meets the issue's targets", "[induction]") {
  CliResult r = run_cli("lesson induction --json -");
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  const double ln_v = value_of(doc, "ln_vocab").get<double>();
  CHECK(ln_v == Approx(std::log(32.0)).epsilon(1e-15));
  const auto& T = doc["tensors"];
  CHECK(T["loss_curve"]["shape"] == nlohmann::json::array({doc["config"]["steps"]}));
  for (const char* s : {"prev_token_score", "first_token_score", "self_score", "induction_score"})
    CHECK(T[s]["shape"] == nlohmann::json::array({2, 4}));
  const double loss = value_of(doc, "loss_repeated_half").get<double>();
  const double ablated = value_of(doc, "loss_repeated_half_ablated").get<double>();
  CHECK(loss <= 0.3 * ln_v);
  CHECK(ablated > 0.5 * ln_v);          // zeroing the induction head undoes the drop
  CHECK(max_in_layer(T["induction_score"], 1) >= 0.5);  // layer 2
  CHECK(max_in_layer(T["prev_token_score"], 0) >= 0.4);  // layer 1
  CHECK(value_of(doc, "best_prev_token_score").get<double>() >= 0.4);
  CHECK(value_of(doc, "prev_token_layer") == 1);
  CHECK(value_of(doc, "induction_layer") == 2);
  CHECK(value_of(doc, "drop_step").get<int>() > 0);
  // the shortcut: one positional head, low induction on random offsets, lost when the repeat moves
  CHECK(value_of(doc, "shortcut_best_offset_score").get<double>() >= 0.5);
  CHECK(value_of(doc, "shortcut_best_induction_score").get<double>() < 0.3);
  CHECK(value_of(doc, "shortcut_loss_fixed").get<double>() < 0.3 * ln_v);
  CHECK(value_of(doc, "shortcut_loss_random").get<double>() > 0.5 * ln_v);
}

TEST_CASE("lesson induction's text step: the text model's heads on a verse, as numpy computes them", "[induction]") {
  CliResult r = run_cli("lesson induction --json -");
  REQUIRE(r.code == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/data/trained/induction-text";
  const std::string verse = "Then Eli called Samuel, and said, Samuel, my son.";
  const std::string out = std::filesystem::temp_directory_path().string() + "/attnlab_induction_text_" + std::to_string(::getpid()) + ".json";
  const std::string cmd = "/usr/bin/python3 '" + std::string(ATTNLAB_TEST_DIR) + "/golden/induction_text_scores.py' '" + dir +
                          "' '" + verse + "' > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const nlohmann::json g = nlohmann::json::parse(slurp(out));
  std::filesystem::remove(out);
  const auto& T = doc["tensors"];
  const std::size_t L = 2, H = 4, n = verse.size();
  REQUIRE(T["text_induction_score"]["shape"] == nlohmann::json::array({L, H}));
  double best = -1;
  std::size_t bl = 0, bh = 0;
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      const double got = T["text_induction_score"]["data"][l * H + h].get<double>();
      CHECK(got == Approx(g["scores"][l][h].get<double>()).margin(1e-12));
      if (l >= 1 && got > best) best = got, bl = l, bh = h;
    }
  // the heatmap is the best layer-2 head's, every weight as numpy's
  REQUIRE(T["text_attention"]["shape"] == nlohmann::json::array({n, n}));
  for (std::size_t q = 0; q < n; ++q)
    for (std::size_t k = 0; k < n; ++k)
      CHECK(T["text_attention"]["data"][q * n + k].get<double>() == Approx(g["attention"][bl][bh][q][k].get<double>()).margin(1e-12));
  // the rule heads uses names it, and zeroing it costs the copy
  const double even = value_of(doc, "text_even_share").get<double>(), threshold = value_of(doc, "text_threshold").get<double>();
  CHECK(threshold == std::max(0.3, 3 * even));
  CHECK(best >= threshold);
  CHECK(value_of(doc, "text_repeat_loss_best_zeroed").get<double>() > 2 * value_of(doc, "text_repeat_loss").get<double>());
  CliResult text = run_cli("lesson induction --step text");
  REQUIRE(text.code == 0);
  CHECK(text.out.find(fmt::format("Layer {} head {} puts {:.3f} of its attention there", bl + 1, bh + 1, best)) != std::string::npos);
  CliResult zh = run_cli("lesson induction --step text --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(zh.out.find(fmt::format("第 {} 层第 {} 个头把 {:.3f} 的注意力放在那里", bl + 1, bh + 1, best)) != std::string::npos);
}

TEST_CASE("pair_repeat_targets: the position after the latest earlier occurrence of the same pair", "[induction]") {
  // a b c a b d a b: t = 4 (b after a) → 2 (c); t = 7 (b after a) → 5 (d, the latest)
  const std::vector<long> want{-1, -1, -1, -1, 2, -1, -1, 5};
  CHECK(train::pair_repeat_targets({0, 1, 2, 0, 1, 3, 0, 1}) == want);
  // a single repeated character is not a pair (a a a), and the previous token is never the target (a b a b)
  CHECK(train::pair_repeat_targets({0, 0, 0}) == std::vector<long>{-1, -1, -1});
  CHECK(train::pair_repeat_targets({0, 1, 0, 1}) == std::vector<long>{-1, -1, -1, -1});
  CHECK(train::pair_repeat_targets({0, 1, 0, 1, 0}) == std::vector<long>{-1, -1, -1, -1, -1});
  // attention all on the targets scores 1, the even spread is the mean of 1/(t + 1) over those rows
  Tensor att({1, 1, 8, 8});
  att.data[(4 * 8) + 2] = 1.0, att.data[(7 * 8) + 5] = 1.0;
  double even = 0;
  const Tensor s = train::pair_induction_scores(att, want, &even);
  CHECK(s(0, 0) == 1.0);
  CHECK(even == (1.0 / 5 + 1.0 / 8) / 2);
}

TEST_CASE("lesson induction: options that need --retrain are refused by name", "[induction]") {
  for (const char* args : {"lesson induction --steps 10", "lesson induction --seed 7", "lesson induction --retrain --steps 0",
                           "lesson induction --retrain --steps 99999999"}) {
    INFO(args);
    CliResult r = run_cli(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(std::string(args).find("--seed") != std::string::npos ? "--seed" : "--steps") != std::string::npos);
    CHECK(r.err.find('\n') == r.err.size() - 1);
  }
}

TEST_CASE("lesson induction --retrain trains both models live", "[induction]") {
  // Three steps (a second or two): the recipe is the shipped one, so the lesson runs whole.
  CliResult r = run_cli("lesson induction --retrain --steps 3 --seed 5 --json -");
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc["tensors"]["loss_curve"]["shape"] == nlohmann::json::array({3}));
  CHECK(doc["config"]["seed"] == 5);
  CHECK(doc["config"]["retrain"] == true);
}

TEST_CASE("a model read back from train --save is the trained model, and its report is train()'s last evaluation", "[induction]") {
  // train() in process, and the CLI with the same flags writing f64: the weights read back are
  // the same bits, the loss curve the same numbers, and analyse_model() on the evaluation batch
  // gives exactly the losses, scores and ablation train() recorded.
  train::TrainConfig c;
  c.model = {12, 10, 8, 2, 2, false};
  c.batch = 4, c.steps = 6, c.warmup = 2;
  c.eval_every = 1;  // steps / 40, at least 1: the CLI's rule
  train::TrainResult tr = train::train(c);
  std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_readback";
  std::filesystem::remove_all(dir);
  CliResult r = run_cli("train --layers 2 --heads 2 --d-model 8 --vocab 12 --seq-len 10 --batch 4 --steps 6 --warmup 2 "
                        "--dtype f64 --save " + dir);
  REQUIRE(r.code == 0);
  TrainedGpt t = read_trained_gpt(slurp(dir + "/config.json"), slurp(dir + "/model.safetensors"), slurp(dir + "/training.json"), dir);
  CHECK(t.model.params == tr.model.params);
  CHECK(t.loss_curve == tr.loss_curve);
  REQUIRE(t.evals.size() == tr.evals.size());
  CHECK(t.evals.back().repeat_loss == tr.evals.back().repeat_loss);
  CHECK(t.task == "induction");
  CHECK(t.steps == 6);
  CHECK(t.warmup == 2);
  train::ModelReport m = train::analyse_model(t.model, train::evaluation_batch(c));
  const train::Evaluation& last = tr.evals.back();
  CHECK(m.loss == last.loss);
  CHECK(m.repeat_loss == last.repeat_loss);
  CHECK(m.scores.prev_token.data == last.scores.prev_token.data);
  CHECK(m.scores.induction.data == last.scores.induction.data);
  CHECK(m.attention.data == tr.final_attention.data);
  CHECK(m.ablated == tr.ablated);
  CHECK(m.repeat_loss_ablated == tr.repeat_loss_ablated);
  // F32 weights read back as the floats written
  std::filesystem::remove_all(dir);
  REQUIRE(run_cli("train --layers 2 --heads 2 --d-model 8 --vocab 12 --seq-len 10 --batch 4 --steps 6 --warmup 2 --save " + dir).code == 0);
  TrainedGpt f = read_trained_gpt(slurp(dir + "/config.json"), slurp(dir + "/model.safetensors"), slurp(dir + "/training.json"), dir);
  for (std::size_t i = 0; i < f.model.params.size(); ++i)
    if (f.model.params[i] != static_cast<double>(static_cast<float>(tr.model.params[i]))) FAIL("parameter " << i);
  CHECK(f.model.params.size() == tr.model.params.size());
  std::filesystem::remove_all(dir);
}

TEST_CASE("repeat spans and offset scores on hand-built sequences", "[induction]") {
  // Sequence: prefix [7], first copy [1 2 3], second copy [1 2 3], filler [9]: T = 8.
  // repeat_targets are set at t = 4, 5 (predicting x5 = 2, x6 = 3): second = 4, length = 2 + 1 = 3, first = 1.
  train::Batch b;
  b.B = 1, b.T = 8;
  b.tokens = {7, 1, 2, 3, 1, 2, 3, 9};
  b.targets = {1, 2, 3, 1, 2, 3, 9, -1};
  b.repeat_targets = {-1, -1, -1, -1, 2, 3, -1, -1};
  train::RepeatSpan s = train::repeat_span(b, 0);
  CHECK(s.first == 1);
  CHECK(s.second == 4);
  CHECK(s.length == 3);
  // Offset k = 2 on a (4, 4) pattern: rows 2 and 3 count; w(2, 0) = 0.5, w(3, 1) = 0.75 -> sum 1.25, n 2.
  Tensor w({4, 4});
  w(0, 0) = 1;
  w(1, 0) = 0.5, w(1, 1) = 0.5;
  w(2, 0) = 0.5, w(2, 2) = 0.5;
  w(3, 1) = 0.75, w(3, 2) = 0.25;
  double sum = 0;
  std::size_t n = 0;
  train::add_offset_score(w, 2, sum, n);
  CHECK(n == 2);
  CHECK(sum == 1.25);
  // The same pattern's head sums over rows 1 … 3: prev = w(1,0) + w(2,1) + w(3,2) = 0.5 + 0 + 0.25,
  // first = 0.5 + 0.5 + 0, self = 0.5 + 0.5 + 0; tokens 4 1 4 1: row 2 (token 4) last saw 4 at j = 0
  // -> w(2, 1) = 0; row 3 (token 1) saw 1 at j = 1 -> w(3, 2) = 0.25: induction 0.25 over 2 rows.
  std::vector<int> tokens = {4, 1, 4, 1};
  train::ScoreSums ss;
  train::add_head_scores(w, tokens.data(), ss);
  CHECK(ss.n_rows == 3);
  CHECK(ss.prev == 0.75);
  CHECK(ss.first == 1.0);
  CHECK(ss.self == 1.0);
  CHECK(ss.n_induction == 2);
  CHECK(ss.induction == 0.25);
}

TEST_CASE("the first 100 steps of the shipped induction run are reproduced exactly by a short attnlab train", "[induction]") {
  // The schedule is linear warmup then a constant rate (no decay), so a run cut at 100 steps takes the
  // same first 100 steps as the shipped 4,000-step one: its loss curve must equal the shipped curve's
  // first 100 numbers bit for bit (the full byte-for-byte check is the [slow] test below).
  std::string flags = train_flags("induction");
  const std::string steps = " --steps " + std::to_string(nlohmann::json::parse(data_file("induction/config.json"))["attnlab_train"]["steps"].get<int>());
  REQUIRE(flags.find(steps) != std::string::npos);
  flags.replace(flags.find(steps), steps.size(), " --steps 100");
  std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_prefix";
  std::filesystem::remove_all(dir);
  CliResult r = run_cli(flags + " --save " + dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json got = nlohmann::json::parse(slurp(dir + "/training.json"));
  nlohmann::json want = nlohmann::json::parse(data_file("induction/training.json"));
  REQUIRE(got["loss_curve"].size() == 100);
  std::size_t same = 0;
  for (std::size_t i = 0; i < 100; ++i) same += got["loss_curve"][i].get<double>() == want["loss_curve"][i].get<double>() ? 1 : 0;
  CHECK(same == 100);
  std::filesystem::remove_all(dir);
}

TEST_CASE("attnlab train reproduces the shipped repeat-half model's first 300 steps byte for byte", "[induction][slow]") {
  check_reproduces("repeat-half", 300);
}

TEST_CASE("attnlab train reproduces the shipped induction model's first 300 steps byte for byte", "[induction][slow]") {
  check_reproduces("induction", 300);
}

}  // namespace file_test_induction
