// Hostile input (issue 16): each class a fuzzing review found, kept as a regression test.
// Every case: exit 2, one line on stderr, nothing on stdout; or, for a failed write, exit 1 with
// one line naming stdout or the file instead of a silent exit 0.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <variant>

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "input_file.h"
#include "lesson.h"
#include "lesson_args.h"
#include "json_input.h"
#include "printable.h"
#include "run_cli.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_hostile {

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

TEST_CASE("a failed write to stdout is exit 1 with one line naming it, never exit 0", "[hostile]") {
  for (const char* args : {"list", "params --model gpt2 --json -", "params --model gpt2", "lesson mha",
                           "kv-cache --model gpt2", "models", "lesson mha --json -", "lesson mha --html -",
                           "flops --model gpt2", "heads --help", "--help", "--version", "lesson mha --help", "bench -h"}) {
    // (--help and --version were exit 0: CLI11 printed them to std::cout and nothing checked it)
    CliResult r = run_to_full(std::string(args) + " --lang en");
    INFO(args << "\nstderr: " << r.err);
    CHECK(r.code == 1);
    CHECK(lines_of(r.err) == 1);
    CHECK(r.err.find("cannot write to stdout: No space left on device") != std::string::npos);
  }
}

TEST_CASE("a failed write to --json FILE, --html FILE or train --save is exit 1 naming the flag", "[hostile]") {
  for (const char* args : {"lesson mha --json /dev/full", "lesson mha --html /dev/full",
                           "train --steps 2 --layers 1 --d-model 8 --heads 2 --json /dev/full",
                           "train --steps 2 --layers 1 --d-model 8 --heads 2 --html /dev/full"}) {
    CliResult r = run_cli(std::string(args) + " --lang en");
    INFO(args << "\nstderr: " << r.err);
    CHECK(r.code == 1);
    CHECK(lines_of(r.err) == 1);
    CHECK(r.err.find("No space left on device") != std::string::npos);
  }
  // train --save DIR: a full disk while the checkpoint is written is in tests/test_file_safety.cpp
  // (ulimit -f: the old checkpoint stays whole); the checkpoint is written into a new folder, so a
  // link planted inside the old one is never written through.
  std::string dir = "/tmp/attnlab_hostile_save_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink("/dev/full", dir + "/model.safetensors");
  std::ofstream(dir + "/config.json") << "{}";  // a checkpoint (its files may be links): --force replaces it
  CliResult r = run_cli("train --steps 2 --layers 1 --d-model 8 --heads 2 --lang en --force --save " + dir);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(std::filesystem::is_regular_file(dir + "/model.safetensors"));
  CHECK(!std::filesystem::is_symlink(dir + "/model.safetensors"));
  std::filesystem::remove_all(dir);
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
  CliResult r = run_cli("params --json - --config " + write_tmp("ds.json", ds));
  REQUIRE(r.code == 0);
  // layers 3..60 that are multiples of 2: 4, 6, ..., 60 = 29 MoE layers, 32 dense
  CHECK(r.out.find("\"count\": 29") != std::string::npos);
  CHECK(r.out.find("\"count\": 32") != std::string::npos);
}

TEST_CASE("every lesson refuses up front a size that would take minutes or gigabytes", "[hostile]") {
  // Each lesson, past the caps by its leading size: exit 2, one line naming the lesson's own flags
  // and the largest size accepted, nothing on stdout, in well under a second of work.
  refused("lesson mha --d-model 2048 --seq-len 20000", "reduce --seq-len/--tokens, --d-model, --heads (at these sizes --seq-len/--tokens up to ");
  refused("lesson attention --seq-len 30000", "reduce --seq-len/--tokens, --d-model, --head-dim (at these sizes --seq-len/--tokens up to ");
  refused("lesson kv-memory --d-ff 22369621", "reduce --d-ff (at these sizes --d-ff up to ");
  refused("lesson block --seq-len 4096 --d-model 4096", "reduce --seq-len/--tokens, --d-model, --d-ff, --heads");
  refused("lesson gqa --seq-len 8192 --d-model 4096 --heads 8", "reduce --seq-len/--tokens, --d-model, --heads (at these sizes");
  refused("lesson mqa --seq-len 8192 --d-model 4096 --heads 8", "reduce --seq-len/--tokens, --d-model, --heads (at these sizes");
  refused("lesson qkv-roles --seq-len 4096 --d-model 2048", "reduce --seq-len/--tokens, --d-model, --heads (at these sizes");
  refused("lesson gate --seq-len 4096 --d-model 2048", "reduce --seq-len/--tokens, --d-model, --heads (at these sizes");
  refused("lesson symmetry --steps 10000 --d-model 512 --seq-len 512", "reduce --steps, --seq-len/--tokens, --heads, --d-model (at these sizes --steps up to ");
  refused("lesson mla --seq-len 8192 --d-model 2048 --heads 16 --head-dim 128 --latent-dim 512",
          "reduce --seq-len/--tokens, --d-model, --heads, --head-dim, --latent-dim, --q-latent-dim, --rope-dim (at these sizes");
  refused("lesson transmla --seq-len 4096 --d-model 1024", "reduce --seq-len/--tokens, --d-model, --heads, --kv-heads, --head-dim");
  refused("lesson decode --generate 4096 --d-model 4096 --layers 64 --heads 8", "reduce --generate, --vocab, --d-model, --layers");
  refused("lesson ffn --d-model 20000", "reduce --d-model, --d-ff, --x (at these sizes --d-model up to ");
  refused("lesson ffn --d-model 8 --d-ff 100000000", "reduce --d-model, --d-ff, --x (--d-model alone cannot bring it there)");
  refused("lesson swiglu --d-model 20000", "reduce --d-model, --d-ff, --multiple-of, --x (at these sizes --d-model up to ");
  // gelu: --values is one argument, at most 128 KiB (the kernel's MAX_ARG_STRLEN), some 30,000
  // numbers: far below its estimate's limit (20,020 per value), so it cannot be refused by size.
  CHECK(run_cli("lesson attention --seq-len 300").code == 0);  // a moderate size still runs
}

namespace {

struct LessonCase {
  const char* lesson;
  std::vector<std::pair<std::string, std::string>> flags;  // the last one is the leading size
};

// Runs a lesson in this process with flags set as words; the UsageError's "largest" value, if any.
std::optional<std::size_t> largest_accepted(const LessonCase& c, const std::string& value, std::string* key) {
  auto run = attn::find_lesson(c.lesson)->make();
  attn::ArgsBinder b;
  run->bind(b);
  for (std::size_t i = 0; i + 1 < c.flags.size(); ++i) b.set(c.flags[i].first, c.flags[i].second);
  b.set(c.flags.back().first, value);
  try {
    run->run(attn::RunContext{});
  } catch (const attn::UsageError& e) {
    *key = e.msg.key;
    for (const attn::Arg& a : e.msg.args)
      if (a.name == "largest") return static_cast<std::size_t>(std::get<std::uint64_t>(a.value));
    return std::size_t{0};
  }
  *key = "";
  return std::nullopt;
}

}  // namespace

TEST_CASE("the largest size a refusal names really runs, and one more is refused", "[hostile]") {
  // With the caps lowered (as the fuzzers do), so that every lesson's limit is a run of moments.
  attn::set_work_caps_for_fuzzing(2e7, 2e5);
  const std::vector<LessonCase> cases = {
      {"attention", {{"--seq-len", ""}}},
      {"mha", {{"--d-model", "16"}, {"--seq-len", ""}}},
      {"gqa", {{"--heads", "4"}, {"--seq-len", ""}}},
      {"mqa", {{"--seq-len", ""}}},
      {"qkv-roles", {{"--seq-len", ""}}},
      {"gate", {{"--seq-len", ""}}},
      {"symmetry", {{"--steps", ""}}},
      {"mla", {{"--seq-len", ""}}},
      {"transmla", {{"--seq-len", ""}}},
      {"decode", {{"--generate", ""}}},
      {"ffn", {{"--d-model", ""}}},
      {"swiglu", {{"--d-model", ""}}},
      {"kv-memory", {{"--d-ff", ""}}},
      {"block", {{"--seq-len", ""}}},
  };
  for (const LessonCase& c : cases) {
    INFO(c.lesson);
    std::string key;
    std::optional<std::size_t> largest = largest_accepted(c, "4000", &key);
    REQUIRE(key == "input.err.work_too_large");
    REQUIRE(largest.has_value());
    REQUIRE(*largest >= 1);
    INFO("largest " << *largest);
    std::string k1, k2;
    CHECK_FALSE(largest_accepted(c, std::to_string(*largest), &k1).has_value());
    CHECK(k1.empty());
    CHECK(largest_accepted(c, std::to_string(*largest + 1), &k2).has_value());
    CHECK(k2 == "input.err.work_too_large");
  }
  attn::set_work_caps_for_fuzzing(attn::kMaxLessonWork, attn::kMaxWorkNumbers);
}

TEST_CASE("the trace reader: regular files only, JSON errors of every kind naming the file and key", "[hostile]") {
  refused("render /dev/zero --text", "render: '/dev/zero' is not a regular file");
  refused("render /tmp --text", "render: '/tmp' is a directory");
  refused("render /nonexistent/t.json --text", "render: cannot open '/nonexistent/t.json' (no such file or folder)");
  std::string head = R"({"schema":"attnlab.trace/1","lesson":"gelu","config":{"lang":"en","seed":)";
  std::string inf = write_tmp("inf_trace.json", head + R"(1e999},"tensors":{},"steps":[]})");
  refused("render " + inf + " --text", inf + ": key 'seed': the number 1e999 is out of range");
  std::string deep = write_tmp("deep_trace.json", head + "1,\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}}");
  refused("render " + deep + " --text", deep + ": JSON nested more than 64 levels deep");
  std::string cut = write_tmp("cut_trace.json", head + "1");
  refused("render " + cut + " --text", cut + ": not valid JSON (line 1, column");
  std::string type = write_tmp("type_trace.json", head + R"(1},"tensors":{"X":{"shape":[2],"data":[1,"a"]}},"steps":[]})");
  refused("render " + type + " --text", type + ": not a valid attnlab trace (tensors.X.data is missing");
}

TEST_CASE("a trace whose words hold a control character is refused, naming the field", "[hostile]") {
  // render --text printed a trace's strings as they were: "\x1b[31m" in a step's text recoloured
  // the terminal even with --color never. C0 (but \n and \t), DEL and C1 are refused at read time.
  const std::string base =
      R"({"schema":"attnlab.trace/1","lesson":"gelu","config":{"lang":"en","seed":1,"tokens":"ab"},)"
      R"("tensors":{"X":{"shape":[2],"data":[1,2],"meaning":"m"}},"steps":[{"id":"a","title":"T","text":"x",)"
      R"("tensors":["X"],"values":{"v":["a","b"]},"tables":[{"header":["h"],"rows":[["c"]]}],"notes":["n","o"]}],)"
      R"("view":{"steps":[{"heading":"H"}]}})";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    std::size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  std::string ok = write_tmp("ok_words.json", with(R"("text":"x")", R"("text":"one\ntwo\tthree")"));
  CliResult fine = run_cli("render " + ok + " --text --color never");
  INFO(fine.err);
  CHECK(fine.code == 0);
  CHECK(fine.out.find("one\n  two\tthree") != std::string::npos);
  struct Case {
    std::string name, text, field;
  };
  const Case cases[] = {
      {"esc_text", with(R"("text":"x")", R"("text":"\u001b[31mred")"), "steps[0].text holds the control character \\x1b"},
      {"esc_meaning", with(R"("meaning":"m")", R"("meaning":"\u001b[31mred")"), "tensors.X.meaning holds the control character \\x1b"},
      {"cr_config", with(R"("tokens":"ab")", R"("tokens":"a\rb")"), "config.tokens holds the control character \\r"},
      {"del_title", with(R"("title":"T")", R"("title":"T\u007f")"), "steps[0].title holds the control character \\x7f"},
      {"c1_note", with(R"("o"])", R"("\u009b2J"])"), "steps[0].notes[1] holds the control character \\xc2\\x9b"},
      {"bell_value", with(R"("b"])", R"("\u0007"])"), "steps[0].values.v[1] holds the control character \\x07"},
      {"esc_cell", with(R"([["c"]])", R"([["\u001b]0;x"]])"), "steps[0].tables[0].rows[0][0] holds the control character"},
      {"esc_key", with(R"("seed":1)", R"("seed":1,"a\u001bb":1)"), "config.a\\x1bb holds the control character \\x1b"},
      {"esc_heading", with(R"("heading":"H")", R"("heading":"\u001b[2J")"), "view.steps[0].heading holds the control"},
  };
  for (const Case& c : cases) {
    std::string path = write_tmp(c.name + ".json", c.text);
    CliResult r = refused("render " + path + " --text --color never --lang en", path + ": not a valid attnlab trace (" + c.field);
    CHECK(r.err.find('\x1b') == std::string::npos);
    refused("render " + path + " --html /dev/null --lang en", c.field);
  }
}

TEST_CASE("the checkpoint readers: no FIFO or directory as a file, JSON errors naming the file", "[hostile]") {
  std::string dir = "/tmp/attnlab_hostile_ck_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::string(ATTNLAB_SOURCE_DIR) + "/fuzz/corpus/config/gpt2.json", dir + "/config.json");
  std::string st = dir + "/model.safetensors";
  // A shard that is a FIFO was opened and waited on for ever; a directory was "cannot be opened".
  std::string shard = dir + "/shard.safetensors", index = dir + "/model.safetensors.index.json";
  std::ofstream(index) << R"({"weight_map":{"wte.weight":"shard.safetensors"}})";
  REQUIRE(::mkfifo(shard.c_str(), 0600) == 0);
  refused("params --weights " + dir, "--weights: '" + shard + "' is not a regular file");
  std::filesystem::remove(shard);
  std::filesystem::create_directory(shard);
  refused("params --weights " + dir, "--weights: '" + shard + "' is a directory");
  std::filesystem::remove(shard);
  std::filesystem::remove(index);
  // A header with a number past a double, or nested past the limit, is named by file and key.
  auto header_file = [&](const std::string& header) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    std::ofstream(st, std::ios::binary) << bytes << header;
  };
  header_file(R"({"__metadata__":{"x":1e999}})");
  refused("params --weights " + dir, st + ": key 'x': the number 1e999 is out of range");
  header_file(R"({"__metadata__":)" + std::string(1000, '[') + std::string(1000, ']') + "}");
  refused("params --weights " + dir, st + ": JSON nested more than 64 levels deep");
  header_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,)");
  refused("params --weights " + dir, st + ": not valid JSON");
  std::filesystem::remove_all(dir);
}

TEST_CASE("commands refuse up front a run past about a minute or 8 GiB, naming the flag", "[hostile]") {
  // train: the default run (2.9e12 FLOP's worth, 4,000 steps) is accepted, 3.2e12 at most.
  refused("train --steps 100000", "reduce --steps, --batch, --seq-len, --heads, --d-model, --layers (at these sizes --steps up to 4,342 is accepted)");
  refused("train --d-model 4096 --layers 64 --steps 1", "reduce --batch, --seq-len, --d-model");  // memory fires first
  // Many heads of width 1: their FLOP alone allowed 198,682 steps (14 minutes); the scores' cost
  // (kScoreWork each) brings it to 14,474 (about 85 s).
  refused("train --steps 198682 --layers 1 --d-model 8 --heads 8", "--steps up to 14,474 is accepted");
  refused("lesson symmetry --steps 10000 --d-model 128 --heads 128 --seq-len 64", "at these sizes --steps up to 1457 is accepted");
  // induction --retrain: each model within one `attnlab train` run, both checked before either trains
  refused("lesson induction --retrain --steps 5000",
          "--steps: --retrain would take about 3.68e+12 floating-point operations' worth (the attention scores and each "
          "step's overhead counted in), more than the 3.2e+12 allowed");
  refused("bench memory --min-time 30", "--min-time must be from 0 to 25 seconds");
  refused("bench decode --model gpt2 --min-time 9", "--min-time must be from 0 to 8 seconds");
  refused("bench decode --model gpt2 --max-cache-mib 16384", "--max-cache-mib must be from 1 to 4,096");
}

TEST_CASE("the largest size a work refusal suggests has tensors that fit as well", "[hostile]") {
  // swiglu with --d-ff 100000: the work cap alone suggested --d-model 1595, and that run was then
  // refused because W_gate [1595, 100000] is past one tensor's 1 GiB (2^27 numbers).
  for (const char* cmd : {"lesson swiglu --d-model 8192 --d-ff 100000", "lesson ffn --d-model 8192 --d-ff 100000"}) {
    INFO(cmd);
    CliResult r = refused(cmd, "is accepted");
    std::size_t at = r.err.find("--d-model up to ");
    REQUIRE(at != std::string::npos);
    long long n = std::stoll(r.err.substr(at + 16));
    CHECK(n * 100000 <= (1LL << 27));
    CHECK((n + 1) * 100000 > (1LL << 27));  // the tensor is what binds here: 1342
  }
}

}  // namespace file_test_hostile
