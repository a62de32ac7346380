// attention and mha against numpy (tests/golden/gen_attention_mha.py).
#include <catch2/catch.hpp>

#include "lesson_args.h"
#include "golden.h"
#include "lesson.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_golden_attention_mha {

using namespace attn;

namespace {

Trace run(const char* lesson, TestConfig c) { return run_lesson(lesson, c); }

}  // namespace

TEST_CASE("attention matches numpy at the default size", "[golden][attention]") {
  check_golden(run("attention", TestConfig{}), "attention_default");
}

TEST_CASE("attention matches numpy with a causal mask", "[golden][attention]") {
  TestConfig c;
  c.seed = 7;
  c.seq_len = 5;
  c.d_model = 6;
  c.head_dim = 3;
  c.causal = true;
  check_golden(run("attention", c), "attention_causal");
}

TEST_CASE("mha matches numpy at the default size", "[golden][mha]") {
  check_golden(run("mha", TestConfig{}), "mha_default");
}

TEST_CASE("mha matches numpy with 3 heads and a causal mask", "[golden][mha]") {
  TestConfig c;
  c.seed = 3;
  c.seq_len = 6;
  c.d_model = 12;
  c.heads = 3;
  c.causal = true;
  check_golden(run("mha", c), "mha_causal");
}

}  // namespace file_test_golden_attention_mha
