// Issue 50's "what the learner tripped over": one flag for the points an activation is evaluated at
// (--x in gelu, as in ffn and swiglu; --values still works and says so), --color on every command
// that prints, a shipped model run without --text on its own sample sentence (said so), and the
// "wrote" lines saying the lesson text was not printed.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_course_fixes {

namespace {
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("gelu: --x is the flag, as in ffn and swiglu, and --values still works with a note", "[course][gelu]") {
  CliResult x = run_cli("lesson gelu --x '-1 0.5 2' --lang en --color never");
  REQUIRE(x.code == 0);
  CHECK(has(x.out, "the values you gave (--x)"));
  CHECK_FALSE(has(x.out, "old name"));
  CliResult v = run_cli("lesson gelu --values '-1 0.5 2' --lang en --color never");
  REQUIRE(v.code == 0);
  CHECK(has(v.out, "--values is the old name of --x"));
  // the same numbers either way: the runs differ only by that note
  CliResult xj = run_cli("lesson gelu --x '-1 0.5 2' --json -"), vj = run_cli("lesson gelu --values '-1 0.5 2' --json -");
  CHECK(nlohmann::json::parse(xj.out)["tensors"] == nlohmann::json::parse(vj.out)["tensors"]);
  CliResult both = run_cli("lesson gelu --x 1 --values 2 --lang en");
  CHECK(both.code == 2);
  CHECK(has(both.err, "--x and --values are the same flag"));
  CHECK(run_cli("lesson gelu --x 'a b'").code == 2);
}

TEST_CASE("every command that prints takes --color and checks its value", "[course][cli]") {
  for (const char* args : {"list", "models", "params --model gpt2", "kv-cache --model gpt2", "flops --model gpt2",
                           "course", "exercise", "lesson mha", "heads --weights text-en --text 'And Peter said'"}) {
    INFO(args);
    CHECK(run_cli(std::string(args) + " --color never", "XDG_STATE_HOME=/nonexistent-attnlab ").code == 0);
    CliResult bad = run_cli(std::string(args) + " --color sometimes", "XDG_STATE_HOME=/nonexistent-attnlab ");
    CHECK(bad.code == 2);
    CHECK(has(bad.err, "--color: 'sometimes' is not one of auto, always, never"));
  }
  CHECK(run_cli("train --help --lang en").out.find("--color") != std::string::npos);
  CHECK(run_cli("generate --help --lang en").out.find("--color") != std::string::npos);
}

TEST_CASE("a shipped model without --text runs on its own sample sentence, and says so", "[course][checkpoint]") {
  CliResult h = run_cli("heads --weights text-en --lang en");
  REQUIRE(h.code == 0);
  CHECK(has(h.out, "No --text given: the model's own sample sentence, \"And Peter said unto Jesus, Lord, and Jesus said unto Peter\""));
  // the same numbers as with that sentence given
  CliResult given = run_cli("heads --weights text-en --lang en --text 'And Peter said unto Jesus, Lord, and Jesus said unto Peter'");
  CHECK(h.out.substr(h.out.find("\n\n") + 2) == given.out);
  CliResult mla = run_cli("lesson mla --weights mla-en --lang en --color never");
  REQUIRE(mla.code == 0);
  CHECK(has(mla.out, "No --text given"));
  CliResult zh = run_cli("heads --weights text-zh --lang zh");
  CHECK(zh.code == 0);
  CHECK(has(zh.out, "没有给 --text"));
  // a model with no sample (synthetic tokens) still asks for --text or --token-ids
  CliResult none = run_cli("heads --weights induction --lang en");
  CHECK(none.code == 2);
  CHECK(has(none.err, "--text"));
}

TEST_CASE("a report written to files says it was not printed, and how to read it", "[course][output]") {
  const std::string path = "/tmp/attnlab_notprinted_" + std::to_string(::getpid()) + ".json";
  CliResult l = run_cli("lesson attention --lang en --json " + path);
  REQUIRE(l.code == 0);
  CHECK(l.out.empty());
  CHECK(has(l.err, "the lesson text was not printed"));
  CHECK(has(l.err, "attnlab render " + path + " --text"));
  CliResult rendered = run_cli("render " + path + " --text --color never --lang en");
  CHECK(rendered.code == 0);
  CHECK(rendered.out == run_cli("lesson attention --lang en --color never").out);
  std::remove(path.c_str());
  CliResult m = run_cli("models --lang en --json " + path);
  CHECK(has(m.err, "the report was not printed"));
  std::remove(path.c_str());
  CliResult dash = run_cli("lesson attention --lang en --json -");
  CHECK_FALSE(has(dash.err, "not printed"));
}

TEST_CASE("bench decode's last-level-cache note names the cache and twice it", "[course][bench]") {
  attn::Text t(attn::Lang{"en"});
  std::string note = t("bench.decode.note_llc", {{"llc", "32 MiB"}, {"twice", "64 MiB"}});
  CHECK(has(note, "the last-level cache is 32 MiB; twice it, 64 MiB"));
}

}  // namespace file_test_course_fixes
