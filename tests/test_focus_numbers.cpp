// Issue 15: focused output (--step, what --json FILE wrote, heatmap column numbers, the derived
// d_model rule) and one set of numbers (FFN shares, kv-cache per layer and per GPU, V3's MHA
// conventions, the DeepSeek note, the params assumption) and the new presets.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "lesson_args.h"
#include "models.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_focus_numbers {

using namespace attn;

namespace {
bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }
std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// The text of one step as the terminal shows it: from its heading to the next heading (or the footer).
std::string step_block(const std::string& out, const std::string& id) {
  std::size_t at = out.find("[" + id + "]\n");
  if (at == std::string::npos) return "";
  at = out.rfind("\n", at) + 1;
  std::size_t end = out.find("\n── ", at);
  if (end == std::string::npos) end = out.rfind("\n\n");
  return out.substr(at, end - at);
}
}  // namespace

TEST_CASE("step filter: --step shows only the steps asked for, with the same numbers as a full run", "[focus]") {
  Trace t = run_lesson("mha");
  REQUIRE(t.steps.size() >= 4);
  std::string first = t.steps[0].id, second = t.steps[1].id, last = t.steps.back().id;
  CliResult full = run_cli("lesson mha --color never --lang en");
  CliResult part = run_cli("lesson mha --color never --lang en --step " + last + ",2");
  REQUIRE(part.code == 0);
  CHECK(part.err.empty());
  CHECK(!has(part.out, "[" + first + "]"));
  CHECK(has(part.out, "[" + second + "]"));
  CHECK(has(part.out, "[" + last + "]"));
  // the header says which, numbered as the headings are, in the lesson's order
  CHECK(has(part.out, "showing 2 steps of " + std::to_string(t.steps.size()) + ": 2 " + second + ", " +
                          std::to_string(t.steps.size()) + " " + last));
  // each shown step is exactly what the full run printed for it
  CHECK(step_block(part.out, second) == step_block(full.out, second));
  CHECK(step_block(part.out, last) == step_block(full.out, last));
  CHECK(!step_block(full.out, last).empty());
  CHECK(lines(part.out) < lines(full.out));
  // the full run has no such line
  CHECK(!has(full.out, "showing"));
  // Chinese
  CliResult zh = run_cli("lesson mha --color never --lang zh --step 2");
  CHECK(zh.code == 0);
  CHECK(has(zh.out, "只显示 1 个步骤（共 " + std::to_string(t.steps.size()) + " 步）：2 " + second));
}

TEST_CASE("step filter: --step on every lesson, and an unknown step lists the valid ones", "[focus]") {
  for (const LessonInfo* info : all_lessons()) {
    Trace t = run_lesson(info->name);
    INFO(info->name);
    REQUIRE(!t.steps.empty());
    CliResult r = run_cli(std::string("lesson ") + info->name + " --color never --lang en --step " + t.steps.back().id);
    CHECK(r.code == 0);
    CHECK(has(r.out, "[" + t.steps.back().id + "]"));
    if (t.steps.size() > 1) CHECK(!has(r.out, "[" + t.steps.front().id + "]"));
  }
  CliResult bad = run_cli("lesson mha --step nosuch --lang en");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(lines(bad.err) == 1);
  CHECK(has(bad.err, "--step: no step 'nosuch' in this lesson; the steps are: 1 input, 2 "));
  CliResult zero = run_cli("lesson mha --step 0 --lang en");
  CHECK(zero.code == 2);
  CHECK(has(zero.err, "no step '0'"));
  CliResult empty = run_cli("lesson mha --step 1,,2 --lang en");
  CHECK(empty.code == 2);
  CHECK(has(empty.err, "empty item"));
  CliResult zh = run_cli("lesson mha --step 99 --lang zh");
  CHECK(zh.code == 2);
  CHECK(has(zh.err, "本课没有步骤“99”"));
}

TEST_CASE("lesson NAME --help lists the step ids and --step", "[focus]") {
  Trace t = run_lesson("mha");
  CliResult help = run_cli("lesson mha --help --lang en");
  CHECK(help.code == 0);
  CHECK(has(help.out, "--step"));
  CHECK(has(help.out, "Steps (--step ID or number, comma-separated): 1 " + t.steps[0].id + ", 2 " + t.steps[1].id));
  CliResult zh = run_cli("lesson gqa --help --lang zh");
  CHECK(has(zh.out, "步骤（--step 步骤名或编号，用逗号分隔）：1 "));
}

TEST_CASE("step filter: --step with --json writes only those steps and says which were left out", "[focus]") {
  CliResult r = run_cli("lesson mha --json - --step 2");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["steps"].size() == 1);
  Trace t = run_lesson("mha");
  CHECK(j["steps"][0]["id"] == t.steps[1].id);
  CHECK(j["steps_all"].size() == t.steps.size());
  for (const auto& name : j["steps"][0]["tensors"]) CHECK(j["tensors"].contains(name.get<std::string>()));
  CHECK(j["tensors"].size() < t.tensor_order.size());
}

TEST_CASE("json file: --json FILE says on stderr what it wrote, --json - says nothing, data is row-major", "[focus]") {
  std::string path = std::string("/tmp/attnlab_focus_") + std::to_string(::getpid()) + ".json";
  CliResult r = run_cli("lesson mha --lang en --json " + path);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  auto bytes = std::filesystem::file_size(path);
  std::ifstream in(path);
  auto j = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  CHECK(j["data_order"] == "row-major");
  std::string n = std::to_string(j["tensors"].size());
  std::string digits = std::to_string(bytes), commas;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) commas += ',';
    commas += digits[i];
  }
  // and, the lesson text not having been printed, how to print it from the file (issue 50)
  CHECK(r.err == "wrote " + path + ": JSON (attnlab.trace/2), " + n + " tensors, " + commas + " bytes (each tensor's data is row-major)\n" +
                     "the lesson text was not printed (with --json, --html or --npz FILE stdout stays empty): attnlab render " + path +
                     " --text prints it from the JSON\n");
  // a device keeps no size to read back: the count is of the bytes written (it said 0 before)
  CliResult null_dev = run_cli("lesson mha --lang en --json /dev/null");
  CHECK(null_dev.code == 0);
  CHECK(null_dev.err.rfind("wrote /dev/null: JSON (attnlab.trace/2), " + n + " tensors, " + commas + " bytes (each tensor's data is row-major)\n", 0) == 0);
  CliResult zh = run_cli("lesson mha --lang zh --json " + path);
  std::filesystem::remove(path);
  CHECK(has(zh.err, "已写入 " + path + "：JSON（attnlab.trace/2），" + n + " 个张量，"));
  CliResult dash = run_cli("lesson mha --json -");
  CHECK(dash.code == 0);
  CHECK(dash.err.empty());
  CHECK(has(run_cli("lesson mha --help --lang en").out, "row-major"));
}

TEST_CASE("heatmap column numbers stay apart from 10 tokens on", "[focus]") {
  CliResult r = run_cli("lesson mha --seq-len 16 --color never --lang en");
  REQUIRE(r.code == 0);
  CHECK(!has(r.out, "910111213"));
  // tens over units: column 10 is a "1" above a "0"
  CHECK(has(r.out, "                   1 1 1 1 1 1 1\n"));
  CHECK(has(r.out, " 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6\n"));
  // below 10 tokens: one line, as before
  CHECK(has(run_cli("lesson mha --seq-len 4 --color never").out, " 1 2 3 4\n"));
}

TEST_CASE("one rule for a derived d_model in every lesson with heads, noted and in --help", "[focus]") {
  for (const char* name : {"mha", "gqa", "block", "gate", "qkv-roles"}) {
    INFO(name);
    CliResult r = run_cli(std::string("lesson ") + name + " --heads 12 --lang en --color never --step 1");
    CHECK(r.code == 0);
    CHECK(has(r.out, "d_model=24"));
    CHECK(has(r.out, "d_model 24 is derived, not given"));
  }
  CHECK(has(run_cli("lesson mha --heads 12 --lang zh --color never --step 1").out, "d_model 24 是推算出来的"));
  // given explicitly, the divisibility rule stands
  CHECK(run_cli("lesson mha --d-model 8 --heads 3").code == 2);
  // the defaults are unchanged and say nothing
  CHECK(!has(run_cli("lesson mha --lang en --color never").out, "derived"));
  CHECK(has(run_cli("lesson mha --help --lang en").out, "h·max(2, ⌈8/h⌉)"));
}

TEST_CASE("FFN shares: one convention per column, the chapter's 2/3 beside the checkpoint's", "[focus]") {
  Trace t = run_lesson("ffn");
  auto value = [&](const std::string& name) {
    for (const Step& s : t.steps)
      for (const Value& v : s.values)
        if (v.name == name) return std::get<double>(v.value);
    return -1.0;
  };
  CHECK(value("ffn_share_768") == Approx(2.0 / 3.0).epsilon(1e-15));  // 8d² / 12d², weights only
  // GPT-2 small's layer with biases, LayerNorm left out: 4,722,432 / (2,362,368 + 4,722,432)
  CHECK(value("ffn_share_gpt2_layer") == Approx(4722432.0 / 7084800.0).epsilon(1e-15));
  CHECK(value("ffn_share_gpt2_model") == Approx(56669184.0 / 124439808.0).epsilon(1e-15));
  CliResult p = run_cli("params --model gpt2 --lang en");
  CHECK(has(p.out, "(weights and biases; norms left out): attention 33.3%, FFN 66.7%"));
  CHECK(has(p.out, "weights only (the chapter's count, no biases): attention 33.3%, FFN 66.7%"));
  CHECK(has(p.out, "FFN 45.5%"));
  CHECK(has(run_cli("params --model gpt2 --lang zh").out, "FFN 45.5%"));
}

TEST_CASE("params in dims mode says which layer it assumed", "[focus]") {
  CHECK(has(run_cli("params --d-model 768 --heads 12 --lang en").out, "assumed (explicit dims): a GPT-2-style layer"));
  CHECK(has(run_cli("params --d-model 768 --heads 12 --ffn swiglu --lang en").out, "a Llama-style layer"));
  CHECK(has(run_cli("params --d-model 768 --heads 12 --lang zh").out, "GPT-2 式的层"));
  CHECK(!has(run_cli("params --model gpt2 --lang en").out, "assumed"));
}

TEST_CASE("kv-cache what-ifs per token per layer and per GPU under --tp", "[focus]") {
  ModelConfig v3 = load_preset("deepseek-v3");
  Dtype bf16{"bf16", 16};
  auto v = kv_variants(v3, whatif_dims(v3, 8, 0, 0), 4096, 1, bf16, 8);
  REQUIRE(v.size() == 5);
  CHECK(v[0].name == "mha");
  CHECK(v[1].name == "mha_full");
  CHECK(v[0].elements_per_layer == 32768u);   // 2 x 128 x 128, the paper's convention
  CHECK(v[1].elements_per_layer == 40960u);   // 128 x (192 + 128), V3's real widths
  // per GPU at tp 8: GQA-8 keeps one KV head (2 x 128 x 61 x 2 B x 4096 = 122 MiB); MLA replicates its latent
  CHECK(v[2].name == "gqa");
  CHECK(v[2].per_gpu_bytes == 2u * 128 * 61 * 2 * 4096);
  CHECK(v[4].name == "mla");
  CHECK(v[4].per_gpu_bytes == 576u * 61 * 2 * 4096);
  CHECK(v[4].per_gpu_bytes == v[4].total_bytes);
  CHECK(v[2].per_gpu_bytes < v[4].per_gpu_bytes);
  CHECK(v[0].per_gpu_bytes == v[0].total_bytes / 8);  // 128 heads split 16 a GPU
  auto one = kv_variants(v3, whatif_dims(v3, 8, 0, 0), 4096, 1, bf16, 1);
  for (const auto& r : one) CHECK(r.per_gpu_bytes == r.total_bytes);

  CliResult j = run_cli("kv-cache --model deepseek-v3 --kv-heads 8 --tp 8 --json -");
  REQUIRE(j.code == 0);
  auto doc = nlohmann::json::parse(j.out);
  for (const auto& row : doc["variants"]) {
    CHECK(row.contains("per_gpu_bytes"));
    CHECK(row.contains("elements_per_token_per_layer"));
  }
  CHECK(doc["variants"][2]["per_gpu_bytes"] == 127926272u);

  CliResult t = run_cli("kv-cache --model deepseek-v3 --kv-heads 8 --tp 8 --lang en");
  CHECK(has(t.out, "per GPU (tp 8)"));
  CHECK(has(t.out, "122.0 MiB"));
  CHECK(has(t.out, "elements/layer"));
  CHECK(has(t.out, "MHA'"));
  CHECK(has(t.out, "128·(192 + 128) = 40,960 a layer. MLA caches 1/56.9 of the first and 1/71.1 of the second"));
  CHECK(has(run_cli("kv-cache --model deepseek-v3 --lang zh").out, "MLA 的缓存是前者的 1/56.9，后者的 1/71.1"));
}

TEST_CASE("the DeepSeek 93.3% note only for DeepSeek models, models explains official", "[focus]") {
  CHECK(has(run_cli("kv-cache --model deepseek-v2 --lang en").out, "93.3%"));
  CHECK(!has(run_cli("kv-cache --model llama-3-8b --lang en").out, "93.3%"));
  CHECK(!has(run_cli("kv-cache --d-model 768 --heads 12 --lang en").out, "93.3%"));
  CHECK(has(run_cli("models --lang en").out, "official: our count against the total published"));
  CHECK(has(run_cli("models --lang zh").out, "“官方”一列"));
}

TEST_CASE("new presets: GPT-3 175B (paper configuration) and Qwen3-30B-A3B, no guessed totals", "[focus]") {
  ModelConfig g3 = load_preset("gpt-3-175b");
  CHECK(g3.official_total == 0);
  // 96 x (12d² + 13d) + 50,257·d + 2,048·d + 2d with d = 12,288
  CHECK(count_params(g3).total == 174604259328u);
  CHECK(g3.l == 96);
  CHECK(g3.n_h == 96);
  ModelConfig q = load_preset("qwen3-30b-a3b");
  CHECK(q.official_total == 0);
  // 48 x (attention 18,874,624 + 128 experts x 4,718,592 + router 262,144 + norms 4,096) + 2 x 151,936 x 2,048 + 2,048
  CHECK(count_params(q).total == 30532122624u);
  CHECK(q.n_g == 4);
  CliResult p = run_cli("params --model gpt-3-175b --lang en");
  CHECK(has(p.out, "paper configuration"));
  CHECK(has(run_cli("params --model qwen3-30b-a3b --lang en").out, "could not be checked"));
  CHECK(has(run_cli("params --model qwen3-30b-a3b --lang zh").out, "没能核对"));
}

}  // namespace file_test_focus_numbers
