// gate: golden fixtures (tests/golden/gen_qkv_gate_block.py), the silenced token, the parameter cost.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "lesson_args.h"
#include "catalog.h"
#include "gate.h"
#include "golden.h"
#include "lesson.h"
#include "random.h"
#include "row_stats.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_gate {

using namespace attn;

namespace {

Trace run_gate(TestConfig c = {}) { return run_lesson("gate", c); }

Scalar value_of(const Trace& t, const std::string& name) {
  for (const Step& s : t.steps)
    for (const Value& v : s.values)
      if (v.name == name) return v.value;
  FAIL("no value " << name);
  return {};
}

}  // namespace

TEST_CASE("gate matches numpy at the default size", "[golden][gate]") {
  // W_G comes from a linear solve here and numpy's pseudo-inverse (SVD) there: 1e-12 still holds.
  check_golden(run_gate(), "gate_default");
}

TEST_CASE("gate matches numpy with 3 heads and a causal mask", "[golden][gate]") {
  TestConfig c;
  c.seed = 9;
  c.seq_len = 5;
  c.d_model = 12;
  c.heads = 3;
  c.causal = true;
  check_golden(run_gate(c), "gate_causal");
}

TEST_CASE("gate: the silenced token's output is σ(-6) times the ungated one", "[gate]") {
  Trace t = run_gate();
  std::string s = std::get<std::string>(value_of(t, "silenced_token"));
  CHECK(s == "in");  // seed 42: 'in' has the lowest mean random gate (0.408, see the lesson output)
  const Tensor& gate = t.at("gate").tensor;
  const Tensor& out = t.at("output").tensor;
  const Tensor& ungated = t.at("output_ungated").tensor;
  double sig = 1.0 / (1.0 + std::exp(6.0));  // 0.0024726…
  for (std::size_t c = 0; c < 8; ++c) {
    CHECK(gate(2, c) == Approx(sig).epsilon(1e-12));
    // every channel of row 2 is scaled by the same σ(-6), so the whole output row is too
    CHECK(out(2, c) == Approx(sig * ungated(2, c)).margin(1e-15));
  }
  // the other tokens' gates did not move
  Tensor before = t.at("gate_random").tensor;
  CHECK(max_abs_diff_except_row(before, gate, 2) < 1e-14);
}

TEST_CASE("gate: a gate of exactly 1 is the ungated layer", "[gate]") {
  Rng rng(3);
  Tensor X = randn(rng, {3, 4});
  Tensor W_Q = init_weight(rng, 4, 4), W_K = init_weight(rng, 4, 4), W_V = init_weight(rng, 4, 4), W_O = init_weight(rng, 4, 4);
  GatedAttentionPass g = gated_attention(X, W_Q, W_K, W_V, W_O, Tensor({4, 4}), 2, false);
  for (double v : g.gate.data) CHECK(v == 0.5);  // σ(0) = 1/2 exactly
  CHECK(max_abs_diff(g.output, scale(g.output_ungated, 0.5)) < 1e-15);
}

TEST_CASE("gate: close_gate on a hand-made X", "[gate]") {
  // X rows e_1 and e_2 in 3 dims: u for token 0 is e_1, so only row 0 of W_G changes.
  Tensor X({2, 3}, {1, 0, 0, 0, 1, 0});
  Tensor W_G({3, 2}, {0.5, -0.5, 1.0, 2.0, 3.0, 4.0});
  Tensor W = close_gate(X, W_G, 0, -6.0);
  CHECK(W.data == std::vector<double>{-6.0, -6.0, 1.0, 2.0, 3.0, 4.0});
  CHECK_THROWS_AS(close_gate(Tensor({3, 2}, {1, 0, 0, 1, 1, 1}), Tensor({2, 2}), 0, -6.0), std::invalid_argument);
}

TEST_CASE("gate: extra parameters", "[gate]") {
  CHECK(gate_param_count(768, 12, 64) == 589824);     // 768 · 768
  CHECK(gate_param_count(2048, 16, 256) == 8388608);  // 2048 · 4096 (Qwen3-Next-80B-A3B)
}

TEST_CASE("gate with more tokens than d_model runs and keeps the random gate", "[gate][cli]") {
  TestConfig c;
  c.seq_len = 10;
  c.d_model = 4;
  Trace t = run_gate(c);
  CHECK(t.at("W_G").tensor.data == t.at("W_G_random").tensor.data);
  CHECK(t.steps[2].title == Text(Lang::En)("gate.silence.title", {{"shut", false}}));  // "the most closed gate"
  CliResult zh = run_cli("lesson gate --lang zh --color never");
  CHECK(zh.code == 0);
  CHECK(zh.out.find(Text(Lang{"zh"})("gate.silence.title", {{"shut", true}})) != std::string::npos);
}

TEST_CASE("gate: the random gates are spread out, only their mean is near 0.5", "[gate]") {
  // Issue 9: the lesson used to say "with random weights every gate sits around 0.5".
  Trace t = run_gate();
  const Tensor& g = t.at("gate_random").tensor;
  double lo = std::get<double>(value_of(t, "gate_random_min")), hi = std::get<double>(value_of(t, "gate_random_max"));
  double mean = std::get<double>(value_of(t, "gate_random_mean"));
  CHECK(lo == *std::min_element(g.data.begin(), g.data.end()));
  CHECK(hi == *std::max_element(g.data.begin(), g.data.end()));
  CHECK(lo == Approx(0.1248).margin(5e-5));  // seed 42, as printed
  CHECK(hi == Approx(0.9266).margin(5e-5));
  CHECK(mean == Approx(0.4854).margin(5e-5));
}

TEST_CASE("gate: on the output it scales what a token receives, on the values what the others read of it", "[gate]") {
  Trace t = run_gate();
  const Tensor& gate = t.at("gate").tensor;        // row 2 ('in') shut at σ(-6)
  const Tensor& V_gated = t.at("V_gated").tensor;  // V ⊙ gate
  const Tensor& out_v = t.at("output_value_gated").tensor;
  const Tensor& ungated = t.at("output_ungated").tensor;
  double sig = 1.0 / (1.0 + std::exp(6.0));
  Tensor V = matmul(t.at("X").tensor, t.at("W_V").tensor);  // (T, D)
  for (std::size_t c = 0; c < 8; ++c) {
    CHECK(V_gated(2, c) == Approx(sig * V(2, c)).margin(1e-15));  // nobody reads more than σ(-6) of 'in'
    CHECK(V_gated(0, c) == V(0, c) * gate(0, c));                 // the others: their own random gates
  }
  // under the value gate, 'in' still receives: its output row is far from σ(-6) times the ungated one
  Tensor row_v = row_norms(out_v), row_u = row_norms(ungated);
  CHECK(row_v.data[2] / row_u.data[2] > 0.3);
  // and under the output gate it is the other way round (the previous test): 'in' receives σ(-6)
  CHECK(row_norms(t.at("output").tensor).data[2] / row_u.data[2] == Approx(sig).epsilon(1e-9));
}

TEST_CASE("gate: value_gated_attention, by hand", "[gate]") {
  Rng rng(5);
  Tensor X = randn(rng, {3, 4});
  Tensor W_Q = init_weight(rng, 4, 4), W_K = init_weight(rng, 4, 4), W_V = init_weight(rng, 4, 4), W_O = init_weight(rng, 4, 4);
  AttentionPass p = grouped_attention(X, W_Q, W_K, W_V, W_O, 2, 2, false);
  // a gate of exactly 1 is plain attention, bit for bit
  Tensor ones({3, 4});
  for (double& v : ones.data) v = 1.0;
  CHECK(value_gated_attention(p, ones, W_O).output.data == p.output.data);
  // a gate of 0 on token 1: every head reads Σ_{j≠1} w_ij v_j, the same weights, token 1's value gone
  Tensor shut = ones;
  for (std::size_t c = 0; c < 4; ++c) shut(1, c) = 0.0;
  ValueGatedPass v = value_gated_attention(p, shut, W_O);
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t d = 0; d < 2; ++d) {
        double expect = p.weights(h, i, 0) * p.V_heads(h, 0, d) + p.weights(h, i, 2) * p.V_heads(h, 2, d);
        CHECK(v.heads(h, i, d) == Approx(expect).margin(1e-15));
      }
  CHECK_THROWS_AS(value_gated_attention(p, Tensor({3, 2}), W_O), std::invalid_argument);
}

TEST_CASE("spread_of: smallest, largest, mean", "[gate]") {
  Spread s = spread_of(Tensor({2, 2}, {0.5, -1.0, 2.0, 0.5}));
  CHECK(s.min == -1.0);
  CHECK(s.max == 2.0);
  CHECK(s.mean == 0.5);
}

}  // namespace file_test_gate
