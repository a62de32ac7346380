// transmla: the SVD against numpy and a hand example; the GQA -> MLA rewrite is exact with the
// same cache; the lesson's tensors against an independent numpy script; the decode costs worked
// by hand for Llama 3 8B; the CLI in en and zh, JSON and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

#include "attention.h"
#include "catalog.h"
#include "golden.h"
#include "lesson_args.h"
#include "random.h"
#include "run_cli.h"
#include "svd.h"
#include "transmla.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_transmla {

using namespace attn;

namespace {

Trace run_transmla(const std::vector<std::pair<std::string, std::string>>& flags, std::int64_t seed = 42) {
  std::unique_ptr<LessonRun> run = find_lesson("transmla")->make();
  ArgsBinder b;
  run->bind(b);
  for (const auto& [flag, value] : flags) b.set(flag, value);
  return run->run(RunContext{Lang::En, seed});
}

double value(const Trace& t, const std::string& name) {
  for (const Step& s : t.steps)
    for (const Value& v : s.values)
      if (v.name == name) return std::holds_alternative<double>(v.value) ? std::get<double>(v.value)
                                                                         : static_cast<double>(std::get<std::int64_t>(v.value));
  FAIL("no value " << name);
  return 0;
}

Tensor from_json(const nlohmann::json& j) { return Tensor(j["shape"].get<Shape>(), j["data"].get<std::vector<double>>()); }

}  // namespace

TEST_CASE("svd: a 2 by 2 worked by hand", "[svd]") {
  // AᵀA = [[25, 20], [20, 25]]: eigenvalues 45 and 5, eigenvectors (1, 1)/√2 and (1, −1)/√2.
  Svd s = svd_jacobi(Tensor({2, 2}, {3, 0, 4, 5}));
  CHECK(s.S.data[0] == Approx(std::sqrt(45.0)).epsilon(1e-15));
  CHECK(s.S.data[1] == Approx(std::sqrt(5.0)).epsilon(1e-15));
  double h = 1.0 / std::sqrt(2.0);
  // signs: the largest entry of each V column positive (a tie: the first one)
  CHECK(s.V(0, 0) == Approx(h));
  CHECK(s.V(1, 0) == Approx(h));
  CHECK(s.V(0, 1) == Approx(h));
  CHECK(s.V(1, 1) == Approx(-h));
  // 45 of 45 + 5 in the first singular value
  CHECK(singular_value_energy(s.S, 1) == Approx(0.9));
  CHECK(singular_value_energy(s.S, 2) == Approx(1.0));
  CHECK(singular_value_energy(Tensor({2}), 1) == 0.0);
}

TEST_CASE("svd: singular values and vectors equal numpy's on tall, wide, square and rank-deficient matrices", "[svd][golden]") {
  nlohmann::json g = load_golden("svd_cases");
  for (const char* name : {"tall", "wide", "square", "rank_deficient", "zero_column"}) {
    INFO(name);
    Tensor A = from_json(g["tensors"][std::string(name) + "_A"]);
    Tensor S = from_json(g["tensors"][std::string(name) + "_S"]);
    Tensor V = from_json(g["tensors"][std::string(name) + "_V"]);
    Svd s = svd_jacobi(A);
    REQUIRE(s.S.shape == S.shape);
    REQUIRE(s.V.shape == V.shape);
    CHECK(max_abs_diff(s.S, S) < 1e-13);
    // a singular vector is defined when its singular value is apart from the others
    for (std::size_t k = 0; k < S.numel(); ++k)
      for (std::size_t i = 0; i < V.dim(0); ++i) CHECK(std::fabs(s.V(i, k) - V(i, k)) < 1e-12);
    // U diag(S) Vᵀ rebuilds A
    LowRank lr = truncate_svd(s, S.numel());
    CHECK(max_abs_diff(matmul(lr.left, lr.right), A) < 1e-13);
    // VᵀV = I
    Tensor vtv = matmul(transpose(s.V), s.V);
    for (std::size_t i = 0; i < vtv.dim(0); ++i)
      for (std::size_t j = 0; j < vtv.dim(1); ++j) CHECK(std::fabs(vtv(i, j) - (i == j ? 1.0 : 0.0)) < 1e-13);
  }
}

TEST_CASE("svd: the same bytes on every run and a bad shape is refused", "[svd]") {
  Rng rng(5);
  Tensor A = randn(rng, {9, 6});
  Svd a = svd_jacobi(A), b = svd_jacobi(A);
  CHECK(a.S.data == b.S.data);
  CHECK(a.U.data == b.U.data);
  CHECK(a.sweeps >= 2);
  CHECK_THROWS(svd_jacobi(Tensor({3})));
  CHECK_THROWS(truncate_svd(a, 0));
  CHECK_THROWS(truncate_svd(a, 7));
}

TEST_CASE("transmla: the copy up-projections worked by hand", "[transmla]") {
  // h 4, g 2, d_h 1: heads 1, 2 read group 1 (latent row 0), heads 3, 4 group 2 (row 1); values in rows 2, 3.
  Tensor uk = gqa_up_projection(4, 2, 1, false), uv = gqa_up_projection(4, 2, 1, true);
  CHECK(uk.data == std::vector<double>{1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(uv.data == std::vector<double>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1});
}

TEST_CASE("transmla: GQA rewritten as MLA gives the same output and the same cache", "[transmla]") {
  for (auto [H, G, causal] : {std::tuple{8, 2, false}, std::tuple{4, 4, true}, std::tuple{6, 1, true}}) {
    Trace t = run_transmla({{"--heads", std::to_string(H)}, {"--kv-heads", std::to_string(G)}, {"--d-model", "24"},
                            {"--causal", causal ? "true" : "false"}});
    CHECK(value(t, "rewrite_output_diff") <= 1e-12);
    CHECK(value(t, "rewrite_keys_diff") == 0.0);
    CHECK(value(t, "cache_gqa") == value(t, "cache_mla"));
    CHECK(value(t, "absorb_diff") <= 1e-12);
    const Tensor& err = t.at("max_error").tensor;
    CHECK(err.data.back() <= 1e-12);   // nothing dropped at full rank
    CHECK(err.data.front() > 1e-3);    // rank 1 of random weights: far off
  }
}

TEST_CASE("transmla: golden fixture from numpy for the default run", "[transmla][golden]") {
  check_golden(run_transmla({}), "transmla_default");
}

TEST_CASE("transmla: golden fixture from numpy for MQA, causal", "[transmla][golden]") {
  Trace t = run_transmla({{"--seq-len", "5"}, {"--d-model", "12"}, {"--heads", "4"}, {"--kv-heads", "1"},
                          {"--head-dim", "3"}, {"--latent-dim", "2"}, {"--causal", "true"}},
                         7);
  check_golden(t, "transmla_mqa_causal");
}

TEST_CASE("transmla: decode costs for Llama 3 8B at 8K worked by hand", "[transmla]") {
  Trace t = run_transmla({});
  const Table* costs = nullptr;
  for (const Step& s : t.steps)
    if (s.id == "absorb") costs = &s.tables.at(0);
  REQUIRE(costs != nullptr);
  REQUIRE(costs->rows.size() == 8);
  auto cell = [&](std::size_t row, std::size_t col) { return std::get<std::int64_t>(costs->rows[row][col]); };
  // rows 4-7: Llama 3 8B (h 32, g 8, d_h 128), n = 8192, 2 bytes per number
  CHECK(cell(4, 2) == 2048);                      // GQA: 2·8·128 numbers per token
  CHECK(cell(4, 3) == 2048LL * 8192 * 2);         // 33,554,432 bytes
  CHECK(cell(4, 4) == 2LL * 32 * 128 * 8192);     // scores + weighted sum: 67,108,864
  CHECK(cell(6, 2) == 2048);                      // the exact latent: the same cache
  CHECK(cell(6, 4) == 32LL * 128 * 2048 * 2 + 2LL * 32 * 8192 * 2048);  // 1,090,519,040: 16.25× GQA
  CHECK(cell(7, 2) == 576);                       // TransMLA's 512 + 64
  CHECK(cell(7, 3) == 576LL * 8192 * 2);
  CHECK(cell(7, 4) == 32LL * 128 * 512 + 32LL * 8192 * 576 + 32LL * 8192 * 512 + 32LL * 512 * 128);
  // rows 0-3: this run (h 8, g 2, d_h 2, r 4)
  CHECK(cell(0, 2) == 8);
  CHECK(cell(3, 2) == 4);
}

TEST_CASE("transmla: the CLI in en and zh with JSON, steps and bad input", "[transmla][cli]") {
  CliResult en = run_cli("lesson transmla");
  CHECK(en.code == 0);
  CHECK(en.out.find("arXiv:2502.14837") != std::string::npos);
  CliResult zh = run_cli("lesson transmla --lang zh");
  CHECK(zh.code == 0);
  CHECK(zh.out.find("潜向量") != std::string::npos);
  CliResult j = run_cli("lesson transmla --json - --latent-dim 2");
  CHECK(j.code == 0);
  nlohmann::json doc = nlohmann::json::parse(j.out);
  CHECK(doc["lesson"] == "transmla");
  CliResult step = run_cli("lesson transmla --step rewrite");
  CHECK(step.code == 0);
  CHECK(step.out.find("W_DKV") != std::string::npos);
  for (const char* bad : {"lesson transmla --kv-heads 3", "lesson transmla --d-model 1", "lesson transmla --d-model 1 --heads 2 --seq-len 1", "lesson transmla --latent-dim 9", "lesson transmla --latent-dim 0",
                          "lesson transmla --bytes-per-number 9", "lesson transmla --head-dim 0",
                          "lesson transmla --d-model 100000 --heads 1000 --kv-heads 1000"}) {
    CliResult r = run_cli(bad);
    INFO(bad << "\n" << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("transmla: the sweep takes every rank up to K = 64, else K/8, K/4, K/2 and K, or the ranks of --ranks", "[transmla]") {
  // K = 8: every rank; --ranks picks rows of the same sweep, bit for bit, in any order.
  const Trace all = run_transmla({});
  const Tensor& every = all.at("rel_error").tensor;
  REQUIRE(every.numel() == 8);
  const Trace some = run_transmla({{"--ranks", "5, 2"}});
  CHECK(some.at("rank").tensor.data == std::vector<double>{2, 5});
  CHECK(some.at("rel_error").tensor.data == std::vector<double>{every.data[1], every.data[4]});
  CHECK(some.at("max_error").tensor.data ==
        std::vector<double>{all.at("max_error").tensor.data[1], all.at("max_error").tensor.data[4]});
  // K = min(160, 2·4·16) = 128: four ranks, the Gram SVD, and its QR steps in place of Jacobi's sweeps.
  const Trace big = run_transmla({{"--d-model", "160"}, {"--heads", "8"}, {"--kv-heads", "4"}, {"--head-dim", "16"}});
  CHECK(big.at("rank").tensor.data == std::vector<double>{16, 32, 64, 128});
  CHECK(big.at("max_error").tensor.data.back() <= 1e-12);  // K: nothing dropped
  CHECK(big.at("max_error").tensor.data.front() > 1e-3);
  CHECK(big.at("singular_values").tensor.numel() == 128);
  CHECK(value(big, "svd_qr_steps") >= 128);
  CHECK(value(big, "svd_reconstruction") <= 1e-13);
  CHECK(value(big, "rewrite_output_diff") <= 1e-12);
  CHECK(value(big, "absorb_diff") <= 1e-12);
  for (const Step& st : big.steps)
    for (const Value& v : st.values) CHECK(v.name != "svd_sweeps");
  // --ranks 64 at K = 128 is the same rank-64 forward as the default sweep's.
  const Trace one = run_transmla({{"--d-model", "160"}, {"--heads", "8"}, {"--kv-heads", "4"}, {"--head-dim", "16"}, {"--ranks", "64"}});
  CHECK(one.at("rel_error").tensor.data == std::vector<double>{big.at("rel_error").tensor.data[2]});
}

TEST_CASE("transmla: a bad --ranks is one line naming the flag and the rule", "[transmla][cli]") {
  for (auto [args, says] : {std::pair{"--ranks 1,,2", "empty item"}, {"--ranks 1,x", "'x' is not a whole number"},
                            {"--ranks -3", "'-3' is not a whole number"}, {"--ranks 0", "rank 0 is out of range"},
                            {"--ranks 9", "rank 9 is out of range: r goes from 1 to K = min(d_model, 2·g·d_h) = 8"},
                            {"--ranks 99999999999999999999", "out of range"}, {"--ranks 3,1,3", "rank 3 is given twice"},
                            {"--ranks ''", "empty value"}}) {
    CliResult r = run_cli(std::string("lesson transmla ") + args);
    INFO(args << "\n" << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("--ranks") != std::string::npos);
    CHECK(r.err.find(says) != std::string::npos);
  }
  CliResult help = run_cli("lesson transmla --help");
  CHECK(help.out.find("--ranks") != std::string::npos);
  CHECK(help.out.find("K/8, K/4, K/2 and K") != std::string::npos);
}

TEST_CASE("transmla: too many ranks at Llama 3 8B's sizes is refused naming the sweep and --ranks", "[transmla][cli]") {
  std::string all;
  for (int r = 1; r <= 2048; ++r) all += (r > 1 ? "," : "") + std::to_string(r);
  CliResult r = run_cli("lesson transmla --d-model 4096 --heads 32 --kv-heads 8 --head-dim 128 --ranks " + all);
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("most of it for the sweep, 2048 ranks × one forward of the layer") != std::string::npos);
  CHECK(r.err.find("(reduce --ranks") != std::string::npos);
  CliResult zh = run_cli("lesson transmla --lang zh --d-model 4096 --heads 32 --kv-heads 8 --head-dim 128 --ranks " + all);
  CHECK(zh.code == 2);
  CHECK(zh.err.find(Text(Lang{"zh"})("transmla.work.sweep", {{"n", 2048}})) != std::string::npos);
}

}  // namespace file_test_transmla
