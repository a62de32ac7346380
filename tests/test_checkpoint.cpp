// Real checkpoints: the safetensors reader (good files and files corrupted on purpose), --weights
// resolution in the Hugging Face cache, the GPT-2 forward against the golden PyTorch forward
// (tests/golden/gen_checkpoint.py), head role scores, and `attnlab heads`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "gpt2.h"
#include "head_roles.h"
#include "locate.h"
#include "run_cli.h"
#include "safetensors.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_checkpoint {

using namespace attn;
using namespace ckpt_test;
namespace fs = std::filesystem;

namespace {

double max_diff_json(const Tensor& t, const nlohmann::json& j) {
  // j: nested lists of t's shape
  std::vector<double> flat;
  std::vector<const nlohmann::json*> stack{&j};
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
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/checkpoint_gpt2.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// A copy of tiny-gpt2 whose model.safetensors is `bytes`.
std::string model_with(const TempDir& d, const std::string& bytes) {
  fs::copy_file(fixture("tiny-gpt2/config.json"), d.path + "/config.json");
  write_bytes(d.path + "/model.safetensors", bytes);
  return d.path;
}

std::string load_error(const std::string& folder) {
  return usage_error([&] { Gpt2Model m(folder); });
}

}  // namespace

TEST_CASE("GPT-2 forward on a tiny checkpoint matches the PyTorch golden to 1e-9", "[checkpoint][golden]") {
  nlohmann::json g = golden();
  std::vector<std::int64_t> ids = g["token_ids"].get<std::vector<std::int64_t>>();
  for (const char* name : {"tiny-gpt2", "tiny-gpt2-sharded"}) {
    INFO(name);
    Gpt2Model m(fixture(name));
    CHECK(m.config().l == 2);
    CHECK(m.config().n_h == 4);
    Gpt2Run r = gpt2_forward(m, ids, true);
    REQUIRE(r.residuals.size() == 3);
    for (std::size_t i = 0; i < r.residuals.size(); ++i) CHECK(max_diff_json(r.residuals[i], g["residuals"][i]) < 1e-9);
    for (std::size_t i = 0; i < r.attention.size(); ++i) CHECK(max_diff_json(r.attention[i], g["attention"][i]) < 1e-9);
    CHECK(r.logits.shape == Shape{ids.size(), 64});
    CHECK(max_diff_json(r.logits, g["logits"]) < 1e-9);
  }
}

TEST_CASE("one layer's pass equals the same layer inside the full forward", "[checkpoint]") {
  nlohmann::json g = golden();
  std::vector<std::int64_t> ids = g["token_ids"].get<std::vector<std::int64_t>>();
  Gpt2Model m(fixture("tiny-gpt2"));
  Gpt2LayerPass p = gpt2_layer_pass(m, ids, 1);
  CHECK(max_diff_json(p.x_in, g["residuals"][1]) < 1e-9);
  CHECK(max_diff_json(p.attn.weights, g["attention"][1]) < 1e-9);
  CHECK(max_diff_json(p.x_out, g["residuals"][2]) < 1e-9);
  // causal: nothing above the diagonal
  CHECK(p.attn.weights(0, 0, 1) == 0.0);
}

TEST_CASE("safetensors dtypes F16, BF16, F32 and F64 widen exactly", "[checkpoint]") {
  TempDir d("dtypes");
  // 1.5, -2, 0.25 in each dtype: F16 0x3E00 0xC000 0x3400; BF16 0x3FC0 0xC000 0x3E80.
  std::string f16("\x00\x3e\x00\xc0\x00\x34", 6), bf16("\xc0\x3f\x00\xc0\x80\x3e", 6), f32, f64;
  for (double v : {1.5, -2.0, 0.25}) {
    float f = static_cast<float>(v);
    f32.append(reinterpret_cast<const char*>(&f), 4);
    f64.append(reinterpret_cast<const char*>(&v), 8);
  }
  nlohmann::json h = {{"__metadata__", {{"format", "pt"}}},
                      {"a", {{"dtype", "F16"}, {"shape", {3}}, {"data_offsets", {0, 6}}}},
                      {"b", {{"dtype", "BF16"}, {"shape", {3}}, {"data_offsets", {6, 12}}}},
                      {"c", {{"dtype", "F32"}, {"shape", {1, 3}}, {"data_offsets", {12, 24}}}},
                      {"d", {{"dtype", "F64"}, {"shape", {3, 1}}, {"data_offsets", {24, 48}}}},
                      {"empty", {{"dtype", "F32"}, {"shape", {0, 4}}, {"data_offsets", {48, 48}}}}};
  write_bytes(d.path + "/x.safetensors", safetensors_bytes(h.dump(), f16 + bf16 + f32 + f64));
  SafetensorsFile f(d.path + "/x.safetensors");
  for (const char* n : {"a", "b", "c", "d"}) {
    INFO(n);
    Tensor t = f.read(*f.find(n));
    CHECK(t.data == std::vector<double>{1.5, -2.0, 0.25});
  }
  CHECK(usage_error([&] { f.read(*f.find("empty")); }) == "checkpoint.err.convert file=" + d.path + "/x.safetensors tensor=empty shape=[0, 4]");
  CHECK(f.find("__metadata__") == nullptr);
  CHECK(f.entries().size() == 5);
}

TEST_CASE("a --weights path with a control character is refused before it reaches a trace", "[checkpoint][bad_input]") {
  CliResult r = run_cli("lesson mha --weights \"$(printf '/tmp/ck\\001t')\" --token-ids 0,1");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "attnlab: error: --weights /tmp/ck\\x01t: control characters are not allowed in a checkpoint's path\n");
}

TEST_CASE("a NaN or an infinity in a checkpoint's weights is refused naming the tensor and the element", "[checkpoint][bad_input]") {
  TempDir d("nan");
  // (2, 2) F32 matrices: "nan" has a NaN at flat index 3, "inf" an infinity at index 1; BF16 0x7F80 is +inf.
  auto f32 = [](std::vector<float> v) { return std::string(reinterpret_cast<const char*>(v.data()), 4 * v.size()); };
  std::string data = f32({1, 2, 3, std::nanf("")}) + f32({1, -INFINITY, 3, 4}) + f32({1, 2, 3, 4}) + std::string("\x80\x7f", 2);
  nlohmann::json h = {{"nan", {{"dtype", "F32"}, {"shape", {2, 2}}, {"data_offsets", {0, 16}}}},
                      {"inf", {{"dtype", "F32"}, {"shape", {2, 2}}, {"data_offsets", {16, 32}}}},
                      {"ok", {{"dtype", "F32"}, {"shape", {2, 2}}, {"data_offsets", {32, 48}}}},
                      {"bf", {{"dtype", "BF16"}, {"shape", {1}}, {"data_offsets", {48, 50}}}}};
  std::string path = d.path + "/x.safetensors";
  write_bytes(path, safetensors_bytes(h.dump(), data));
  SafetensorsFile f(path);
  CHECK(usage_error([&] { f.read(*f.find("nan")); }) == "checkpoint.err.not_finite file=" + path + " tensor=nan index=3");
  CHECK(usage_error([&] { f.read(*f.find("inf")); }) == "checkpoint.err.not_finite file=" + path + " tensor=inf index=1");
  CHECK(usage_error([&] { f.read(*f.find("bf")); }) == "checkpoint.err.not_finite file=" + path + " tensor=bf index=0");
  CHECK(usage_error([&] { f.read_rows(*f.find("nan"), 1, 1); }) == "checkpoint.err.not_finite file=" + path + " tensor=nan index=3");
  CHECK(f.read_rows(*f.find("nan"), 0, 1).data == std::vector<double>{1, 2});  // the finite row reads
  CHECK(f.read(*f.find("ok")).data == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("malformed safetensors files are refused naming the file and the tensor", "[checkpoint][bad_input]") {
  const std::string good = read_bytes(fixture("tiny-gpt2/model.safetensors"));
  // (no structured binding: clang 14 cannot capture one in a lambda)
  const auto parts = split_file(good);
  const auto& header = parts.first;
  const auto& data = parts.second;
  const std::string tensor = "transformer.h.0.attn.c_attn.weight";
  auto patched = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json h = header;
    edit(h);
    return safetensors_bytes(h.dump(), data);
  };
  struct Case {
    const char* what;
    std::string bytes;
    std::string expect;  // prefix of the error
  };
  std::vector<Case> cases = {
      {"empty file", "", "checkpoint.err.truncated file="},
      {"7 bytes", good.substr(0, 7), "checkpoint.err.truncated file="},
      {"header size past the end", good.substr(0, 8 + 10), "checkpoint.err.header_size file="},
      {"header size huge", std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}", "checkpoint.err.header_size file="},
      {"header not JSON", safetensors_bytes("{\"a\": [1, 2", ""), "input.err.json_syntax where="},
      {"header an array", safetensors_bytes("[1, 2]", ""), "checkpoint.err.header_object file="},
      {"truncated data", good.substr(0, good.size() - 100), "checkpoint.err.offsets file="},
      {"unknown dtype", patched([&](nlohmann::json& h) { h[tensor]["dtype"] = "I8"; }), "checkpoint.err.dtype file="},
      {"offsets past the end",
       patched([&](nlohmann::json& h) { h[tensor]["data_offsets"][1] = data.size() + 4; }), "checkpoint.err.offsets file="},
      {"begin after end", patched([&](nlohmann::json& h) {
         h[tensor]["data_offsets"] = {h[tensor]["data_offsets"][1], h[tensor]["data_offsets"][0]};
       }), "checkpoint.err.offsets file="},
      {"shape lies about the size", patched([&](nlohmann::json& h) { h[tensor]["shape"] = {16, 47}; }), "checkpoint.err.length file="},
      {"shape overflows", patched([&](nlohmann::json& h) { h[tensor]["shape"] = {1ull << 40, 1ull << 40, 16}; }),
       "checkpoint.err.length file="},
      {"negative dim", patched([&](nlohmann::json& h) { h[tensor]["shape"] = {-16, 48}; }), "checkpoint.err.entry file="},
      {"no dtype", patched([&](nlohmann::json& h) { h[tensor].erase("dtype"); }), "checkpoint.err.entry file="},
      {"offsets not numbers", patched([&](nlohmann::json& h) { h[tensor]["data_offsets"] = {"0", "4"}; }), "checkpoint.err.entry file="},
      {"overlap", patched([&](nlohmann::json& h) {
         // two tensors of the same byte length swap in: ln_1.bias now starts inside ln_1.weight
         auto w = h["transformer.h.0.ln_1.weight"]["data_offsets"];
         h["transformer.h.0.ln_1.bias"]["data_offsets"] = {w[0].get<std::size_t>() + 4, w[1].get<std::size_t>() + 4};
       }), "checkpoint.err.overlap file="},
      {"missing tensor", patched([&](nlohmann::json& h) { h.erase("transformer.h.1.mlp.c_fc.bias"); }),
       "checkpoint.err.missing file="},
      {"shape disagrees with config.json", patched([&](nlohmann::json& h) {
         h["transformer.wpe.weight"]["shape"] = {16, 32};
       }), "checkpoint.err.shape file="},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    TempDir d("bad");
    std::string folder = model_with(d, c.bytes);
    std::string err = load_error(folder);
    CHECK(err.rfind(c.expect + folder + "/model.safetensors", 0) == 0);
  }
  // The tensor is named where there is one.
  TempDir d("named");
  std::string err = load_error(model_with(d, patched([&](nlohmann::json& h) { h[tensor]["dtype"] = "I8"; })));
  CHECK(err.find("tensor=" + tensor) != std::string::npos);
  CHECK(err.find("dtype=I8") != std::string::npos);
  TempDir d2("named2");
  err = load_error(model_with(d2, patched([&](nlohmann::json& h) { h.erase("transformer.h.1.mlp.c_fc.bias"); })));
  CHECK(err.find("tensor=transformer.h.1.mlp.c_fc.bias") != std::string::npos);
  TempDir d3("named3");
  err = load_error(model_with(d3, patched([&](nlohmann::json& h) { h["transformer.wpe.weight"]["shape"] = {16, 32}; })));
  CHECK(err.find("shape=[16, 32] expected=[32, 16]") != std::string::npos);
}

TEST_CASE("every byte of a truncated checkpoint is refused cleanly", "[checkpoint][bad_input]") {
  // Cut the good file at many lengths: each must be a UsageError, never a crash or a read past the end.
  const std::string good = read_bytes(fixture("tiny-gpt2/model.safetensors"));
  TempDir d("cut");
  fs::copy_file(fixture("tiny-gpt2/config.json"), d.path + "/config.json");
  std::size_t refused = 0, lengths = 0;
  for (std::size_t n = 0; n < good.size(); n += (n < 1200 ? 7 : 997)) {
    write_bytes(d.path + "/model.safetensors", good.substr(0, n));
    ++lengths;
    if (load_error(d.path).rfind("checkpoint.err.", 0) == 0) ++refused;
  }
  CHECK(refused == lengths);
}

TEST_CASE("sharded checkpoints: a bad index or shard is refused", "[checkpoint][bad_input]") {
  TempDir d("shards");
  for (const auto& e : fs::directory_iterator(fixture("tiny-gpt2-sharded")))
    fs::copy_file(e.path(), d.path + "/" + e.path().filename().string());
  std::string index = d.path + "/model.safetensors.index.json";
  nlohmann::json j = nlohmann::json::parse(read_bytes(index));
  CHECK(Gpt2Model(d.path).checkpoint().file_count() == 2);
  nlohmann::json bad = j;
  bad["weight_map"]["h.0.ln_1.weight"] = "../model-00001-of-00002.safetensors";
  write_bytes(index, bad.dump());
  CHECK(load_error(d.path) == "checkpoint.err.shard_name file=" + index +
                                  " tensor=h.0.ln_1.weight shard=../model-00001-of-00002.safetensors");
  bad = j;
  bad["weight_map"]["h.0.ln_1.weight"] = "model-00002-of-00002.safetensors";  // not in that shard
  write_bytes(index, bad.dump());
  CHECK(load_error(d.path) == "checkpoint.err.missing file=" + d.path + "/model-00002-of-00002.safetensors tensor=h.0.ln_1.weight");
  write_bytes(index, "{\"weight_map\": 3}");
  CHECK(load_error(d.path) == "checkpoint.err.index file=" + index);
  bad = j;
  bad["weight_map"].erase("ln_f.bias");
  write_bytes(index, bad.dump());
  CHECK(load_error(d.path) == "checkpoint.err.missing file=" + index + " tensor=ln_f.bias");
}

namespace {
std::string builtins() {  // the models attnlab ships, as the error lists them
  std::string s;
  for (const std::string& n : builtin_model_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

TEST_CASE("a model id given to --weights is found in the Hugging Face cache", "[checkpoint]") {
  TempDir d("hub");
  std::string snap = d.path + "/hub/models--openai-community--gpt2/snapshots/0123abcd";
  fs::create_directories(snap);
  fs::create_directories(d.path + "/hub/models--openai-community--gpt2/refs");
  write_bytes(d.path + "/hub/models--openai-community--gpt2/refs/main", "0123abcd");
  for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(fixture("tiny-gpt2/") + f, snap + "/" + f);
  const char* saved_hub = std::getenv("HF_HUB_CACHE");
  const char* saved_home = std::getenv("HF_HOME");
  std::string keep_hub = saved_hub ? saved_hub : "", keep_home = saved_home ? saved_home : "";
  ::unsetenv("HF_HUB_CACHE");
  ::setenv("HF_HOME", d.path.c_str(), 1);
  CHECK(hf_hub_cache() == d.path + "/hub");
  CHECK(resolve_weights("openai-community/gpt2") == snap);
  CHECK(resolve_weights("gpt2") == snap);  // the old id, published again under openai-community
  ::setenv("HF_HUB_CACHE", (d.path + "/hub").c_str(), 1);
  CHECK(resolve_weights("gpt2") == snap);
  CHECK(usage_error([&] { resolve_weights("gpt2-xl"); }) ==
        "checkpoint.err.not_cached id=gpt2-xl looked=" + d.path + "/hub/models--gpt2-xl, " + d.path +
            "/hub/models--openai-community--gpt2-xl builtins=" + builtins());
  CHECK(usage_error([&] { resolve_weights("./no/such/folder"); }) == "checkpoint.err.no_folder path=./no/such/folder");
  CHECK(usage_error([&] { resolve_weights(d.path); }) == "checkpoint.err.no_config folder=" + d.path);
  if (saved_hub) ::setenv("HF_HUB_CACHE", keep_hub.c_str(), 1);
  else ::unsetenv("HF_HUB_CACHE");
  if (saved_home) ::setenv("HF_HOME", keep_home.c_str(), 1);
  else ::unsetenv("HF_HOME");
}

TEST_CASE("head role scores by hand", "[checkpoint]") {
  // One layer, two heads, T = 3. Head 0 always looks one back; head 1 splits between start and self.
  Tensor w({2, 3, 3}, {1, 0, 0, 1, 0, 0, 0, 1, 0,  //
                       1, 0, 0, 0.5, 0.5, 0, 0.5, 0, 0.5});
  HeadRoleScores s;
  score_positional_roles({w}, s);
  CHECK(s.previous(0, 0) == 1.0);
  CHECK(s.previous(0, 1) == 0.25);  // (0.5 + 0) / 2
  CHECK(s.first(0, 0) == 0.5);      // (1 + 0) / 2
  CHECK(s.first(0, 1) == 0.5);
  CHECK(s.self(0, 1) == 0.5);
  // Induction on "a b a b": query 2 (a) should look at 1 (b), query 3 (b) at 2 (a).
  Tensor w2({1, 4, 4}, {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0});
  CHECK(induction_scores({w2}, 2)(0, 0) == 0.75);
  auto top = top_heads(s.previous, 1);
  REQUIRE(top.size() == 1);
  CHECK((top[0].layer == 0 && top[0].head == 0 && top[0].score == 1.0));
}

TEST_CASE("attnlab heads on a tiny checkpoint", "[checkpoint][cli]") {
  std::string w = fixture("tiny-gpt2");
  CliResult r = run_cli("heads --weights '" + w + "' --token-ids 5,17,3,42,17,3,9,60 --lang en");
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("GPT-2, 2 layers × 4 heads, d_model 16") != std::string::npos);
  CHECK(r.out.find("Induction score") != std::string::npos);
  CliResult j = run_cli("heads --weights '" + w + "' --token-ids 5,17,3,42,17,3,9,60 --json -");
  REQUIRE(j.code == 0);
  nlohmann::json out = nlohmann::json::parse(j.out);
  CHECK(out["schema"] == "attnlab.heads/1");
  CHECK(out["scores"]["previous"].size() == 2);
  CHECK(out["scores"]["induction"][0].size() == 4);
  CHECK(out["top"]["first"].size() == 5);
  // The scores are the golden attention's: layer 1 head 2's previous-token score on the fixture's ids.
  nlohmann::json g = golden();
  std::string ids;
  for (auto id : g["token_ids"]) ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  nlohmann::json full = nlohmann::json::parse(run_cli("heads --weights '" + w + "' --token-ids " + ids + " --json -").out);
  double prev = 0;
  std::size_t T = g["token_ids"].size();
  for (std::size_t i = 1; i < T; ++i) prev += g["attention"][1][2][i][i - 1].get<double>();
  CHECK(std::fabs(full["scores"]["previous"][1][2].get<double>() - prev / static_cast<double>(T - 1)) < 1e-12);
  CliResult zh = run_cli("heads --weights '" + w + "' --token-ids 1,2,3 --lang zh");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("前一词元得分") != std::string::npos);
}

TEST_CASE("attnlab heads scores induction on repeats inside the text, from the golden attention", "[checkpoint][cli]") {
  // The golden ids 5 17 3 42 17 3 9 60 0 33: 17 at 4 occurred at 1 (then came position 2), 3 at 5
  // occurred at 2 (then came 3). The repeat score of a head: (A[4, 2] + A[5, 3]) / 2.
  std::string w = fixture("tiny-gpt2");
  nlohmann::json g = golden();
  std::string ids;
  for (auto id : g["token_ids"]) ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  CliResult r = run_cli("heads --weights '" + w + "' --token-ids " + ids + " --json -");
  REQUIRE(r.code == 0);
  nlohmann::json out = nlohmann::json::parse(r.out);
  CHECK(out["repeat_queries"] == 2);
  for (std::size_t l = 0; l < 2; ++l)
    for (std::size_t h = 0; h < 4; ++h) {
      const double want = (g["attention"][l][h][4][2].get<double>() + g["attention"][l][h][5][3].get<double>()) / 2;
      CHECK(std::fabs(out["scores"]["repeat"][l][h].get<double>() - want) < 1e-12);
    }
  CHECK(out["named"]["repeat"]["threshold"].get<double>() == Approx(std::max(0.3, 3.0 * (1.0 / 5 + 1.0 / 6) / 2)));
  CliResult text = run_cli("heads --weights '" + w + "' --token-ids " + ids + " --lang en");
  CHECK(text.out.find("Induction score inside your text itself (2 tokens occurred earlier in it)") != std::string::npos);
  // no token twice: said, not scored
  CliResult none = run_cli("heads --weights '" + w + "' --token-ids 1,2,3 --json -");
  REQUIRE(none.code == 0);
  CHECK(nlohmann::json::parse(none.out)["scores"]["repeat"].is_null());
  CHECK(run_cli("heads --weights '" + w + "' --token-ids 1,2,3 --lang en").out.find("no token occurs twice") != std::string::npos);
}

TEST_CASE("attnlab heads scores a text longer than the model's positions on the part that fits", "[checkpoint][cli]") {
  std::string w = fixture("tiny-gpt2");  // 32 positions
  std::string ids40;
  for (int i = 0; i < 40; ++i) ids40 += (i ? "," : "") + std::to_string(i % 20);
  CliResult r = run_cli("heads --weights '" + w + "' --token-ids " + ids40 + " --lang en");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Your text has 40 tokens; this model reads at most 32 here, so everything below is scored on the first 32.") !=
        std::string::npos);
  nlohmann::json j = nlohmann::json::parse(run_cli("heads --weights '" + w + "' --token-ids " + ids40 + " --json -").out);
  CHECK(j["tokens_given"] == 40);
  CHECK(j["token_ids"].size() == 32);
  CHECK(j["repeat_queries"] == 12);  // positions 20 … 31 repeat 0 … 11
  // and the first 32 alone give the same scores
  std::string ids32;
  for (int i = 0; i < 32; ++i) ids32 += (i ? "," : "") + std::to_string(i % 20);
  nlohmann::json k = nlohmann::json::parse(run_cli("heads --weights '" + w + "' --token-ids " + ids32 + " --json -").out);
  CHECK(j["scores"] == k["scores"]);
}

TEST_CASE("attnlab heads refuses bad input in one line", "[checkpoint][cli][bad_input]") {
  std::string w = fixture("tiny-gpt2");
  struct Case {
    std::string args, needle;
  };
  std::vector<Case> cases = {
      {"heads --weights '" + w + "'", "--text"},
      {"heads --weights '" + w + "' --token-ids 1,2 --text hi", "--token-ids"},
      {"heads --weights '" + w + "' --token-ids 1,64", "64"},
      {"heads --weights '" + w + "' --token-ids 1,x", "'x'"},
      {"heads --weights '" + w + "' --token-ids 1", "--token-ids"},
      {"heads --weights '" + w + "' --text hello", "vocab.json"},
      {"heads --weights /nonexistent/dir --token-ids 1,2", "/nonexistent/dir"},
      {"heads --weights no-such-model-here --token-ids 1,2", "hf download no-such-model-here"},
      {"heads --weights '" + w + "' --token-ids 1,2 --top 0", "--top"},
      {"heads --weights '" + w + "' --text " + std::string(16385, 'a'), "16384"},
      {"heads --weights '" + w + "/model.safetensors' --token-ids 1,2", "a file; give the folder that holds it"},
      {"heads --weights /dev/null --token-ids 1,2", "/dev/null: a file"},
  };
  for (const Case& c : cases) {
    CliResult r = run_cli(c.args + " --lang en", "HF_HUB_CACHE=/nonexistent/hub ");
    INFO(c.args << "\n" << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(c.needle) != std::string::npos);
  }
}

TEST_CASE("lesson mha on a real layer shows that layer's own attention", "[checkpoint][cli]") {
  nlohmann::json g = golden();
  std::string ids;
  for (auto id : g["token_ids"]) ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  CliResult r = run_cli("lesson mha --weights '" + fixture("tiny-gpt2-sharded") + "' --layer 2 --token-ids " + ids + " --json -");
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& w = j["tensors"]["weights"];
  REQUIRE(w["shape"] == std::vector<int>{4, 10, 10});
  double diff = 0;
  for (std::size_t h = 0, k = 0; h < 4; ++h)
    for (std::size_t i = 0; i < 10; ++i)
      for (std::size_t c = 0; c < 10; ++c, ++k) diff = std::max(diff, std::fabs(w["data"][k].get<double>() - g["attention"][1][h][i][c].get<double>()));
  CHECK(diff < 1e-9);
  std::map<std::string, double> values;
  for (const auto& s : j["steps"])
    for (auto& [k, v] : s["values"].items()) values[k] = v.get<double>();
  CHECK(values.at("head1_check") < 1e-12);  // b_Q included
  CHECK(values.at("sum_check") < 1e-12);    // b_O included
  CHECK(j["config"]["causal"] == true);  // GPT-2 is causal without --causal
  CHECK(j["config"]["layer"] == 2);  // --layer 2 is h.1.…: counting from 1
  CHECK(run_cli("lesson mha --weights '" + fixture("tiny-gpt2") + "' --layer 3 --token-ids 1,2").code == 2);
}

}  // namespace file_test_checkpoint
