// Hostile input (issue 16): each class a fuzzing review found, kept as a regression test.
// Every case: exit 2, one line on stderr, nothing on stdout; or, for a failed write, exit 2
// naming standard output instead of a silent exit 0.
#include <algorithm>
#include <chrono>
#include <fstream>

#include <catch2/catch.hpp>

#include "input_file.h"
#include "json_input.h"
#include "printable.h"
#include "run_cli.h"
#include "usage_error.h"

namespace {

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

CliResult refused(const std::string& args, const std::string& needle) {
  auto start = std::chrono::steady_clock::now();
  CliResult r = run_cli(args);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("attnlab " << args << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines_of(r.err) == 1);
  CHECK(r.err.find(needle) != std::string::npos);
  CHECK(seconds < 5.0);  // refused up front, not after the work
  return r;
}

std::string write_tmp(const std::string& name, const std::string& text) {
  std::string path = "/tmp/attnlab_hostile_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string llama(const std::string& extra) {
  return R"({"model_type":"llama","vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,)"
         R"("num_hidden_layers":32,"num_attention_heads":32)" + extra + "}";
}

// stdout to /dev/full: the exit code and stderr.
CliResult run_to_full(const std::string& args) {
  std::string err = "/tmp/attnlab_hostile_" + std::to_string(::getpid()) + ".err";
  int status = std::system(("'" + std::string(ATTNLAB_BIN) + "' " + args + " >/dev/full 2>" + err).c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  std::remove(err.c_str());
  return r;
}

}  // namespace

TEST_CASE("a failed write to stdout is an error naming it, never exit 0", "[hostile]") {
  for (const char* args : {"list", "params --model gpt2 --json", "params --model gpt2", "lesson mha",
                           "kv-cache --model gpt2", "models"}) {
    CliResult r = run_to_full(std::string(args) + " --lang en");
    INFO(args << "\nstderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(lines_of(r.err) == 1);
    CHECK(r.err.find("standard output") != std::string::npos);
  }
  CliResult json = run_to_full("lesson mha --json -");
  CHECK(json.code == 2);
  CHECK(lines_of(json.err) == 1);
}

TEST_CASE("kv-cache --memory without digits or with 400 of them is a usage error", "[hostile]") {
  refused("kv-cache --model gpt2 --memory .", "--memory: cannot read size '.'");
  refused("kv-cache --model gpt2 --memory .GiB", "--memory: cannot read size");
  refused("kv-cache --model gpt2 --memory " + std::string(400, '9'), "--memory: size");
}

TEST_CASE("tokens with invalid UTF-8 or C1 controls are refused by name", "[hostile]") {
  refused("lesson mha --tokens \"$(printf '\\377\\376 a')\" --json -", "--tokens: token '\\xff\\xfe' is not valid UTF-8");
  refused("lesson mha --tokens \"$(printf 'a\\302\\205b c')\"", "--tokens: control characters");
  refused("lesson mha --tokens \"$(printf 'a\\033[31mb c')\"", "--tokens: control characters");
}

TEST_CASE("an echoed value is escaped and cut: an error is one line", "[hostile]") {
  CliResult r = refused("--lang \"$(printf 'x\\ny\\033[31m')\" list", "unknown language 'x\\ny\\x1b[31m'");
  CHECK(r.err.find('\x1b') == std::string::npos);
  refused("lesson mha --seq-len \"$(printf '1\\n2')\"", "'1\\n2'");
  std::string long_value(5000, 'x');
  CliResult l = refused("--lang " + long_value + " list", "xxx...");
  CHECK(l.err.size() < 300);
  std::string cfg = write_tmp("newline_type.json", R"({"model_type":"llama\n\u001b[31mX"})");
  CliResult t = refused("params --config " + cfg, "'llama\\n\\x1b[31mX'");
  CHECK(t.err.find('\x1b') == std::string::npos);
  // An array value is shown short, not as the whole array.
  std::string big = "[";
  for (int i = 0; i < 200000; ++i) big += "1,";
  big += "1]";
  CliResult a = refused("params --config " + write_tmp("array.json", llama(",\"vocab_size\":" + big)),
                        "must be");
  CHECK(a.err.size() < 400);
  CHECK(attn::printable("a\nb\x1b\xc2\x85\xff") == "a\\nb\\x1b\\xc2\\x85\\xff");
  CHECK(attn::printable(std::string(100, 'x')).size() == 83);
  CHECK(attn::printable("\xe8\xaf\x8d\xe5\x85\x83") == "\xe8\xaf\x8d\xe5\x85\x83");  // Chinese text is kept
}

TEST_CASE("config.json: overflowing numbers, hostile depth, devices and bad types are usage errors", "[hostile]") {
  refused("params --config " + write_tmp("inf.json", llama(",\"rope_theta\":1e999")), "key 'rope_theta': the number 1e999");
  refused("params --config " + write_tmp("digits.json", llama(",\"x\":" + std::string(400, '9'))), "key 'x'");
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  refused("params --config " + write_tmp("deep.json", llama(",\"x\":" + deep)), "nested more than 64 levels");
  refused("params --config " + write_tmp("deep_bad.json", std::string(100000, '{')), "nested more than 64 levels");
  refused("params --config /dev/zero", "--config: '/dev/zero' is not a regular file");
  refused("params --config /tmp", "--config: '/tmp' is a directory");
  refused("params --config /nonexistent/config.json", "no such file");
  refused("params --config " + write_tmp("type.json", R"({"model_type":3})"), "key 'model_type' must be a string, got 3");
  refused("params --config " + write_tmp("layers.json", llama("").replace(llama("").find("32,"), 2, "3000000000")),
          "key 'num_hidden_layers' is 3000000000");
  std::string falcon = R"({"model_type":"falcon","vocab_size":65024,"hidden_size":8192,"num_hidden_layers":60,)"
                       R"("num_attention_heads":128,"new_decoder_architecture":true,"num_kv_heads":8,)";
  refused("params --config " + write_tmp("falcon0.json", falcon + R"("num_ln_in_parallel_attn":0})"),
          "key 'num_ln_in_parallel_attn' is 0");
  refused("params --config " + write_tmp("falcon3e9.json", falcon + R"("num_ln_in_parallel_attn":3000000000})"),
          "key 'num_ln_in_parallel_attn' is 3000000000");
  std::string big(5 << 20, ' ');
  refused("params --config " + write_tmp("big.json", big + "{}"), "attnlab reads files of at most");
  // The helpers the other readers use.
  CHECK_THAT(usage_error([] { attn::parse_json_input("[[[1]]]", "t.json", 2); }), Catch::StartsWith("input.err.json_depth"));
  CHECK_THAT(usage_error([] { attn::parse_json_input("{\"a\": 1e400}", "t.json"); }),
             Catch::StartsWith("input.err.json_number where=t.json key=a"));
  CHECK_THAT(usage_error([] { attn::parse_json_input("{\"a\": tru}", "t.json"); }),
             Catch::StartsWith("input.err.json_syntax where=t.json line=1"));
  CHECK(attn::parse_json_input("{\"a\": 1e-400}", "t.json")["a"].get<double>() == 0.0);
  CHECK_THAT(usage_error([] { attn::read_regular_file("/dev/zero", 100, "--x"); }),
             Catch::StartsWith("input.err.file_not_regular flag=--x"));
}

TEST_CASE("MoE layers are counted by formula, the same as one by one", "[hostile]") {
  std::string ds = R"({"model_type":"deepseek_v3","vocab_size":129280,"hidden_size":7168,"intermediate_size":18432,)"
                   R"("num_hidden_layers":61,"num_attention_heads":128,"kv_lora_rank":512,"qk_nope_head_dim":128,)"
                   R"("qk_rope_head_dim":64,"v_head_dim":128,"n_routed_experts":256,"n_shared_experts":1,)"
                   R"("num_experts_per_tok":8,"moe_intermediate_size":2048,"first_k_dense_replace":3,"moe_layer_freq":2})";
  CliResult r = run_cli("params --json --config " + write_tmp("ds.json", ds));
  REQUIRE(r.code == 0);
  // layers 3..60 that are multiples of 2: 4, 6, ..., 60 = 29 MoE layers, 32 dense
  CHECK(r.out.find("\"count\": 29") != std::string::npos);
  CHECK(r.out.find("\"count\": 32") != std::string::npos);
}

TEST_CASE("every lesson refuses up front a size that would take minutes or gigabytes", "[hostile]") {
  refused("lesson mha --d-model 2048 --seq-len 2048", "reduce --seq-len/--tokens, --d-model, --heads");
  refused("lesson attention --seq-len 11585", "reduce --seq-len/--tokens, --d-model, --head-dim");
  refused("lesson kv-memory --d-ff 22369621", "reduce --d-ff");
  refused("lesson block --seq-len 4096 --d-model 1024", "reduce --seq-len/--tokens, --d-model, --d-ff, --heads");
  refused("lesson gqa --seq-len 2048 --d-model 2048 --heads 8", "reduce --seq-len/--tokens, --d-model, --heads");
  CHECK(run_cli("lesson attention --seq-len 300").code == 0);  // a moderate size still runs
}
