// gqa and mqa: golden fixtures from numpy, the equivalences (two code paths each), hand-worked
// counts, and the CLI as a user meets it.
#include <catch2/catch.hpp>

#include <algorithm>

#include "lesson_args.h"
#include "attention.h"
#include "catalog.h"
#include "golden.h"
#include "gqa.h"
#include "lesson.h"
#include "random.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_gqa {

using namespace attn;

namespace {

Trace run(const char* lesson, TestConfig c) { return run_lesson(lesson, c); }

TestConfig config(std::int64_t seed, std::int64_t T, std::int64_t d, std::int64_t h, std::int64_t g, bool causal) {
  TestConfig c;
  c.seed = seed;
  c.seq_len = T;
  c.d_model = d;
  c.heads = h;
  if (g > 0) c.kv_heads = g;
  c.causal = causal;
  return c;
}

const Value& value(const Trace& t, const std::string& name) {
  for (const Step& s : t.steps)
    for (const Value& v : s.values)
      if (v.name == name) return v;
  FAIL("no value " << name);
  throw std::logic_error("unreachable");
}

const Step& step(const Trace& t, const std::string& id) {
  for (const Step& s : t.steps)
    if (s.id == id) return s;
  FAIL("no step " << id);
  throw std::logic_error("unreachable");
}

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

void expect_usage_error(const std::string& args, const std::vector<std::string>& needles) {
  CliResult r = run_cli(args);
  INFO("attnlab " << args << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  for (const std::string& n : needles) CHECK(r.err.find(n) != std::string::npos);
}

}  // namespace

TEST_CASE("gqa matches numpy at the default size", "[golden][gqa]") {
  check_golden(run("gqa", TestConfig{}), "gqa_default");
}

TEST_CASE("gqa matches numpy with the chapter's 12 heads in 4 groups, causal", "[golden][gqa]") {
  check_golden(run("gqa", config(5, 5, 24, 12, 4, true)), "gqa_chapter_causal");
}

TEST_CASE("mqa matches numpy at the default size", "[golden][mqa]") {
  check_golden(run("mqa", TestConfig{}), "mqa_default");
}

TEST_CASE("mqa matches numpy with 3 heads and a causal mask", "[golden][mqa]") {
  check_golden(run("mqa", config(9, 6, 12, 3, 0, true)), "mqa_causal");
}

TEST_CASE("group_of_head: the chapter's map, heads 1-3 -> group 1", "[gqa]") {
  // 12 heads, 4 groups: r = 3 heads per group, head i reads i / 3.
  Tensor g = group_of_head(12, 4);
  CHECK(g.data == std::vector<double>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3});
  CHECK(group_of_head(4, 1).data == std::vector<double>{0, 0, 0, 0});
  CHECK(group_of_head(3, 3).data == std::vector<double>{0, 1, 2});
}

TEST_CASE("expand_kv_weights copies each group's block to its heads", "[gqa]") {
  // W (1, 4) = two groups of width 2: [a b | c d]; 4 heads -> [a b a b c d c d]
  Tensor W({1, 4}, {1, 2, 3, 4});
  CHECK(expand_kv_weights(W, 4, 2).data == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4});
}

TEST_CASE("equivalences: grouped (expanded) == by group == MHA on copied weights, and g = h == MHA", "[gqa][mqa]") {
  struct Case {
    std::size_t H, G, D, T;
  };
  for (Case k : {Case{4, 2, 8, 4}, Case{6, 3, 12, 5}, Case{12, 4, 24, 3}, Case{8, 1, 16, 6}, Case{4, 4, 8, 4},
                 Case{1, 1, 3, 2}}) {
    for (bool causal : {false, true}) {
      INFO("H " << k.H << " G " << k.G << " causal " << causal);
      Rng rng(1000 + k.H * 10 + k.G);
      std::size_t Dk = k.D / k.H;
      Tensor X = randn(rng, {k.T, k.D});
      Tensor W_Q = init_weight(rng, k.D, k.H * Dk), W_K = init_weight(rng, k.D, k.G * Dk);
      Tensor W_V = init_weight(rng, k.D, k.G * Dk), W_O = init_weight(rng, k.H * Dk, k.D);
      AttentionPass gqa = grouped_attention(X, W_Q, W_K, W_V, W_O, k.H, k.G, causal);
      GroupedPass by_group = gqa_by_group(X, W_Q, W_K, W_V, W_O, k.H, k.G, causal);
      Tensor W_Kc = expand_kv_weights(W_K, k.H, k.G), W_Vc = expand_kv_weights(W_V, k.H, k.G);
      AttentionPass mha = grouped_attention(X, W_Q, W_Kc, W_Vc, W_O, k.H, k.H, causal);
      GroupedPass by_group_h = gqa_by_group(X, W_Q, W_Kc, W_Vc, W_O, k.H, k.H, causal);
      CHECK(max_abs_diff(by_group.output, gqa.output) <= 1e-12);
      CHECK(max_abs_diff(by_group.weights, gqa.weights) <= 1e-12);
      CHECK(max_abs_diff(mha.output, gqa.output) <= 1e-12);
      CHECK(max_abs_diff(by_group_h.output, mha.output) <= 1e-12);
      // The test can fail: a wrong group map (head i reading group i % G) gives another output.
      if (k.G > 1 && k.G < k.H) {
        std::vector<Tensor> blocks;
        for (std::size_t i = 0; i < k.H; ++i) blocks.push_back(col_block(W_K, i % k.G, Dk));
        Tensor W_Kwrong = concat_cols(blocks);  // (D, H*Dk)
        AttentionPass wrong = grouped_attention(X, W_Q, W_Kwrong, W_Vc, W_O, k.H, k.H, causal);
        CHECK(max_abs_diff(wrong.output, gqa.output) > 1e-3);
      }
    }
  }
}

TEST_CASE("gqa with g = h is the mha lesson, number for number", "[gqa][mha]") {
  for (bool causal : {false, true}) {
    TestConfig c = config(3, 5, 12, 3, 3, causal);
    Trace g = run("gqa", c);
    c.kv_heads.reset();
    Trace m = run("mha", c);
    for (const char* name : {"X", "W_Q", "W_K", "W_V", "W_O", "Q_heads", "K_heads", "V_heads", "scores", "weights",
                             "heads", "concat", "output"}) {
      INFO(name);
      const Tensor &a = g.at(name).tensor, &b = m.at(name).tensor;
      REQUIRE(a.shape == b.shape);
      CHECK(std::equal(a.data.begin(), a.data.end(), b.data.begin()));  // -inf == -inf too
    }
  }
}

TEST_CASE("KV cache counts: 24 -> 8 -> 2, 2/3 less", "[gqa]") {
  // 12 heads: 2·12 = 24 vectors; 4 groups: 2·4 = 8; MQA: 2. Elements at d_k 64: 2·4·64 = 512.
  CHECK(kv_cache_vectors(12) == 24);
  CHECK(kv_cache_vectors(4) == 8);
  CHECK(kv_cache_vectors(1) == 2);
  CHECK(kv_cache_elements(4, 64) == 512);
  // (12 − 4) / 12 = 8/12 = 2/3; (12 − 1) / 12 = 11/12; (4 − 4) / 4 = 0/1
  CHECK(cache_reduction(12, 4).num == 2);
  CHECK(cache_reduction(12, 4).den == 3);
  CHECK(cache_reduction(12, 1).num == 11);
  CHECK(cache_reduction(12, 1).den == 12);
  CHECK(cache_reduction(4, 4).num == 0);
}

TEST_CASE("parameter count 2·d·d + 2·d·g·d_k", "[gqa]") {
  // d 768, 12 heads of 64, 4 groups: 2·768·768 + 2·768·4·64 = 1,179,648 + 393,216 = 1,572,864
  CHECK(attention_param_count(768, 12, 4, 64) == 1572864);
  // MQA: 1,179,648 + 2·768·64 = 1,179,648 + 98,304 = 1,277,952; MHA: 4·768² = 2,359,296
  CHECK(attention_param_count(768, 12, 1, 64) == 1277952);
  CHECK(attention_param_count(768, 12, 12, 64) == 2359296);
}

TEST_CASE("lesson gqa --heads 12 --kv-heads 4 reproduces the chapter", "[gqa][cli]") {
  Trace t = run("gqa", config(42, 4, 24, 12, 4, false));
  CHECK(std::get<std::int64_t>(value(t, "kv_vectors_mha").value) == 24);
  CHECK(std::get<std::int64_t>(value(t, "kv_vectors_run").value) == 8);
  CHECK(std::get<std::int64_t>(value(t, "kv_vectors_mqa").value) == 2);
  CHECK(std::get<std::string>(value(t, "cache_saved").value) == "2/3");
  CHECK(std::get<double>(value(t, "gqa_vs_mha_copied").value) <= 1e-12);
  CHECK(std::get<double>(value(t, "gqa_vs_by_group").value) <= 1e-12);

  // The group map's table: heads 1–3 read group 1, heads 10–12 group 4 (the catalog's words, the lesson's numbers).
  Text en(Lang::En);
  const Step& map = step(t, "group_map");
  REQUIRE(map.tables.size() == 1);
  REQUIRE(map.tables[0].rows.size() == 4);
  CHECK(std::get<std::string>(map.tables[0].rows[0][1]) ==
        en("kv_sharing.group_map.row.heads", {{"single", false}, {"first", 1}, {"last", 3}}));
  CHECK(std::get<std::string>(map.tables[0].rows[3][1]) ==
        en("kv_sharing.group_map.row.heads", {{"single", false}, {"first", 10}, {"last", 12}}));
  CHECK(step(t, "kv_cache").notes[0] ==
        en("kv_sharing.kv_cache.note", {{"mha", 24}, {"gqa", 8}, {"mqa", 2}, {"num", 2}, {"den", 3}}));

  CliResult r = run_cli("lesson gqa --heads 12 --kv-heads 4 --lang en --color never");
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  for (const char* needle : {"24 → 8 → 2", "1,572,864", "Q_heads  [12, 4, 2]", "K_heads  [4, 4, 2]",
                             "group_of_head  [12]"})
    CHECK(r.out.find(needle) != std::string::npos);
  CliResult zh = run_cli("lesson gqa --heads 12 --kv-heads 4 --lang zh --color never");
  REQUIRE(zh.code == 0);
  Text tzh(Lang{"zh"});
  for (const std::string& needle : {tzh("kv_sharing.group_map.row.heads", {{"single", false}, {"first", 1}, {"last", 3}}),
                                    tzh("kv_sharing.group_map.title")})
    CHECK(zh.out.find(needle) != std::string::npos);
}

TEST_CASE("gqa says when d_model is derived from --heads rather than given", "[gqa][mqa]") {
  // Issue 15: --heads 12 alone raises d_model from 8 to 24; the numbers stay, a note says why.
  // Issue 50: as mha says it, a header note under the config line (kept by --step on any step).
  auto d_model_notes = [](const Trace& t) {
    return std::count(t.header_notes.begin(), t.header_notes.end(),
                      Text(Lang::En)("common.note_d_model_derived", {{"d_model", 24}, {"heads", 12}, {"d_k", 2}}));
  };
  TestConfig c;
  c.heads = 12;
  c.kv_heads = 4;
  Trace derived = run("gqa", c);
  CHECK(std::get<std::int64_t>(derived.config[4].value) == 24);
  CHECK(d_model_notes(derived) == 1);
  c.d_model = 24;
  Trace given = run("gqa", c), plain = run("gqa", TestConfig{});
  CHECK(d_model_notes(given) == 0);  // given: no note
  CHECK(given.header_notes.empty());
  CHECK(plain.header_notes.empty());  // the default 8: no note
  CHECK(step(derived, "input").notes.empty());  // no longer a note of the first step alone
  TestConfig m;
  m.heads = 12;
  CHECK(d_model_notes(run("mqa", m)) == 1);
}

TEST_CASE("lesson mqa tells its own story", "[mqa][cli]") {
  // mqa runs on the gqa engine but speaks of one KV head: its catalog overrides the engine's
  // GQA titles ("GQA is an MHA …"), and every step title comes from mqa's catalog where it has one.
  Text en(Lang::En);
  Trace t = run("mqa", TestConfig{});
  for (const char* id : {"input", "group_map", "project", "split_heads", "equivalence", "trade_off"}) {
    INFO(id);
    REQUIRE(en.has(std::string("mqa.") + id + ".title"));
    CHECK(step(t, id).title == en(std::string("mqa.") + id + ".title"));
    if (en.has(std::string("kv_sharing.") + id + ".title"))
      CHECK(step(t, id).title != en(std::string("kv_sharing.") + id + ".title"));
  }
  for (const Step& s : t.steps) CHECK(s.title.find("GQA") == std::string::npos);
  CHECK(t.at("output_by_group").meaning == en("mqa.tensor.output_by_group"));
  CHECK(std::get<double>(value(t, "head_output_difference").value) > 0.1);

  CliResult r = run_cli("lesson mqa --lang en --color never");
  REQUIRE(r.code == 0);
  for (const char* needle : {"Falcon 7B", "70/71"}) CHECK(r.out.find(needle) != std::string::npos);
  CHECK(run_cli("lesson mqa --json -").out == run_cli("lesson mqa --json -").out);
}

TEST_CASE("gqa / mqa bad combinations exit 2 naming the flags", "[gqa][mqa][cli]") {
  expect_usage_error("lesson gqa --heads 3 --kv-heads 2", {"--heads 3", "--kv-heads 2"});
  expect_usage_error("lesson gqa --heads 4 --kv-heads 8", {"--heads 4", "--kv-heads 8"});
  expect_usage_error("lesson gqa --kv-heads 0", {"--kv-heads"});
  expect_usage_error("lesson gqa --d-model 10 --heads 4 --kv-heads 2", {"--d-model 10", "--heads 4"});
  expect_usage_error("lesson mqa --kv-heads 2", {"--kv-heads"});
  expect_usage_error("lesson mqa --heads 0", {"--heads"});
}

}  // namespace file_test_gqa
