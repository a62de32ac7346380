// attention and mha against numpy (tests/golden/gen_attention_mha.py).
#include <catch2/catch.hpp>

#include "golden.h"
#include "lesson.h"

using namespace attn;

namespace {

Trace run(const char* lesson, LessonConfig c) { return find_lesson(lesson)->run(c); }

}  // namespace

TEST_CASE("attention matches numpy at the default size", "[golden][attention]") {
  check_golden(run("attention", LessonConfig{}), "attention_default");
}

TEST_CASE("attention matches numpy with a causal mask", "[golden][attention]") {
  LessonConfig c;
  c.seed = 7;
  c.seq_len = 5;
  c.d_model = 6;
  c.head_dim = 3;
  c.causal = true;
  check_golden(run("attention", c), "attention_causal");
}

TEST_CASE("mha matches numpy at the default size", "[golden][mha]") {
  check_golden(run("mha", LessonConfig{}), "mha_default");
}

TEST_CASE("mha matches numpy with 3 heads and a causal mask", "[golden][mha]") {
  LessonConfig c;
  c.seed = 3;
  c.seq_len = 6;
  c.d_model = 12;
  c.heads = 3;
  c.causal = true;
  check_golden(run("mha", c), "mha_causal");
}
