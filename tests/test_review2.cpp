// Second review of gqa, mqa and mla: edge cases whose text used to contradict the numbers, and a
// usage error that named the wrong flag. Each test fails on the code before the fix.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "lesson_args.h"
#include "catalog.h"
#include "lesson.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_review2 {

using namespace attn;

namespace {

// The renderer wraps prose at the terminal width: join wrapped lines ("\n  " -> " ") before searching.
bool has(std::string s, const std::string& needle) {
  for (std::size_t i; (i = s.find("\n  ")) != std::string::npos;) s.replace(i, 3, " ");
  return s.find(needle) != std::string::npos;
}

const Step& step(const Trace& t, const std::string& id) {
  for (const Step& s : t.steps)
    if (s.id == id) return s;
  throw std::out_of_range("no step " + id);
}

std::int64_t config_int(const Trace& t, const std::string& name) {
  for (const Value& v : t.config)
    if (v.name == name) return std::get<std::int64_t>(v.value);
  throw std::out_of_range("no config " + name);
}

}  // namespace

TEST_CASE("review2: gqa --heads alone too large names --heads, not the unset --d-model", "[gqa][review2]") {
  CliResult r = run_cli("lesson gqa --heads 100000");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(has(r.err, "--heads"));
  CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  CliResult m = run_cli("lesson mqa --heads 100000");
  CHECK(m.code == 2);
  CHECK(has(m.err, "--heads"));
  // with --d-model given, --d-model is the flag to reduce
  CHECK(has(run_cli("lesson gqa --heads 2 --d-model 100000").err, "--d-model"));
}

TEST_CASE("review2: gqa and mqa count words agree with the numbers (1 key, not 1 keys)", "[gqa][mqa][review2]") {
  // The engine's messages with one KV group (gqa --heads 1, or --kv-heads 1) and with two.
  Text en(Lang::En);
  Args one{{"d_model", 2}, {"heads", 1}, {"d_k", 2}, {"groups", 1}, {"kv_width", 2}, {"per", 1}, {"width", 2}};
  CHECK(has(en("kv_sharing.project.text", one), "1 key and 1 value per token instead of 1 of each"));
  CHECK(has(en("kv_sharing.split_heads.text", one), "K and V into 1 group."));
  CHECK(has(en("kv_sharing.split_heads.text", one), "of which only 1 is different."));
  CHECK(has(en("kv_sharing.equivalence.text", one), "only 1 different block."));
  CHECK(has(en("kv_sharing.group_map.text", one), "1 query head shares 1 key/value head, 1 query head per group"));
  CHECK(has(en("kv_sharing.group_map.text", one), "head 1 reads group 1"));
  CHECK(en("kv_sharing.group_map.row.heads", {{"single", true}, {"first", 1}, {"last", 1}}) == "head 1");  // not "heads 1–1"
  CHECK(has(en("gqa.input.text", one), "1 query head in 1 group,"));
  Args two{{"d_model", 8}, {"heads", 4}, {"d_k", 2}, {"groups", 2}, {"kv_width", 4}, {"per", 2}, {"width", 8}};
  CHECK(has(en("kv_sharing.group_map.text", two), "4 query heads share 2 key/value heads, 2 query heads per group"));
  CHECK(has(en("kv_sharing.group_map.text", two), "heads 1–2 share group 1"));
  CHECK(has(en("kv_sharing.project.text", two), "2 keys and 2 values per token instead of 4 of each"));
  CHECK(has(en("mqa.project.text", two), "1 key and 1 value per token instead of 4 of each"));

  // The lessons pass those counts: gqa --heads 1 has one group of one head; mqa one group of all.
  TestConfig c;
  c.heads = 1;
  Trace g = run_lesson("gqa", c);
  CHECK(config_int(g, "n_kv_heads") == 1);
  for (const Step& s : g.steps) CHECK_FALSE(has(s.text, "1 keys"));
  Trace m = run_lesson("mqa", TestConfig{});
  for (const Step& s : m.steps) {
    CHECK_FALSE(has(s.text, "1 keys"));
    CHECK_FALSE(has(s.text, "1 groups"));
  }
}

TEST_CASE("review2: gqa states the --kv-heads default for odd h (1, not h/2)", "[gqa][review2]") {
  TestConfig c;
  c.heads = 3;
  Trace t = run_lesson("gqa", c);
  CHECK(config_int(t, "n_kv_heads") == 1);
  Args a{{"heads", 3}, {"groups", 1}, {"d_model", 9}, {"d_k", 3}};
  CHECK(has(Text(Lang::En)("gqa.input.text", a), "or 1 when h is odd"));
  CHECK(has(Text(Lang{"zh"})("gqa.input.text", a), "h 为奇数时取 1"));
}

TEST_CASE("review2: gqa's preset table in Chinese has no English model note", "[gqa][review2]") {
  CliResult r = run_cli("lesson gqa --lang zh --color never");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "DeepSeek LLM 67B"));
  CHECK_FALSE(has(r.out, "the baseline of"));
}

TEST_CASE("review2: mla with one token does not claim a mismatch it cannot show", "[mla][review2]") {
  Text en(Lang::En);
  TestConfig c;
  c.seq_len = 1;
  const Trace t1 = run_lesson("mla", c);
  const Step& one = step(t1, "rope_on_latent");
  // The second note is the verdict on the conversation's "位置信息会乱掉" (issue 29), with no mismatch
  // to quote when there is one token.
  REQUIRE(one.notes.size() == 2);
  CHECK(one.notes[0] == en("mla.rope_on_latent.note_one_token"));
  CHECK(one.notes[1].find("The conversation says") == 0);
  CHECK(one.notes[1].find("off by") == std::string::npos);
  c.seq_len = 2;
  const Trace two = run_lesson("mla", c);
  const Step& s2 = step(two, "rope_on_latent");
  REQUIRE(s2.notes.size() == 2);
  double mismatch = 0;
  for (const Value& v : s2.values)
    if (v.name == "rope_on_latent_mismatch") mismatch = std::get<double>(v.value);
  CHECK(mismatch > 1e-3);
  CHECK(s2.notes[0] == en("mla.rope_on_latent.note", {{"mismatch", mismatch}}));
  CHECK(s2.notes[1] == en("mla.rope_on_latent.note_seed", {{"several", true}, {"mismatch", mismatch}}));
}

TEST_CASE("review2: mla's decode note gives the re-expansion cost as the table does", "[mla][review2]") {
  // DeepSeek-V3 at L = 4096: latent_reexpand / kv_cache MACs = 69,004,689,408 / 301,989,888 = 228.5
  // exactly; the table prints 228.5000, the note used to round it to "228×".
  CliResult r = run_cli("lesson mla --lang en --color never");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "228.5000"));
  CHECK(has(r.out, "228.5×"));
  CHECK(has(run_cli("lesson mla --lang zh --color never").out, "228.5 倍"));
}

}  // namespace file_test_review2
