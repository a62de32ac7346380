// Second review of gqa, mqa and mla: edge cases whose text used to contradict the numbers, and a
// usage error that named the wrong flag. Each test fails on the code before the fix.
#include <catch2/catch.hpp>

#include <string>

#include "run_cli.h"

namespace {

// The renderer wraps prose at the terminal width: join wrapped lines ("\n  " -> " ") before searching.
bool has(std::string s, const std::string& needle) {
  for (std::size_t i; (i = s.find("\n  ")) != std::string::npos;) s.replace(i, 3, " ");
  return s.find(needle) != std::string::npos;
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
  CHECK(has(run_cli("lesson gqa --heads 2 --d-model 100000").err, "reduce --d-model"));
}

TEST_CASE("review2: gqa and mqa count words agree with the numbers (1 key, not 1 keys)", "[gqa][mqa][review2]") {
  CliResult mqa = run_cli("lesson mqa --lang en --color never");
  REQUIRE(mqa.code == 0);
  CHECK(has(mqa.out, "1 key and 1 value per token instead of 4 of each"));
  CHECK(has(mqa.out, "K and V into 1 group."));
  CHECK(has(mqa.out, "only 1 different block."));
  CHECK_FALSE(has(mqa.out, "1 keys"));
  CHECK_FALSE(has(mqa.out, "1 groups"));

  CliResult one = run_cli("lesson gqa --heads 1 --lang en --color never");
  REQUIRE(one.code == 0);
  CHECK(has(one.out, "1 query head in 1 group,"));
  CHECK(has(one.out, "head 1 reads group 1"));
  CHECK_FALSE(has(one.out, "heads 1–1"));  // a range of one head

  CliResult gqa = run_cli("lesson gqa --lang en --color never");  // h 4, g 2: plural forms unchanged
  CHECK(has(gqa.out, "4 query heads share 2 key/value heads, 2 query heads per group"));
  CHECK(has(gqa.out, "heads 1–2 share group 1"));
  CHECK(has(gqa.out, "2 keys and 2 values per token instead of 4 of each"));
}

TEST_CASE("review2: gqa states the --kv-heads default for odd h (1, not h/2)", "[gqa][review2]") {
  CliResult r = run_cli("lesson gqa --heads 3 --lang en --color never");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "n_kv_heads=1"));
  CHECK(has(r.out, "or 1 when h is odd"));
  CHECK(has(run_cli("lesson gqa --heads 3 --lang zh --color never").out, "h 为奇数时取 1"));
}

TEST_CASE("review2: gqa's preset table in Chinese has no English model note", "[gqa][review2]") {
  CliResult r = run_cli("lesson gqa --lang zh --color never");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "DeepSeek LLM 67B"));
  CHECK_FALSE(has(r.out, "the baseline of"));
}

TEST_CASE("review2: mla with one token does not claim a mismatch it cannot show", "[mla][review2]") {
  CliResult r = run_cli("lesson mla --seq-len 1 --lang en --color never");
  REQUIRE(r.code == 0);
  CHECK_FALSE(has(r.out, "off by up to"));
  CHECK(has(r.out, "With a single token there is only position 0"));
  CliResult two = run_cli("lesson mla --seq-len 2 --lang en --color never");
  CHECK(has(two.out, "off by up to"));
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
