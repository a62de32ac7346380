// The exact bytes of a few runs (tests/snapshots, written by scripts/update-snapshots). The same
// flags must print the same bytes on every compiler, standard library and platform: a build that
// rounds differently, orders a sum differently or draws other random numbers fails here.
#include <catch2/catch.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_snapshots {

namespace {

void check_snapshot(const std::string& name, const std::string& args) {
  CliResult r = run_cli(args + " 2>&1", "LANG=C.UTF-8 LC_ALL= NO_COLOR=1 ");
  std::string expected = slurp(std::string(ATTNLAB_TEST_DIR) + "/snapshots/" + name + ".txt");
  INFO("snapshot " << name << ": if the change is intended, run scripts/update-snapshots and read the diff");
  REQUIRE(!expected.empty());
  CHECK(r.code == 0);
  CHECK(r.out == expected);
}

}  // namespace

TEST_CASE("snapshot: lesson mha in English", "[snapshot]") {
  check_snapshot("mha_en", "lesson mha --lang en --color never");
}

TEST_CASE("snapshot: lesson attention in Chinese with a causal mask", "[snapshot]") {
  check_snapshot("attention_zh_causal", "lesson attention --lang zh --color never --causal");
}

TEST_CASE("snapshot: the mla JSON trace, every number at full precision", "[snapshot]") {
  check_snapshot("mla_json", "lesson mla --json -");
}

TEST_CASE("snapshot: kv-cache for DeepSeek-V3", "[snapshot]") {
  check_snapshot("kv_cache_deepseek_v3", "kv-cache --model deepseek-v3 --seq-len 32768 --lang en");
}

}  // namespace file_test_snapshots
