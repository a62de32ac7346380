// Bad input found by a hostile read, kept as regression tests: every case must be one line on
// stderr naming the flag, exit code 2 and nothing on stdout.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_bad_input {

namespace {

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

void rejects(const std::string& args, const std::string& needle) {
  CliResult r = run_cli(args);
  INFO("attnlab " << args << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines_of(r.err) == 1);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("an empty option value is an error, not the default", "[bad-input]") {
  // CLI11 read "" as "not given" (or as 0 for --precision) and ran the default lesson.
  rejects("lesson mha --seq-len ''", "--seq-len: empty value");
  rejects("lesson attention --precision ''", "--precision: empty value");
  rejects("lesson symmetry --lr ''", "--lr: empty value");
  rejects("kv-cache --model gpt2 --memory ''", "--memory: empty value");
  rejects("kv-cache --model gpt2 --compare ''", "--compare: empty value");
}

TEST_CASE("a negative size is refused by name, never wrapped to 2^64 - 1", "[bad-input]") {
  // Before: "--heads: give the number of query heads" for --d-model -1, and
  // "parameter count overflows 64 bits (201379840 x 18446744073709551615)" for --layers -1.
  rejects("params --d-model -1 --heads 2", "--d-model: must not be negative (got -1)");
  rejects("params --d-model 64 --heads 2 --layers -1", "--layers: must not be negative");
  rejects("kv-cache --model gpt2 --seq-len -1", "--seq-len: must not be negative");
  rejects("kv-cache --model gpt2 --batch -3", "--batch: must not be negative");
  rejects("kv-cache --model gpt2 --kv-heads 0", "--kv-heads: must be at least 1");
  rejects("kv-cache --model gpt2 --latent-dim 0", "--latent-dim: must be at least 1");
  rejects("kv-cache --model gpt2 --rope-dim 3", "--rope-dim: must be even, as RoPE rotates pairs of numbers (got 3)");
  // --rope-dim 0 given: MLA without a decoupled RoPE key (0 inside is "the model's own" 64)
  CliResult zero = run_cli("kv-cache --model deepseek-v3 --rope-dim 0");
  REQUIRE(zero.code == 0);
  CHECK(zero.out.find("(d_c+d_R)·l (512+0)                          512              1") != std::string::npos);
  // the MHA' label keeps the model's own d_R whatever --rope-dim the MLA row is given
  CliResult wide = run_cli("kv-cache --model deepseek-v3 --rope-dim 256");
  REQUIRE(wide.code == 0);
  CHECK(wide.out.find("n_h·(d_h+d_R+d_v)·l (128+64+128)") != std::string::npos);
}

TEST_CASE("an integer past its type's range is refused, not saturated", "[bad-input]") {
  // Before: --seed 2^64 ran silently as seed 2^63 - 1.
  rejects("lesson mha --seed 18446744073709551616", "--seed: 18446744073709551616 is out of range");
  rejects("lesson mha --seq-len 9223372036854775808", "--seq-len: 9223372036854775808 is out of range");
  rejects("kv-cache --model gpt2 --seq-len 18446744073709551616", "--seq-len: 18446744073709551616 is out of range");
  rejects("lesson mha --seq-len 0x10", "--seq-len: '0x10' is not a whole number");
  CHECK(run_cli("lesson mha --seed 9223372036854775807").code == 0);  // the largest seed still runs
}

TEST_CASE("symmetry: a learning rate that diverges is a usage error, not an internal one", "[bad-input][symmetry]") {
  // Before: exit 1, "internal error: softmax_rows: a row is fully masked (please report this)".
  rejects("lesson symmetry --lr 1e12", "--lr 1000000000000: gradient descent diverges");
  rejects("lesson symmetry --lr 10", "--lr 10: gradient descent diverges");
  CHECK(run_cli("lesson symmetry --lr 2.5").code == 0);  // large but stable at the default size
}

TEST_CASE("symmetry: training is capped so a lesson never hangs", "[bad-input][symmetry]") {
  // Before: --steps 1000000 ran for 22 s, --d-model 2048 --seq-len 64 for over a minute.
  rejects("lesson symmetry --steps 1000000", "--steps 1000000 is more than this lesson trains (at most 10000)");
  rejects("lesson symmetry --d-model 4096 --seq-len 256", "reduce --steps, --seq-len/--tokens, --heads, --d-model");
  CHECK(run_cli("lesson symmetry --steps 10000").code == 0);
  // The chapter's 768/12 runs (with the packed matmul; the default step shrinks to 64/768).
  CHECK(run_cli("lesson symmetry --d-model 768 --heads 12").code == 0);
}

TEST_CASE("lessons: --x and --values past 1e6 are refused: no inf or nan printed as a result", "[bad-input][ffn][swiglu][gelu]") {
  // Before: lesson ffn --x "1e308 1e308 1e308 1e308" printed inf, -inf and nan in the hidden layer and output.
  rejects("lesson ffn --x '1e308 1e308 1e308 1e308'", "--x: 1e308 is too large");
  rejects("lesson swiglu --x '1e308 -1e308 1e308 -1e308'", "--x: 1e308 is too large");
  rejects("lesson gelu --values '1e7'", "--values: 1e7 is too large");
  CliResult edge = run_cli("lesson swiglu --x '1e6 -1e6 1e6 -1e6' --lang en");
  CHECK(edge.code == 0);
  CHECK(edge.out.find("nan") == std::string::npos);
  CHECK(edge.out.find("inf") == std::string::npos);
  // 1e-320 is a (subnormal) finite number; strtod's underflow ERANGE once called it "not a finite number".
  CHECK(run_cli("lesson gelu --values '1e-320'").code == 0);
}

TEST_CASE("params and kv-cache: --config naming a directory says so", "[bad-input][models]") {
  // Before: "…: not valid JSON ([json.exception.parse_error.101] … unexpected end of input …)".
  rejects("params --config /tmp", "--config: '/tmp' is a directory");
  rejects("kv-cache --compare /tmp/,gpt2", "--compare: '/tmp/' is a directory");
}

TEST_CASE("kv-cache --compare refuses one model's settings by name and names itself for a bad model", "[bad-input][kv-cache]") {
  // Before: --memory, --kv-heads, --latent-dim, --rope-dim, --weights-dtype and the dims were
  // silently ignored with --compare, and an unknown name was "--model: unknown preset".
  for (const char* flag : {"--memory 1B", "--kv-heads 1", "--latent-dim 64", "--rope-dim 32", "--weights-dtype fp8",
                           "--layers 3", "--heads 4", "--head-dim 8", "--d-ff 16", "--vocab 10", "--ffn swiglu"}) {
    std::string name = std::string(flag).substr(0, std::string(flag).find(' '));
    rejects(std::string("kv-cache --compare gpt2,llama-3-8b --lang en ") + flag, name + " cannot be used with --compare");
  }
  rejects("kv-cache --compare gpt2,llama-3-8b --json - --weights-dtype bf16 --lang en", "--weights-dtype cannot be used with --compare");
  rejects("kv-cache --compare nosuch,gpt2 --lang en", "--compare: unknown preset 'nosuch'");
  rejects("kv-cache --compare gpt2,/nonexistent/config.json --lang en", "--compare: cannot open '/nonexistent/config.json'");
  // What --compare does use still works with it.
  CliResult r = run_cli("kv-cache --compare gpt2,llama-3-8b --tp 2 --seq-len 100 --batch 2 --dtype fp8 --lang en");
  CHECK(r.code == 0);
  CHECK(r.out.find("llama-3-8b") != std::string::npos);
}

TEST_CASE("bench without a command or with an unknown one lists bench's commands", "[bad-input]") {
  // Before: both said "give a command: list, lesson, models, …", the top level's list.
  CliResult none = run_cli("bench --lang en");
  rejects("bench --lang en", "bench: give a command: memory, decode (see attnlab bench --help)");
  CHECK(none.err.find("lesson") == std::string::npos);
  rejects("bench nosuch --lang en", "bench: unknown command 'nosuch'; the commands are: memory, decode");
  rejects("bench '' --lang en", "bench: unknown command ''");
  rejects("bench --lang zh", "bench：请给出一个命令：memory, decode");
  CliResult help = run_cli("bench --help --lang en");
  CHECK(help.code == 0);
  CHECK(help.out.find("decode") != std::string::npos);
}

TEST_CASE("an option given twice says so, not that it needs a value", "[bad-input]") {
  // Before: "--heads needs a value (see --help)" for --heads 2 --heads 4.
  rejects("lesson mha --heads 2 --heads 4 --lang en", "--heads is given more than once; give it once");
  rejects("lesson mha --seq-len 3 --seq-len 3 --lang en", "--seq-len is given more than once");
  rejects("lesson mha --json - --json - --lang en", "--json is given more than once");
  rejects("lesson mha --step 1 --step 2 --lang en", "--step is given more than once");
  rejects("kv-cache --model gpt2 --model llama-3-8b --lang en", "--model is given more than once");
  rejects("lesson mha --heads 2 --heads 4 --lang zh", "--heads 给了不止一次");
  // A missing value is still a missing value.
  rejects("lesson mha --heads --lang en", "--heads needs a value");
}

TEST_CASE("a --precision or --threads past 32 or 64 bits states the real range", "[bad-input]") {
  // Before: "'2147483648' is not a valid value" (an int) and "at most 9223372036854775807" (2^64).
  for (const char* v : {"2147483648", "18446744073709551616", "99999999999999999999999", "16", "-1"}) {
    rejects(std::string("lesson mha --lang en --precision ") + v, std::string("--precision must be between 0 and 15 (got ") + v + ")");
    rejects(std::string("render /nonexistent.json --text --lang en --precision ") + v, "--precision must be between 0 and 15");
  }
  for (const char* v : {"2147483648", "18446744073709551616", "1025", "0", "-5"}) {
    rejects(std::string("lesson mha --lang en --threads ") + v, std::string("--threads must be between 1 and 1024 (got ") + v + ")");
    rejects(std::string("bench memory --lang en --threads ") + v, "--threads must be between 1 and 1024");
    rejects(std::string("train --lang en --threads ") + v, "--threads must be between 1 and 1024");
  }
  rejects("lesson mha --lang zh --precision 18446744073709551616", "--precision 须在 0 到 15 之间（得到 18446744073709551616）");
  rejects("lesson mha --lang en --precision 1x", "--precision: '1x' is not a whole number");
  CHECK(run_cli("lesson mha --precision 15 --threads 1024").code == 0);
}

TEST_CASE("json and html outputs to one file or both to stdout are refused before the run", "[bad-input]") {
  // Before: exit 0, the page replaced the trace (same file) or both documents went to stdout.
  std::string dir = "/tmp/attnlab_same_out_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::string file = dir + "/same.out";
  rejects("lesson mha --lang en --json " + file + " --html " + file, "--json and --html name the same file '" + file + "'");
  CHECK(!std::filesystem::exists(file));  // refused before anything was written
  rejects("lesson mha --lang en --json - --html -", "--json - and --html - would both write to stdout");
  rejects("lesson mha --lang en --json " + dir + "/./same.out --html " + file, "name the same file");
  std::ofstream(dir + "/real.out") << "x";
  std::filesystem::create_symlink(dir + "/real.out", dir + "/link.out");
  rejects("lesson mha --lang en --json " + dir + "/link.out --html " + dir + "/real.out", "name the same file");
  rejects("train --lang en --json " + file + " --html " + file, "--json and --html name the same file");
  rejects("train --lang en --json - --html -", "would both write to stdout");
  rejects("lesson mha --lang zh --json - --html -", "都会写到标准输出");
  // stdout under another name: /dev/stdout is the file run_cli sends stdout to
  rejects("lesson mha --lang en --json /dev/stdout --html -", "would both write to stdout");
  rejects("lesson mha --lang en --json - --html /proc/self/fd/1", "would both write to stdout");
  // Two files, one of them stdout, or /dev/null twice: fine.
  CHECK(run_cli("lesson mha --json " + dir + "/a.json --html " + dir + "/a.html").code == 0);
  CHECK(std::filesystem::exists(dir + "/a.json"));
  CHECK(std::filesystem::exists(dir + "/a.html"));
  CHECK(run_cli("lesson mha --json - --html " + dir + "/b.html").code == 0);
  CHECK(run_cli("lesson mha --json /dev/null --html /dev/null").code == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a huge --layers is arithmetic, not a loop", "[bad-input][kv-cache]") {
  // Before: kv-cache --layers 10000000000 took 55 s (a loop over layers), and a debug build hung on
  // params --layers 1000000000000 before reporting the overflow.
  CliResult r = run_cli("kv-cache --d-model 4096 --heads 32 --layers 10000000000 --lang en");
  CHECK(r.code == 0);
  CHECK(r.out.find("81,920,000,000,000") != std::string::npos);  // 2 · 32 · 128 · 1e10 elements per token
  rejects("params --d-model 4096 --heads 32 --layers 1000000000000", "parameter count overflows 64 bits");
}

}  // namespace file_test_bad_input
