// The thread count never changes a number: every lesson prints the same bytes, text and JSON
// trace, with --threads 1 and --threads 2, at its default size and at the chapter's 768/12/16.
#include <catch2/catch.hpp>

#include "lesson.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_threads {

using namespace attn;

namespace {

void same_bytes_for_any_thread_count(const std::string& args) {
  INFO("attnlab " << args);
  for (const char* form : {"", " --json -"}) {
    CliResult one = run_cli(args + form + " --threads 1");
    CliResult two = run_cli(args + form + " --threads 2");
    REQUIRE(one.code == 0);
    REQUIRE(two.code == 0);
    CHECK(one.out.size() > 100);
    CHECK(one.out == two.out);
  }
}

}  // namespace

TEST_CASE("every lesson prints the same bytes with 1 and 2 threads", "[threads]") {
  for (const LessonInfo* l : all_lessons()) same_bytes_for_any_thread_count(std::string("lesson ") + l->name);
}

TEST_CASE("the chapter's 768/12/16 prints the same bytes with 1 and 2 threads", "[threads]") {
  for (const char* lesson : {"mha", "gqa", "mqa", "gate", "qkv-roles", "block"})
    same_bytes_for_any_thread_count(std::string("lesson ") + lesson + " --d-model 768 --heads 12 --seq-len 16");
  same_bytes_for_any_thread_count("lesson attention --d-model 768 --head-dim 64 --seq-len 16");
  same_bytes_for_any_thread_count("lesson mla --d-model 768 --heads 12 --seq-len 16");
}

TEST_CASE("a --threads outside 1 to 1024 is refused by name", "[threads][cli]") {
  for (const char* bad : {"0", "1025"}) {
    CliResult r = run_cli(std::string("lesson mha --threads ") + bad);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("--threads") != std::string::npos);
  }
}

}  // namespace file_test_threads
