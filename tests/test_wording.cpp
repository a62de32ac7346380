// Text a learner reads, checked where a review found it wrong.
#include <catch2/catch.hpp>

#include <algorithm>

#include "lesson_args.h"
#include "catalog.h"
#include "lesson.h"
#include "run_cli.h"
#include "tensor.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_wording {

using namespace attn;

TEST_CASE("gelu zh: 'of the 6 printed values, 3 are right' in that order", "[wording][gelu]") {
  // The chapter prints 6 GELU values; 3 round to the computed ones (see lessons/gelu/gelu.cpp).
  // Before: "3 个印出的值中 6 个正确" — "of 3 printed values, 6 are right". The note is
  // gelu.chapter.note with named counts; the summary line is the last note of step "chapter".
  TestConfig c;
  c.lang = Lang{"zh"};
  Trace t = run_lesson("gelu", c);
  const Step* s = nullptr;
  for (const Step& st : t.steps)
    if (st.id == "chapter") s = &st;
  REQUIRE(s != nullptr);
  REQUIRE(!s->notes.empty());
  std::string summary = Text(Lang{"zh"})("gelu.chapter.note", {{"wrong", 3}, {"right", 3}, {"checked", 6},
                                                                {"kept_03", 100.0 * gelu(0.3) / 0.3},
                                                                {"kept_08", 100.0 * gelu(0.8) / 0.8},
                                                                {"kept_2", 100.0 * gelu(2.0) / 2.0}});
  CHECK(s->notes.back() == summary);
  CHECK(summary.find("印出的 6 个值中 3 个正确，3 个有误") == 0);
}

TEST_CASE("mha: head i's columns are counted with heads from 1", "[wording][mha]") {
  CliResult en = run_cli("lesson mha --lang en --color never");
  CHECK(en.out.find("(i−1)·d_k … i·d_k−1") != std::string::npos);
  CHECK(en.out.find("i·d_k … (i+1)·d_k") == std::string::npos);
}

TEST_CASE("kv-memory: when every activation is negative, no key is said to fire", "[wording][kv-memory]") {
  // Germany input at the default seed: every match_other is negative (largest -0.0193, key 7), so every
  // GELU activation is below 0 and the "keys that fire most" are only the least negative ones: the
  // note kv_memory.match.note_none is in step match_other and only there.
  Trace t = run_lesson("kv-memory", TestConfig{});
  std::string none = Text(Lang{"en"})("kv_memory.match.note_none");
  for (const Step& s : t.steps) {
    INFO(s.id);
    bool has_note = std::find(s.notes.begin(), s.notes.end(), none) != s.notes.end();
    CHECK(has_note == (s.id == "match_other"));
  }
}

TEST_CASE("params zh: the model line is Chinese punctuation throughout, en says '1 layer'", "[wording][params]") {
  // Before: "GQA: 32 个查询头， 8 个 KV 头 × d_h 128, d_model 4096, 32 层" and "…, 1 layers".
  CliResult zh = run_cli("params --model llama-3-8b --lang zh");
  CHECK(zh.out.find("GQA：32 个查询头，8 个 KV 头 × d_h 128，d_model 4096，32 层") != std::string::npos);
  CHECK(run_cli("params --d-model 64 --heads 2 --lang en").out.find("d_model 64, 1 layer\n") != std::string::npos);
  CHECK(run_cli("kv-cache --d-model 64 --heads 2 --lang en").out.find("MHA 2 x 32, 1 layer\n") != std::string::npos);
}

TEST_CASE("mla step 9: RoPE can rotate the compressed keys, what fails is absorption", "[wording][mla]") {
  // Before: "Why RoPE cannot rotate the compressed keys" — the naive path computes RoPE on K_C fine.
  attn::Text en(attn::Lang::En);
  attn::Trace t = attn::run_lesson("mla", attn::TestConfig{});
  const attn::Step* s = nullptr;
  for (const attn::Step& x : t.steps)
    if (x.id == "rope_on_latent") s = &x;
  REQUIRE(s != nullptr);
  CHECK(s->title == en("mla.rope_on_latent.title"));
  CHECK(s->title.find("cannot") == std::string::npos);
  CHECK(s->title.find("absorption") != std::string::npos);
  CHECK(s->text.find("What fails is absorption") != std::string::npos);
  attn::Text zh(attn::Lang{"zh"});
  CHECK(zh("mla.rope_on_latent.title").find("不能旋转") == std::string::npos);
}

}  // namespace file_test_wording
