// block: golden fixtures (tests/golden/gen_qkv_gate_block.py), LayerNorm by hand, 7,087,872.
#include <catch2/catch.hpp>

#include <cmath>

#include "lesson_args.h"
#include "block.h"
#include "golden.h"
#include "layernorm.h"
#include "lesson.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_block {

using namespace attn;

TEST_CASE("block matches numpy at the default size", "[golden][block]") {
  check_golden(run_lesson("block", TestConfig{}), "block_default");
}

TEST_CASE("block matches numpy: causal, 3 heads, d_ff 20, tanh GELU", "[golden][block]") {
  TestConfig c;
  c.seed = 11;
  c.seq_len = 5;
  c.d_model = 12;
  c.heads = 3;
  c.d_ff = 20;
  c.causal = true;
  c.activation = "gelu-tanh";
  check_golden(run_lesson("block", c), "block_causal_tanh");
}

TEST_CASE("layernorm on one hand-worked row", "[block]") {
  // x = (1, 2, 3, 6): mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5, rstd = 1/sqrt(3.5 + 1e-5)
  Tensor x({1, 4}, {1, 2, 3, 6});
  LayerNormPass p = layernorm(x, Tensor({4}, {1, 1, 2, 1}), Tensor({4}, {0, 0, 0, 0.5}));
  double rstd = 1.0 / std::sqrt(3.5 + 1e-5);
  CHECK(p.mean.data[0] == 3.0);
  CHECK(p.rstd.data[0] == Approx(rstd).epsilon(1e-15));
  CHECK(p.out(0, 0) == Approx(-2 * rstd));      // (1 − 3) · rstd · γ 1
  CHECK(p.out(0, 2) == 0.0);                    // (3 − 3) · rstd · γ 2 + β 0
  CHECK(p.out(0, 3) == Approx(3 * rstd + 0.5));  // (6 − 3) · rstd · 1 + β 0.5
}

TEST_CASE("GPT-2 small: one block has exactly 7,087,872 parameters", "[block]") {
  // ln1 2·768 = 1,536; W_Q,W_K,W_V + biases 3·768² + 3·768 = 1,771,776; W_O + b_O 768² + 768 = 590,592;
  // ln2 1,536; W_1 + b_1 768·3072 + 3072 = 2,362,368; W_2 + b_2 3072·768 + 768 = 2,360,064.
  // 1,536 + 1,771,776 + 590,592 + 1,536 + 2,362,368 + 2,360,064 = 7,087,872
  BlockParamCount c = block_param_count(768, 3072);
  CHECK(c.qkv == 1771776);
  CHECK(c.fc == 2362368);
  CHECK(c.total == 7087872);
  // the default run: d 8, d_ff 32: 16 + 216 + 72 + 16 + 288 + 264 = 872
  CHECK(block_param_count(8, 32).total == 872);
}

TEST_CASE("block: the residual stream adds up and LayerNorm rows are normalized", "[block]") {
  Trace t = run_lesson("block", TestConfig{});
  const Tensor& X = t.at("X").tensor;
  CHECK(t.at("resid1").tensor.data == add(X, t.at("attn_out").tensor).data);
  CHECK(t.at("output").tensor.data == add(t.at("resid1").tensor, t.at("ffn_out").tensor).data);
  // with γ = 1 and β = 0, LayerNorm's output rows have mean 0 and variance var/(var + ε)
  LayerNormPass p = layernorm(X, Tensor({8}, std::vector<double>(8, 1.0)), Tensor({8}));
  for (std::size_t r = 0; r < 4; ++r) {
    double m = 0, v = 0;
    for (std::size_t c = 0; c < 8; ++c) m += p.out(r, c) / 8;
    for (std::size_t c = 0; c < 8; ++c) v += (p.out(r, c) - m) * (p.out(r, c) - m) / 8;
    CHECK(std::fabs(m) < 1e-15);
    // var / (var + ε) = 1 − ε · rstd²: just under 1, by the ε
    CHECK(v == Approx(1.0 - 1e-5 * p.rstd.data[r] * p.rstd.data[r]).epsilon(1e-12));
    CHECK(v < 1.0);
  }
}

TEST_CASE("block on the command line", "[block][cli]") {
  CliResult zh = run_cli("lesson block --lang zh --color never");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("7,087,872") != std::string::npos);
  CliResult bad = run_cli("lesson block --activation swish");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("--activation") != std::string::npos);
}

}  // namespace file_test_block
