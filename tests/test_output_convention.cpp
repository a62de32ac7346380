// One convention for output (issue 30): --json FILE|- and --html FILE|- in every command that
// prints results, "wrote FILE: …" on stderr for a file, one schema per command that `attnlab
// render` reads back or names, tensors that name their axes, and --npz.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_output_convention {

using ckpt_test::fixture;

namespace {

std::string tmp_name(const std::string& what) {
  static int n = 0;
  return "/tmp/attnlab_out_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + "_" + what;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Every command that prints results, with small arguments (bench at its smallest sizes).
struct Cmd {
  std::string args;
  std::string schema;
};
std::vector<Cmd> commands() {
  const std::string w = fixture("tiny-gpt2");
  return {
      {"lesson mha", "attnlab.trace/2"},
      {"params --model gpt2", "attnlab.params/1"},
      {"kv-cache --model llama-3-8b", "attnlab.kv-cache/1"},
      {"kv-cache --compare gpt2,llama-3-8b", "attnlab.kv-cache/1"},
      {"models", "attnlab.models/1"},
      {"flops --model gpt2", "attnlab.flops/1"},
      {"bench memory --size-mib 64 --min-time 0.01 --threads 1", "attnlab.bench-memory/1"},
      {"bench decode --model gpt2 --seq-len 64 --min-time 0.01 --threads 1", "attnlab.bench-decode/2"},
      {"heads --weights " + w + " --token-ids 5,17,3,42,17,3", "attnlab.heads/1"},
      {"generate --weights " + w + " --token-ids 5,17,3 --tokens 2", "attnlab.generate/1"},
      {"train --task induction --steps 3 --quiet", "attnlab.train/1"},
  };
}

}  // namespace

TEST_CASE("output: every command takes --json FILE and --html FILE and says what it wrote", "[output]") {
  for (const Cmd& c : commands()) {
    const std::string json = tmp_name("doc.json"), html = tmp_name("page.html");
    CliResult r = run_cli(c.args + " --lang en --json " + json + " --html " + html);
    INFO("attnlab " << c.args << "\nstderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.empty());  // stdout holds only what "-" names
    CHECK(r.err.find("wrote " + json + ": JSON (" + c.schema + ")") != std::string::npos);
    CHECK(r.err.find("wrote " + html + ": HTML page") != std::string::npos);
    nlohmann::json doc = nlohmann::json::parse(slurp(json));
    CHECK(doc["schema"] == c.schema);
    CHECK(slurp(html).find("<html") != std::string::npos);
    // "-": the document alone on stdout, nothing on stderr about it
    CliResult d = run_cli(c.args + " --lang en --json -");
    CHECK(d.code == 0);
    CHECK(nlohmann::json::parse(d.out)["schema"] == c.schema);
    CHECK(d.err.find("wrote") == std::string::npos);
    std::remove(json.c_str());
    std::remove(html.c_str());
  }
}

TEST_CASE("output: a bare --json is refused with one line that says --json -", "[output]") {
  for (const std::string args : {"models --json", "params --model gpt2 --json", "flops --json", "lesson mha --html"}) {
    CliResult r = run_cli(args + " --lang en");
    INFO("attnlab " << args << "\nstderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(" -)") != std::string::npos);
  }
}

TEST_CASE("output: render draws a trace and names every other document kind", "[output]") {
  for (const Cmd& c : commands()) {
    const std::string json = tmp_name("doc.json"), html = tmp_name("page.html");
    REQUIRE(run_cli(c.args + " --lang en --json " + json).code == 0);
    CliResult r = run_cli("render " + json + " --html " + html + " --lang en");
    INFO("attnlab " << c.args << "\nrender stderr: " << r.err);
    if (c.schema == "attnlab.trace/2") {
      CHECK(r.code == 0);
    } else {
      CHECK(r.code == 2);
      CHECK(lines(r.err) == 1);
      CHECK(r.err.find("an " + c.schema + " document") != std::string::npos);
      CHECK(r.err.find("not an attnlab trace") == std::string::npos);
      struct stat st {};
      CHECK(::stat(html.c_str(), &st) != 0);  // nothing written
    }
    std::remove(json.c_str());
    std::remove(html.c_str());
  }
}

TEST_CASE("output: params has one schema, with --weights too", "[output]") {
  nlohmann::json a = nlohmann::json::parse(run_cli("params --model gpt2 --json -").out);
  nlohmann::json b = nlohmann::json::parse(run_cli("params --weights " + fixture("tiny-gpt2") + " --json -").out);
  for (const nlohmann::json* d : {&a, &b}) {
    CHECK((*d)["schema"] == "attnlab.params/1");
    for (const char* key : {"model", "total_params", "active_params", "breakdown"}) CHECK(d->contains(key));
  }
  CHECK(b["checkpoint"]["total"]["files"] == b["total_params"]);
  CHECK(b["checkpoint"]["agree"] == true);
  // the help promises exactly these keys
  CHECK(run_cli("params --help --lang en").out.find("attnlab.params/1") != std::string::npos);
}

TEST_CASE("output: every tensor of every lesson's trace names its axes", "[output]") {
  for (const std::string lesson : {"attention", "mha", "gqa", "mqa", "mla", "decode", "ffn", "kv-memory", "block", "gate"}) {
    nlohmann::json doc = nlohmann::json::parse(run_cli("lesson " + lesson + " --json -").out);
    INFO(lesson);
    CHECK(doc["schema"] == "attnlab.trace/2");
    for (auto& [name, t] : doc["tensors"].items()) {
      INFO(name);
      REQUIRE(t.contains("axes"));
      CHECK(t["axes"].size() == t["shape"].size());
    }
  }
  nlohmann::json mha = nlohmann::json::parse(run_cli("lesson mha --json -").out);
  CHECK(mha["tensors"]["weights"]["axes"] == nlohmann::json({"head", "query", "key"}));
  CHECK(mha["tensors"]["Q_heads"]["axes"] == nlohmann::json({"head", "token", "dim"}));
  CHECK(mha["tensors"]["W_Q"]["axes"] == nlohmann::json({"in", "out"}));
  nlohmann::json gqa = nlohmann::json::parse(run_cli("lesson gqa --json -").out);
  CHECK(gqa["tensors"]["K_heads"]["axes"] == nlohmann::json({"group", "token", "dim"}));
  // a trace read back keeps them: render --text of a saved trace prints what the run printed
  const std::string json = tmp_name("mha.json");
  REQUIRE(run_cli("lesson mha --json " + json).code == 0);
  CHECK(run_cli("render " + json + " --text --color never").out == run_cli("lesson mha --color never --lang en").out);
  std::remove(json.c_str());
}

TEST_CASE("output: --npz holds every tensor of the run, numpy reads it, the values are the JSON's", "[output][npz]") {
  const std::string npz = tmp_name("run.npz"), json = tmp_name("run.json");
  CliResult r = run_cli("lesson mha --causal --seq-len 5 --json " + json + " --npz " + npz + " --lang en");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.find("wrote " + npz + ": 19 tensors as numpy .npz") != std::string::npos);
  // numpy's own reader, when this machine has it (the CI's /usr/bin/python3 does)
  if (::access("/usr/bin/python3", X_OK) == 0 && std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0) {
    const std::string py =
        "import json, sys, numpy as np\n"
        "z = np.load(sys.argv[1]); d = json.load(open(sys.argv[2]))\n"
        "assert list(z.files) == list(d['tensors']), (z.files, list(d['tensors']))\n"
        "assert z.zip.testzip() is None  # every member's CRC-32 checked by Python's zipfile\n"
        "for k, t in d['tensors'].items():\n"
        "    a = z[k]; assert a.dtype == np.float64 and list(a.shape) == t['shape'], k\n"
        "    ref = np.array([-np.inf if x is None else x for x in t['data']], dtype=np.float64).reshape(t['shape'])\n"
        "    assert np.array_equal(a, ref), k\n"
        "print('ok', len(z.files))\n";
    const std::string script = tmp_name("check.py");
    std::ofstream(script) << py;
    CliResult p;
    {
      std::string out = tmp_name("py.out");
      int rc = std::system(("/usr/bin/python3 " + script + " " + npz + " " + json + " >" + out + " 2>&1").c_str());
      p.code = rc;
      p.out = slurp(out);
      std::remove(out.c_str());
    }
    INFO(p.out);
    CHECK(p.code == 0);
    CHECK(p.out == "ok 19\n");
    std::remove(script.c_str());
  }
  std::remove(npz.c_str());
  std::remove(json.c_str());
}

TEST_CASE("output: --npz is declared before work like every output", "[output][npz]") {
  CliResult r = run_cli("lesson mha --npz /nonexistent-folder/x.npz --lang en");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("--npz") != std::string::npos);
  CliResult both = run_cli("lesson mha --npz - --json - --lang en");
  CHECK(both.code == 2);
  CHECK(both.err.find("--npz") != std::string::npos);
}

}  // namespace file_test_output_convention
