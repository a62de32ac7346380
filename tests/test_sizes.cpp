// Sizes (issue 31): a run too large is refused from its flags alone, before anything proportional
// to them is made, so the refusal comes at once and in little memory; `render` reads traces only
// up to what it renders within about a minute.
//
// Each case runs the binary under a time bound and, unless the build has AddressSanitizer (which
// reserves terabytes of address space up front), under `ulimit -v` (1 GiB of address space): a run
// that builds 70 bytes of labels per requested token ends "out of memory" there, or takes
// tens of seconds, instead of its one-line refusal.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "errors.h"
#include "json_input.h"
#include "lesson.h"
#include "run_cli.h"
#include "trace_reader.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_sizes {

#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNLAB_TEST_ASAN 1
#endif
#endif

namespace {

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// The shell prefix of a bounded run: at most 60 s, and 1 GiB of address space.
std::string bounded() {
#ifdef ATTNLAB_TEST_ASAN
  return "timeout 60 ";
#else
  return "ulimit -v 1048576; timeout 60 ";
#endif
}

struct Timed {
  CliResult r;
  double seconds;
};

Timed run_bounded(const std::string& args) {
  auto start = std::chrono::steady_clock::now();
  CliResult r = run_cli(args + " --lang en", bounded());
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// The integer options a lesson binds ("--seq-len", "--d-model", …).
struct IntegerFlags : attn::OptionBinder {
  std::vector<std::string> flags;
  void integer(const char* flag, std::optional<std::int64_t>&) override { flags.push_back(flag); }
  void real(const char*, std::optional<double>&) override {}
  void text(const char*, std::optional<std::string>&) override {}
  void toggle(const char*, bool&) override {}
};

std::string tmp_path(const std::string& name) {
  return "/tmp/attnlab_sizes_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace

TEST_CASE("sizes: every lesson refuses a huge size from its flags at once, in little memory", "[sizes]") {
  // 2^27 - 1: the largest value a size flag takes before its own range check (cli.err.too_large),
  // so the lesson's size estimate is what must refuse it.
  const std::string huge = "134217727";
  std::size_t seq_len_cases = 0, cases = 0;
  for (const attn::LessonInfo* info : attn::all_lessons()) {
    auto run = info->make();
    IntegerFlags b;
    run->bind(b);
    for (const std::string& flag : b.flags) {
      if (flag == "--layer" || flag == "--head") continue;  // indices into --weights, refused without it
      std::string args = std::string("lesson ") + info->name + " " + flag + " " + huge;
      Timed t = run_bounded(args);
      INFO("attnlab " << args << "\nexit " << t.r.code << ", " << t.seconds << " s\nstderr: " << t.r.err);
      ++cases;
      CHECK(t.r.code == 2);
      CHECK(t.r.out.empty());
      CHECK(lines_of(t.r.err) == 1);
      CHECK(t.r.err.find(flag) != std::string::npos);  // names the flag
      CHECK(t.r.err.find("out of memory") == std::string::npos);
      CHECK(t.seconds < 5.0);  // refused from the flags, not after building anything
      if (flag == "--seq-len") {
        ++seq_len_cases;
        // the limit: the work cap and the largest --seq-len accepted, or one tensor's cap
        bool work = t.r.err.find("a lesson may use at most") != std::string::npos &&
                    t.r.err.find("is accepted") != std::string::npos;
        bool tensor = t.r.err.find("a tensor holds at most") != std::string::npos;
        CHECK((work || tensor));
      }
    }
  }
  // the lessons on tokens: attention, mha, gqa, mqa, qkv-roles, symmetry, gate, mla, transmla, block
  CHECK(seq_len_cases >= 10);
  CHECK(cases >= 50);
}

TEST_CASE("sizes: --tokens and --seq-len are checked by token_count as resolve_tokens checks them", "[sizes]") {
  const std::vector<std::string> defaults = {"a", "b", "c", "d"};
  CHECK(attn::token_count(std::nullopt, std::nullopt, defaults) == 4);
  CHECK(attn::token_count(std::nullopt, std::int64_t{134217727}, defaults) == 134217727);
  CHECK(attn::token_count(std::string("x y  z"), std::nullopt, defaults) == 3);
  CHECK(attn::token_count(std::string("x y z"), std::int64_t{3}, defaults) == 3);
  for (auto [tokens, seq_len] : {std::pair<std::optional<std::string>, std::optional<std::int64_t>>{std::nullopt, 0},
                                 {std::nullopt, -1}, {std::nullopt, std::int64_t{1} << 27 | 1}, {std::string("x y"), 3},
                                 {std::string("   "), std::nullopt}, {std::string("a\x1b[31m"), std::nullopt}}) {
    std::string by_count, by_tokens;
    try {
      attn::token_count(tokens, seq_len, defaults);
    } catch (const attn::UsageError& e) {
      by_count = e.msg.key;
    }
    try {
      attn::resolve_tokens(tokens, seq_len, attn::Lang::En, defaults);
    } catch (const attn::UsageError& e) {
      by_tokens = e.msg.key;
    }
    INFO(tokens.value_or("(none)") << " / " << seq_len.value_or(-999));
    CHECK(!by_count.empty());
    CHECK(by_count == by_tokens);
  }
  CHECK(attn::resolve_tokens(std::nullopt, std::int64_t{10}, attn::Lang::En, defaults).back() == "t10");
}

TEST_CASE("sizes: render refuses a trace past its cap before reading it, saying why", "[sizes][render]") {
  // sparse: the file is made at once and takes no disk
  std::string big = tmp_path("big_trace.json");
  {
    std::ofstream(big).put(' ');
    REQUIRE(::truncate(big.c_str(), static_cast<off_t>(attn::kMaxTraceBytes + 1)) == 0);
  }
  Timed t = run_bounded("render " + big + " --text");
  INFO("stderr: " << t.r.err);
  CHECK(t.r.code == 2);
  CHECK(t.r.out.empty());
  CHECK(lines_of(t.r.err) == 1);
  CHECK(t.r.err.find("render: '" + big + "' is 33,554,433 bytes; render reads traces of at most 33,554,432 bytes (32 MiB") !=
        std::string::npos);
  CHECK(t.seconds < 5.0);
  // At the cap, the file is read: these 32 MiB of zero bytes are refused as JSON, not for their size.
  REQUIRE(::truncate(big.c_str(), static_cast<off_t>(attn::kMaxTraceBytes)) == 0);
  Timed at = run_bounded("render " + big + " --text");
  INFO("stderr: " << at.r.err);
  CHECK(at.r.code == 2);
  CHECK(at.r.err.find("not valid JSON") != std::string::npos);
  std::remove(big.c_str());
}

TEST_CASE("sizes: a trace object with more keys than the reader allows is refused before it is parsed", "[sizes][render]") {
  // An ordered JSON object finds a key by a linear search: 300,000 tensors in a 20 MB trace took
  // 213 s to parse. At most kMaxOrderedJsonKeys keys an object; at the cap the trace renders.
  auto trace_with = [](std::size_t n) {
    std::string s = R"({"schema":"attnlab.trace/1","lesson":"gelu","config":{"lang":"en","seed":1},"tensors":{)";
    for (std::size_t i = 0; i < n; ++i) s += (i ? "," : "") + ("\"T" + std::to_string(i) + "\":{\"shape\":[2],\"data\":[0.5,-1]}");
    return s + R"(},"steps":[{"id":"a","title":"T","text":"x","tensors":["T0"]}]})";
  };
  std::string over = tmp_path("keys_over.json"), at = tmp_path("keys_at.json"), page = tmp_path("keys_at.html");
  std::ofstream(over) << trace_with(attn::kMaxOrderedJsonKeys + 1);
  std::ofstream(at) << trace_with(attn::kMaxOrderedJsonKeys);
  Timed t = run_bounded("render " + over + " --text");
  INFO("stderr: " << t.r.err);
  CHECK(t.r.code == 2);
  CHECK(t.r.out.empty());
  CHECK(lines_of(t.r.err) == 1);
  CHECK(t.r.err.find(over + ": a JSON object with more than 10,000 keys (line 1, column") != std::string::npos);
  CHECK(t.seconds < 5.0);
  Timed ok = run_bounded("render " + at + " --html " + page);
  INFO("stderr: " << ok.r.err);
  CHECK(ok.r.code == 0);
  CHECK(std::filesystem::file_size(page) > 0);
  CHECK(ok.seconds < 20.0);
  for (const std::string& f : {over, at, page}) std::remove(f.c_str());
}

}  // namespace file_test_sizes
