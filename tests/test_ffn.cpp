// ffn, gelu, swiglu, kv-memory: hand-worked values, golden fixtures from numpy
// (tests/golden/gen_ffn.py), exact parameter counts, and the CLI's answers to bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "lesson_args.h"
#include "catalog.h"
#include "chapter_data.h"
#include "ffn.h"
#include "golden.h"
#include "lesson.h"
#include "random.h"
#include "terminal.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_ffn {

using namespace attn;

namespace {

Trace run(const char* lesson, TestConfig c = {}) { return run_lesson(lesson, c); }

// A named value recorded in any step of the trace.
const Scalar& value_of(const Trace& t, const std::string& name) {
  for (const Step& s : t.steps)
    for (const Value& v : s.values)
      if (v.name == name) return v.value;
  FAIL("no value named " << name);
  throw std::logic_error("unreachable");
}

double real(const Trace& t, const std::string& name) { return std::get<double>(value_of(t, name)); }
std::int64_t integer(const Trace& t, const std::string& name) { return std::get<std::int64_t>(value_of(t, name)); }

const Step& step_of(const Trace& t, const std::string& id) {
  for (const Step& s : t.steps)
    if (s.id == id) return s;
  FAIL("no step " << id);
  throw std::logic_error("unreachable");
}

}  // namespace

// ---- activations, worked by hand ---------------------------------------------------------------

TEST_CASE("GELU by hand: x·Φ(x) with Φ from a normal table", "[gelu][ffn]") {
  CHECK(gelu(0.0) == 0.0);                               // 0 · Φ(0) = 0 · 0.5 = 0
  CHECK(gelu(1.0) == Approx(0.84134).epsilon(1e-5));     // 1 · Φ(1) = 1 · 0.84134
  CHECK(gelu(-1.0) == Approx(-0.15866).epsilon(1e-4));   // -1 · Φ(-1) = -1 · (1 − 0.84134) = -0.15866
  CHECK(gelu(1.2) == Approx(1.06192).epsilon(1e-5));     // 1.2 · Φ(1.2) = 1.2 · 0.88493 = 1.06192 (chapter: 0.98)
  CHECK(gelu(-0.5) == Approx(-0.15427).epsilon(1e-4));   // -0.5 · Φ(-0.5) = -0.5 · 0.30854 = -0.15427
  CHECK(gelu(0.8) == Approx(0.63052).epsilon(1e-5));     // 0.8 · Φ(0.8) = 0.8 · 0.78814 = 0.63052
  CHECK(gelu(-1.1) == Approx(-0.14923).epsilon(1e-4));   // -1.1 · Φ(-1.1) = -1.1 · 0.13567 = -0.14923 (chapter: -0.13)
  CHECK(gelu(0.3) == Approx(0.18537).epsilon(1e-4));     // 0.3 · Φ(0.3) = 0.3 · 0.61791 = 0.18537 (chapter: 0.22)
  CHECK(gelu(2.0) == Approx(1.95450).epsilon(1e-5));     // 2 · Φ(2) = 2 · 0.97725 = 1.95450
}

TEST_CASE("GELU tanh approximation by hand", "[gelu]") {
  // x = 1: √(2/π) = 0.797885; 0.797885 · (1 + 0.044715) = 0.833562; tanh(0.833562) = 0.682384;
  // 0.5 · 1 · (1 + 0.682384) = 0.841192 — exact GELU(1) is 0.841345, so tanh − exact = -0.000153.
  CHECK(gelu_tanh(1.0) == Approx(0.841192).epsilon(1e-6));
  CHECK(gelu_tanh(1.0) - gelu(1.0) == Approx(-0.000153).margin(1e-6));
  CHECK(gelu_tanh(0.0) == 0.0);
}

TEST_CASE("SiLU by hand: x·σ(x)", "[gelu][swiglu]") {
  CHECK(silu(0.0) == 0.0);                              // 0 · σ(0) = 0 · 0.5
  CHECK(silu(1.0) == Approx(0.731059).epsilon(1e-6));   // σ(1) = 1 / (1 + e^-1) = 1 / 1.367879 = 0.731059
  CHECK(silu(-1.0) == Approx(-0.2689414).epsilon(1e-6));  // -1 · σ(-1) = -1 · (1 − 0.7310586) = -0.2689414
  CHECK(silu(2.0) == Approx(1.761594).epsilon(1e-6));   // σ(2) = 1 / (1 + 0.135335) = 0.880797; · 2 = 1.761594
  CHECK(relu(-3.0) == 0.0);
  CHECK(relu(2.5) == 2.5);
}

// ---- parameter counts ------------------------------------------------------------------------

TEST_CASE("FFN parameter counts at d = 768 are the chapter's", "[ffn]") {
  FfnParams p = ffn_param_count(768, 3072);
  CHECK(p.W_1 == 2359296);  // 768 · 3072
  CHECK(p.b_1 == 3072);
  CHECK(p.W_2 == 2359296);  // 3072 · 768
  CHECK(p.b_2 == 768);
  CHECK(p.total == 4722432);  // 2,359,296 · 2 + 3,072 + 768
  Trace t = run("ffn");
  CHECK(integer(t, "params_768") == 4722432);
  CHECK(integer(t, "params_run") == 148);              // 4·16 + 16 + 16·4 + 4
  CHECK(integer(t, "attention_params_768") == 2359296);  // 4 · 768²
  // weights only, one convention in the column: 4,718,592 / (2,359,296 + 4,718,592) = 2/3
  CHECK(real(t, "ffn_share_768") == Approx(2.0 / 3.0).epsilon(1e-12));
  const Table& split = step_of(t, "split").tables.at(0);
  CHECK(std::get<std::string>(split.rows.at(0).at(4)) == "33.33%");
  CHECK(std::get<std::string>(split.rows.at(1).at(4)) == "66.67%");
  // the GPT-2 small checkpoint's layer with biases: 4,722,432 / (2,362,368 + 4,722,432) = 66.66%
  CHECK(std::get<std::int64_t>(split.rows.at(0).at(5)) == 2362368);
  CHECK(std::get<std::string>(split.rows.at(1).at(6)) == "66.66%");
}

TEST_CASE("SwiGLU hidden widths and counts, as LLaMA rounds them", "[swiglu]") {
  // 2 · 4 · 4096 / 3 = 10922.67 -> 10922; 10922 / 256 = 42.7 -> 43 · 256 = 11008
  CHECK(swiglu_hidden(4096, 256) == 11008);
  CHECK(swiglu_hidden(4096, 1) == 10922);
  CHECK(swiglu_hidden(5120, 256) == 13824);  // 13653 -> 54 · 256
  CHECK(swiglu_hidden(8192, 256) == 22016);  // 21845 -> 86 · 256
  CHECK(swiglu_hidden(4, 1) == 10);          // ⌊32 / 3⌋
  CHECK(swiglu_hidden(8, 8) == 24);          // ⌊64 / 3⌋ = 21 -> 3 · 8
  CHECK(swiglu_param_count(4096, 11008) == 135266304);  // 3 · 4096 · 11008
  CHECK(swiglu_param_count(768, 2048) == 8 * 768 * 768);  // 8d/3 whole: exactly 8d² = 4,718,592
  Trace t = run("swiglu");
  CHECK(integer(t, "hidden_4096") == 11008);
  CHECK(integer(t, "params_standard") == 128);  // 8 · 4²
  CHECK(integer(t, "params_swiglu") == 120);    // 3 · 4 · 10
}

// ---- golden fixtures ---------------------------------------------------------------------------

TEST_CASE("ffn matches numpy: the chapter's x", "[golden][ffn]") { check_golden(run("ffn"), "ffn_default"); }

TEST_CASE("ffn matches numpy: random x, d 6, SiLU", "[golden][ffn]") {
  TestConfig c;
  c.seed = 7;
  c.d_model = 6;
  c.d_ff = 10;
  c.activation = "silu";
  check_golden(run("ffn", c), "ffn_random_x_silu");
}

TEST_CASE("ffn matches numpy: --x of 3 numbers, tanh GELU", "[golden][ffn]") {
  TestConfig c;
  c.seed = 3;
  c.x = "1 -2 0.5";
  c.d_ff = 5;
  c.activation = "gelu-tanh";
  check_golden(run("ffn", c), "ffn_custom_x_tanh");
}

TEST_CASE("swiglu matches numpy at the default size", "[golden][swiglu]") {
  check_golden(run("swiglu"), "swiglu_default");
}

TEST_CASE("swiglu matches numpy with d 8 and --multiple-of 8", "[golden][swiglu]") {
  TestConfig c;
  c.seed = 5;
  c.d_model = 8;
  c.multiple_of = 8;
  check_golden(run("swiglu", c), "swiglu_d8_multiple8");
}

TEST_CASE("kv-memory matches numpy", "[golden][kv-memory]") { check_golden(run("kv-memory"), "kv_memory_default"); }

TEST_CASE("gelu matches numpy at the chapter's z", "[golden][gelu]") { check_golden(run("gelu"), "gelu_chapter"); }

// ---- what the lessons claim ------------------------------------------------------------------

TEST_CASE("gelu finds the three printed values the chapter got wrong", "[gelu]") {
  // to two places: GELU(1.2) = 1.06 (printed 0.98), GELU(-1.1) = -0.15 (printed -0.13),
  // GELU(0.3) = 0.19 (printed 0.22); -0.5 -> -0.15, 0.8 -> 0.63, 0 -> 0 are right.
  Trace t = run("gelu");
  CHECK(integer(t, "chapter_values_wrong") == 3);
  CHECK(integer(t, "chapter_values_checked") == 6);
  const Step& s = step_of(t, "chapter");
  REQUIRE(s.notes.size() == 4);  // one per wrong value and a summary
  CHECK(s.notes[0].find("0.98") != std::string::npos);
  CHECK(s.notes[0].find("1.0619") != std::string::npos);
}

TEST_CASE("kv-memory: the planted key fires, its value dominates, the sum is the FFN output", "[kv-memory]") {
  Trace t = run("kv-memory");
  CHECK(t.at("top_keys").tensor.data[0] == 5.0);           // key 6, index 5
  CHECK(real(t, "planted_activation") == Approx(1.95450).epsilon(1e-5));  // 4 + 4 − 6 = 2; GELU(2) = 2 · 0.97725
  CHECK(std::get<std::string>(value_of(t, "top_feature")) == "Paris");
  CHECK(real(t, "planted_share") > 0.5);
  CHECK(real(t, "sum_check") < 1e-12);
  CHECK(real(t, "sum_check_other") < 1e-12);
  CHECK(real(t, "planted_activation_other") == Approx(-0.04550).epsilon(1e-3));  // 4 − 6 = -2; -2 · Φ(-2) = -2 · 0.02275
  CHECK(std::get<std::string>(value_of(t, "top_feature_other")) != "Paris");
  CHECK(t.at("contribution").tensor.shape == Shape{8, 6});
}

TEST_CASE("ffn_as_memory equals ffn_forward on random weights", "[kv-memory][ffn]") {
  Rng rng(11);
  Tensor x = randn(rng, {5}), W_1 = init_weight(rng, 5, 20), b_1 = randn(rng, {20}), W_2 = init_weight(rng, 20, 5),
         b_2 = randn(rng, {5});
  MemoryRead m = ffn_as_memory(x, W_1, b_1, W_2, b_2, Activation::Relu, 4);
  FfnPass f = ffn_forward(x, W_1, b_1, W_2, b_2, Activation::Relu);
  CHECK(max_abs_diff(m.match, f.z) < 1e-12);
  CHECK(max_abs_diff(m.y, f.y) < 1e-12);
  for (std::size_t k = 1; k < 4; ++k) CHECK(m.activation.data[static_cast<std::size_t>(m.top_keys.data[k - 1])] >=
                                            m.activation.data[static_cast<std::size_t>(m.top_keys.data[k])]);
}

TEST_CASE("the chart draws every series, readable without colour", "[gelu]") {
  Trace t = run("gelu");
  const Chart& c = step_of(t, "plot").charts.at(0);
  std::string plain = render_chart(t, c, RenderOptions{});
  CHECK(plain.find('\x1b') == std::string::npos);
  for (const char* marker : {"*  curve_gelu", "o  curve_silu", "#  curve_relu", "x  curve_gelu_tanh"})
    CHECK(plain.find(marker) != std::string::npos);
  CHECK(plain.find("-4.0") != std::string::npos);
  CHECK(plain.find(" 4.00 |") != std::string::npos);  // y axis top: ReLU(4) = 4
  std::string colored = render_chart(t, c, RenderOptions{4, true, false});
  CHECK(colored.find('\x1b') != std::string::npos);
}

// ---- the CLI ---------------------------------------------------------------------------------

TEST_CASE("bad input to the FFN lessons exits 2 with one line naming the flag", "[ffn][swiglu][gelu][kv-memory]") {
  struct Case {
    const char* args;
    const char* flag;
  };
  for (const Case& k : {Case{"lesson ffn --x '1 2 3' --d-model 4", "--x"},
                        Case{"lesson swiglu --x '1 2' --d-model 3", "--x"},
                        Case{"lesson kv-memory --x '1 2 3'", "--x"},
                        Case{"lesson ffn --x '1 two 3'", "--x"},
                        Case{"lesson ffn --activation tanh", "--activation"},
                        Case{"lesson ffn --d-ff 0", "--d-ff"},
                        Case{"lesson swiglu --multiple-of 0", "--multiple-of"},
                        Case{"lesson gelu --values '1 nan'", "--values"},
                        Case{"lesson kv-memory --d-ff 3", "--d-ff"},
                        Case{"lesson kv-memory --top-k 9", "--top-k"}}) {
    INFO(k.args);
    CliResult r = run_cli(k.args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(k.flag) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CliResult r = run_cli("lesson ffn --x '1 2 3' --d-model 4");
  CHECK(r.err.find("--x has 3 numbers but --d-model is 4") != std::string::npos);
}

TEST_CASE("the FFN lessons run in both languages, with no English left in Chinese", "[ffn][swiglu][gelu][kv-memory]") {
  for (const char* lesson : {"ffn", "gelu", "swiglu", "kv-memory"}) {
    INFO(lesson);
    CliResult en = run_cli(std::string("lesson ") + lesson + " --lang en --color never");
    CliResult zh = run_cli(std::string("lesson ") + lesson + " --lang zh --color never");
    CHECK(en.code == 0);
    CHECK(zh.code == 0);
    for (const char* word : {" the ", " is ", " of ", " and ", "The ", " a "}) CHECK(zh.out.find(word) == std::string::npos);
    CHECK(en.out == run_cli(std::string("lesson ") + lesson + " --lang en --color never").out);  // deterministic
  }
}

TEST_CASE("the gelu trace carries its chart and the tensors it names", "[gelu]") {
  CliResult r = run_cli("lesson gelu --json -");
  REQUIRE(r.code == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& s : doc["steps"])
    if (s.contains("charts"))
      for (const auto& c : s["charts"]) {
        found = true;
        CHECK(doc["tensors"].contains(c["x"].get<std::string>()));
        for (const auto& y : c["y"]) CHECK(doc["tensors"][y.get<std::string>()]["shape"][0] == 161);
      }
  CHECK(found);
  for (const char* name : {"values", "gelu", "gelu_tanh", "silu", "relu"}) CHECK(doc["tensors"].contains(name));
}

// ---- issue 9 §4: what the narration says, checked by key and value ----------------------------

namespace {

const Value* config_of(const Trace& t, const std::string& name) {
  for (const Value& v : t.config)
    if (v.name == name) return &v;
  return nullptr;
}

bool step_has_note(const Trace& t, const std::string& step, const std::string& note) {
  const Step& s = step_of(t, step);
  return std::find(s.notes.begin(), s.notes.end(), note) != s.notes.end();
}

}  // namespace

TEST_CASE("ffn: 2/3 is per layer, the whole GPT-2 small is 45.5% FFN", "[ffn][issue9]") {
  Trace t = run("ffn");
  CHECK(real(t, "ffn_share_768") == Approx(2.0 / 3.0).epsilon(1e-12));  // weights only, the chapter's 8d² / 12d²
  CHECK(real(t, "ffn_share_gpt2_layer") == Approx(4722432.0 / 7084800.0).epsilon(1e-12));  // with biases
  // 12 · 4,722,432 = 56,669,184 of 124,439,808 (`params --model gpt2`)
  CHECK(integer(t, "gpt2_ffn_params") == 56669184);
  CHECK(integer(t, "gpt2_params") == 124439808);
  CHECK(real(t, "ffn_share_gpt2_model") == Approx(0.45540).epsilon(1e-4));
}

TEST_CASE("ffn: GELU is narrated as a weighting, the smallest positive z loses 42%", "[ffn][issue9]") {
  Trace t = run("ffn");
  const Tensor& z = t.at("z").tensor;
  const Tensor& h = t.at("h").tensor;
  // unit 4: z = 0.2037 -> h = 0.1183, -42%
  CHECK(z.data[3] == Approx(0.2037).epsilon(1e-3));
  std::string note = Text(Lang{"en"})("ffn.activate.note_smallest", {{"act", "gelu"}, {"unit", 4}, {"z", z.data[3]},
                                                                      {"h", h.data[3]},
                                                                      {"change", 100.0 * (h.data[3] - z.data[3]) / z.data[3]}});
  CHECK(step_has_note(t, "activate", note));
  CHECK(note.find("-42%") != std::string::npos);
  // no "kept"/"squashed" column any more: the table's last column is h / z, i.e. Φ(z) for GELU
  const Table& tab = step_of(t, "activate").tables.at(0);
  CHECK(tab.header.back() == "h / z");
}

TEST_CASE("ffn: 'same shape as the chapter's output' only when it is", "[ffn][issue9]") {
  Text en(Lang{"en"});
  CHECK(step_has_note(run("ffn"), "compress",
                      en("ffn.compress.note", {{"same_shape", true}, {"d_model", 4}, {"chapter_d", 4}})));
  TestConfig c;
  c.d_model = 8;
  Trace t = run("ffn", c);
  CHECK(step_has_note(t, "compress", en("ffn.compress.note", {{"same_shape", false}, {"d_model", 8}, {"chapter_d", 4}})));
  CHECK_FALSE(step_has_note(t, "compress", en("ffn.compress.note", {{"same_shape", true}, {"d_model", 8}, {"chapter_d", 4}})));
}

TEST_CASE("swiglu: the header's multiple_of is the rounding the run used", "[swiglu][issue9]") {
  Trace t = run("swiglu");
  REQUIRE(config_of(t, "multiple_of") != nullptr);
  CHECK(std::get<std::int64_t>(config_of(t, "multiple_of")->value) == 1);
  CHECK(std::get<std::int64_t>(config_of(t, "hidden")->value) == 10);  // ⌊8·4/3⌋, not rounded to 256
  TestConfig c;
  c.d_model = 64;
  c.multiple_of = 256;
  Trace r = run("swiglu", c);
  CHECK(std::get<std::int64_t>(config_of(r, "multiple_of")->value) == 256);
  CHECK(std::get<std::int64_t>(config_of(r, "hidden")->value) == 256);  // 170 rounded up
}

TEST_CASE("swiglu: the factor on up is SiLU(gate_pre), and a negative gate can outweigh a positive one", "[swiglu][issue9]") {
  Trace t = run("swiglu");
  const Tensor& gate = t.at("gate").tensor;
  const Tensor& up = t.at("up").tensor;
  const Tensor& hidden = t.at("hidden").tensor;
  for (std::size_t j = 0; j < gate.numel(); ++j) CHECK(hidden.data[j] == gate.data[j] * up.data[j]);
  // unit 10 (σ 0.3152, gate -0.2446) scales up more than unit 2 (σ 0.5319, gate 0.0679)
  CHECK(std::fabs(gate.data[9]) > std::fabs(gate.data[1]));
  std::string note = Text(Lang{"en"})(
      "swiglu.hidden.note_compare", {{"neg_unit", 10}, {"neg_gate", gate.data[9]}, {"neg_sigma", t.at("gate_fraction").tensor.data[9]},
                                     {"pos_unit", 2}, {"pos_gate", gate.data[1]}, {"pos_sigma", t.at("gate_fraction").tensor.data[1]}});
  CHECK(step_has_note(t, "hidden", note));
  CHECK(integer(t, "gates_open") == 3);  // gate > 0
}

TEST_CASE("gelu and kv-memory read the chapter through src/models, in both languages", "[gelu][kv-memory][issue9]") {
  CHECK(chapter_ffn().z_printed.size() == 6);
  CHECK(planted_memory().features.at(planted_memory().answer) == "paris");
  TestConfig zh;
  zh.lang = Lang{"zh"};
  CHECK(std::get<std::string>(value_of(run("kv-memory", zh), "top_feature")) == "巴黎");
}

}  // namespace file_test_ffn
