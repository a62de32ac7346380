// lesson attention, block and kv-memory with --weights: the tensors they show are the real ones,
// checked against the golden PyTorch forwards (tests/golden/gen_checkpoint.py, gen_llama_forward.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "gpt2.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_real_lessons {

using namespace attn;
using namespace ckpt_test;

namespace {

nlohmann::json golden(const std::string& file) {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/" + file);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

std::vector<double> flat(const nlohmann::json& j) {
  std::vector<double> out;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& x) {
    if (x.is_array())
      for (const auto& y : x) walk(y);
    else
      out.push_back(x.is_null() ? -INFINITY : x.get<double>());
  };
  walk(j);
  return out;
}

double max_diff(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<double> x = flat(a), y = flat(b);
  REQUIRE(x.size() == y.size());
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(x[i] - y[i]));
  return m;
}

std::string id_list(const nlohmann::json& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ",") + std::to_string(id.get<int>());
  return s;
}

nlohmann::json lesson_json(const std::string& args) {
  CliResult r = run_cli(args + " --json -");
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

double value(const nlohmann::json& trace, const std::string& name) {
  for (const auto& s : trace["steps"])
    if (s.contains("values") && s["values"].contains(name)) return s["values"][name].get<double>();
  FAIL("no value " << name);
  return 0;
}

}  // namespace

TEST_CASE("lesson attention --weights shows one real head, counted from 1 with the tensor index beside", "[checkpoint][cli][golden]") {
  nlohmann::json g = golden("checkpoint_gpt2.json");
  std::string ids = id_list(g["token_ids"]);
  // Layer 2, head 3 (L1H2): the golden attention[1][2].
  nlohmann::json t = lesson_json("lesson attention --weights " + fixture("tiny-gpt2") + " --layer 2 --head 3 --token-ids " + ids);
  CHECK(t["tensors"]["weights"]["shape"] == std::vector<int>{10, 10});
  CHECK(max_diff(t["tensors"]["weights"]["data"], g["attention"][1][2]) < 1e-9);
  CHECK(value(t, "forward_check") < 1e-12);
  CHECK(t["config"]["causal"] == true);  // without --causal
  CHECK(t["config"]["head"] == 3);
  CHECK(t["config"]["layer"] == 2);
  // A Llama layer with GQA and RoPE: layer 3, head 4 (L2H3) reads KV head 1.
  nlohmann::json gl = golden("checkpoint_llama.json")["tiny-llama"];
  nlohmann::json l = lesson_json("lesson attention --weights " + fixture("tiny-llama") + " --layer 3 --head 4 --token-ids " +
                                 id_list(gl["token_ids"]));
  CHECK(max_diff(l["tensors"]["weights"]["data"], gl["attention"][2][3]) < 1e-9);
  CliResult zh = run_cli("lesson attention --weights " + fixture("tiny-gpt2") + " --head 2 --token-ids 1,2,3 --lang zh");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("第 1 层的第 2 个头") != std::string::npos);
  CHECK(zh.out.find("L0H1") != std::string::npos);
  for (const char* bad : {" --head 5 --token-ids 1,2", " --head 0 --token-ids 1,2", " --layer 3 --token-ids 1,2",
                          " --head-dim 4 --token-ids 1,2", " --token-ids 1,99"}) {
    CliResult e = run_cli("lesson attention --weights " + fixture("tiny-gpt2") + bad);
    INFO(bad << "\n" << e.err);
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
  CHECK(run_cli("lesson attention --head 2").code == 2);  // --head needs --weights
}

TEST_CASE("lesson block --weights is a real GPT-2 layer: its input and output are the golden residuals", "[checkpoint][cli][golden]") {
  nlohmann::json g = golden("checkpoint_gpt2.json");
  std::string ids = id_list(g["token_ids"]);
  for (int layer : {0, 1}) {
    INFO("layer " << layer);
    nlohmann::json t = lesson_json("lesson block --weights " + fixture("tiny-gpt2") + " --layer " + std::to_string(layer + 1) + " --token-ids " + ids);  // --layer counts from 1
    CHECK(max_diff(t["tensors"]["X"]["data"], g["residuals"][layer]) < 1e-9);
    CHECK(max_diff(t["tensors"]["output"]["data"], g["residuals"][layer + 1]) < 1e-9);
    CHECK(max_diff(t["tensors"]["attn_weights"]["data"], g["attention"][layer]) < 1e-9);
    CHECK(value(t, "resid1_check") < 1e-12);
    CHECK(t["config"]["causal"] == true);
  }
  CliResult zh = run_cli("lesson block --weights " + fixture("tiny-gpt2") + " --token-ids 1,2,3 --lang zh");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("真实的块") != std::string::npos);
  for (const std::string& bad : {"lesson block --weights " + fixture("tiny-llama") + " --token-ids 1,2",
                                 "lesson block --weights " + fixture("tiny-gpt2") + " --token-ids 1,2 --d-ff 8",
                                 std::string("lesson block --layer 2")}) {
    CliResult e = run_cli(bad);
    INFO(bad << "\n" << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
}

TEST_CASE("lesson kv-memory --weights reads a real GPT-2 MLP as keys and values", "[checkpoint][cli]") {
  std::vector<std::int64_t> ids{5, 17, 3, 42};
  nlohmann::json t = lesson_json("lesson kv-memory --weights " + fixture("tiny-gpt2") + " --layer 2 --top-k 3 --token-ids 5,17,3,42");
  Gpt2Model m(fixture("tiny-gpt2"));
  Gpt2LayerPass p = gpt2_layer_pass(m, ids, 1);  // checked against the golden forward in test_checkpoint.cpp
  std::vector<double> x = t["tensors"]["x"]["data"].get<std::vector<double>>();
  std::vector<double> y = t["tensors"]["y"]["data"].get<std::vector<double>>();
  REQUIRE(x.size() == 16);
  REQUIRE(y.size() == 16);
  for (std::size_t c = 0; c < 16; ++c) {
    CHECK(x[c] == p.ln2.out(3, c));
    CHECK(std::fabs(y[c] - p.ffn.y(3, c)) < 1e-12);
  }
  CHECK(value(t, "forward_check") < 1e-12);
  CHECK(value(t, "sum_check") < 1e-12);
  // The top keys are the largest activations, and their contribution rows are activation · row of W_2.
  std::vector<double> act = t["tensors"]["activation"]["data"].get<std::vector<double>>();
  std::vector<double> top = t["tensors"]["real_top_keys"]["data"].get<std::vector<double>>();
  REQUIRE(top.size() == 3);
  for (double a : act) CHECK(a <= act[static_cast<std::size_t>(top[0])]);
  auto j0 = static_cast<std::size_t>(top[0]);
  std::vector<double> W_2 = t["tensors"]["W_2"]["data"].get<std::vector<double>>();
  std::vector<double> rows = t["tensors"]["top_contributions"]["data"].get<std::vector<double>>();
  for (std::size_t c = 0; c < 16; ++c) CHECK(rows[c] == act[j0] * W_2[j0 * 16 + c]);
  CliResult zh = run_cli("lesson kv-memory --weights " + fixture("tiny-gpt2") + " --token-ids 1,2,3 --lang zh");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("真实的记忆") != std::string::npos);
  for (const std::string& bad : {"lesson kv-memory --weights " + fixture("tiny-qwen2") + " --token-ids 1,2",
                                 "lesson kv-memory --weights " + fixture("tiny-gpt2") + " --token-ids 1,2 --top-k 65",
                                 "lesson kv-memory --weights " + fixture("tiny-gpt2") + " --token-ids 1,2 --x 1,2",
                                 std::string("lesson kv-memory --token-ids 1,2")}) {
    CliResult e = run_cli(bad);
    INFO(bad << "\n" << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
}

}  // namespace file_test_real_lessons
