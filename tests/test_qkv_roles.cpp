// qkv-roles: golden fixtures (tests/golden/gen_qkv_gate_block.py) and the ablations' invariants.
#include <catch2/catch.hpp>

#include "lesson_args.h"
#include "attention.h"
#include "catalog.h"
#include "golden.h"
#include "lesson.h"
#include "qkv_ablation.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_qkv_roles {

using namespace attn;

namespace {

Trace run_qkv(TestConfig c = {}) { return run_lesson("qkv-roles", c); }

// The renderer wraps prose at the terminal width: join wrapped lines ("\n  " -> " ") before searching.
bool has_wrapped(std::string s, const std::string& needle) {
  for (std::size_t i; (i = s.find("\n  ")) != std::string::npos;) s.replace(i, 3, " ");
  return s.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("qkv-roles matches numpy at the default size", "[golden][qkv-roles]") {
  check_golden(run_qkv(), "qkv_roles_default");
}

TEST_CASE("qkv-roles matches numpy with 6 tokens, d_model 12, 3 heads", "[golden][qkv-roles]") {
  TestConfig c;
  c.seed = 5;
  c.seq_len = 6;
  c.d_model = 12;
  c.heads = 3;
  check_golden(run_qkv(c), "qkv_roles_wide");
}

TEST_CASE("qkv-roles: the ablations' invariants hold exactly", "[qkv-roles]") {
  Trace t = run_qkv();
  const Tensor& S = t.at("scores_raw").tensor;
  CHECK(asymmetry(S) == 0.0);  // x_i · x_j and x_j · x_i are the same products summed in the same order
  CHECK(asymmetry(t.at("scores_qk").tensor) > 0.1);  // two different matrices: not symmetric
  // (b): every weight is exactly 1/4 and every output row is bit-for-bit the same
  for (double w : t.at("weights_only_v").tensor.data) CHECK(w == 0.25);
  CHECK(max_row_spread(t.at("output_only_v").tensor) == 0.0);
  // (d) has exactly (c)'s weights: W_V plays no part in the pattern
  CHECK(t.at("weights_full").tensor.data == t.at("weights_qk").tensor.data);
  // seed 42: all 4 raw tokens attend most to themselves, only 1 does once W_Q, W_K are in (see the lesson output)
  CHECK(self_attending_rows(t.at("weights_raw").tensor).size() == 4);
  CHECK(self_attending_rows(t.at("weights_qk").tensor).size() == 1);
}

TEST_CASE("self_attending_rows and max_row_spread on hand-made matrices", "[qkv-roles]") {
  // rows: diagonal wins; column 0 wins; tie between 1 and 2 (a tie is not "most")
  Tensor w({3, 3}, {0.6, 0.3, 0.1,
                    0.5, 0.4, 0.1,
                    0.1, 0.45, 0.45});
  CHECK(self_attending_rows(w) == std::vector<std::size_t>{0});
  Tensor x({2, 2}, {1.0, 2.0, 1.5, 1.0});
  CHECK(max_row_spread(x) == Approx(1.0));  // |1.0 - 2.0| = 1 beats |1.5 - 1.0| = 0.5
}

TEST_CASE("qkv-roles on the command line: both languages, bad sizes", "[qkv-roles][cli]") {
  CliResult en = run_cli("lesson qkv-roles --lang en --color never");
  CHECK(en.code == 0);
  Text text(Lang::En);
  std::string self = text("qkv_roles.ablation_raw.note_self", {{"self", 4}, {"T", 4}, {"names", "Xiaoming yesterday in Beijing"}});
  CHECK(has_wrapped(en.out, self));
  CliResult zh = run_cli("lesson qkv-roles --lang zh --color never");
  CHECK(zh.code == 0);
  CHECK(zh.out.find(Text(Lang{"zh"})("qkv_roles.ablation_only_v.title")) != std::string::npos);
  CliResult bad = run_cli("lesson qkv-roles --d-model 9 --heads 2");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("--d-model") != std::string::npos);
}

TEST_CASE("qkv-roles: the self-attending count agrees in number, and the two languages name the same counts", "[qkv-roles]") {
  // zh used to take the two counts in swapped order ("{} 个词里有 {} 个"): with 1 of 4 it said "of 1 token, 4".
  Text en(Lang::En), zh(Lang{"zh"});
  CHECK(en("qkv_roles.ablation_raw.note_self", {{"self", 1}, {"T", 4}, {"names", "in"}}).find("1 of 4 tokens attends most to itself") == 0);
  CHECK(en("qkv_roles.ablation_raw.note_self", {{"self", 3}, {"T", 4}, {"names", "a b c"}}).find("3 of 4 tokens attend most to themselves") == 0);
  CHECK(zh("qkv_roles.ablation_raw.note_self", {{"self", 1}, {"T", 4}, {"names", "在"}}).find("4 个词元里有 1 个") == 0);
}

TEST_CASE("qkv-roles: the head contributions are the mha ones, summing to the output", "[qkv-roles]") {
  Trace t = run_qkv();
  const Tensor& parts = t.at("head_contributions").tensor;
  CHECK(parts.shape == Shape{2, 4, 8});
  CHECK(max_abs_diff(sum_over_heads(parts), t.at("output").tensor) < 1e-15);
}

}  // namespace file_test_qkv_roles
