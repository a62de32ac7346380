// mla: golden fixtures from numpy (naive and absorbed paths, with and without RoPE, with a query
// latent), naive == absorbed, RoPE on the latent breaking absorption, RoPE itself, the decode
// costs and cache figures worked by hand, and the CLI as a user meets it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "lesson_args.h"
#include "catalog.h"
#include "golden.h"
#include "lesson.h"
#include "mla.h"
#include "deepseek_facts.h"
#include "random.h"
#include "rope.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_mla {

using namespace attn;

namespace {

Trace run_mla(TestConfig c) { return run_lesson("mla", c); }

TestConfig config(std::int64_t seed, std::int64_t T, std::int64_t D, std::int64_t H, std::int64_t Dh, std::int64_t C,
                    std::int64_t Cq, std::int64_t R, bool causal) {
  TestConfig c;
  c.seed = seed;
  c.seq_len = T;
  c.d_model = D;
  c.heads = H;
  c.head_dim = Dh;
  c.latent_dim = C;
  if (Cq > 0) c.q_latent_dim = Cq;
  c.rope_dim = R;
  c.causal = causal;
  return c;
}

double value(const Trace& t, const std::string& name) {
  for (const Step& s : t.steps)
    for (const Value& v : s.values)
      if (v.name == name) return std::get<double>(v.value);
  FAIL("no value " << name);
  return 0;
}

const Step& step(const Trace& t, const std::string& id) {
  for (const Step& s : t.steps)
    if (s.id == id) return s;
  FAIL("no step " << id);
  throw std::logic_error("unreachable");
}

void expect_usage_error(const std::string& args, const std::string& needle) {
  CliResult r = run_cli(args);
  INFO("attnlab " << args << "\nstderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("mla matches numpy at the default size (both paths, decoupled RoPE)", "[golden][mla]") {
  check_golden(run_mla(TestConfig{}), "mla_default");
}

TEST_CASE("mla matches numpy without RoPE", "[golden][mla]") {
  check_golden(run_mla(config(11, 5, 10, 3, 2, 3, 0, 0, false)), "mla_norope");
}

TEST_CASE("mla matches numpy with a query latent, RoPE and a causal mask", "[golden][mla]") {
  check_golden(run_mla(config(7, 6, 12, 3, 4, 5, 6, 4, true)), "mla_qlatent_causal");
}

TEST_CASE("naive == absorbed, and RoPE on K_C breaks absorption", "[mla]") {
  for (MlaDims d : {MlaDims{4, 8, 2, 4, 4, 0, 2}, MlaDims{5, 10, 3, 2, 3, 0, 0}, MlaDims{6, 12, 3, 4, 5, 6, 4},
                    MlaDims{3, 16, 4, 8, 6, 5, 8}, MlaDims{1, 4, 1, 2, 2, 0, 2}}) {
    for (bool causal : {false, true}) {
      INFO("T " << d.T << " D " << d.D << " H " << d.H << " Dh " << d.Dh << " C " << d.C << " Cq " << d.Cq << " R "
                << d.R << " causal " << causal);
      Rng rng(100 + d.T + d.R);
      Tensor X = randn(rng, {d.T, d.D});
      MlaWeights w = init_mla_weights(rng, d);
      MlaNaive n = mla_naive(X, w, d, causal);
      MlaAbsorbed a = mla_absorbed(n.c_KV, n.K_R, n.Q_C, n.Q_R, w, d, causal);
      CHECK(max_abs_diff(a.scores_absorbed, n.scores) <= 1e-12);
      CHECK(max_abs_diff(a.weights_absorbed, n.weights) <= 1e-12);
      CHECK(max_abs_diff(a.output_absorbed, n.output) <= 1e-12);
      RopeOnLatent rl = mla_rope_on_latent(n.c_KV, n.Q_C, n.K_C, w.W_UK, d, causal);
      Tensor by_key = mismatch_by_key(rl.scores, rl.scores_absorbed);
      CHECK(by_key.data[0] <= 1e-12);  // key position 0 is not rotated: R_0 = I
      if (d.T > 1) CHECK(max_abs(by_key) > 1e-3);  // every later key is
    }
  }
}

TEST_CASE("absorption must use the right head's W_UK (the check can fail)", "[mla]") {
  MlaDims d{4, 8, 2, 4, 4, 0, 2};
  Rng rng(5);
  Tensor X = randn(rng, {d.T, d.D});
  MlaWeights w = init_mla_weights(rng, d);
  MlaNaive n = mla_naive(X, w, d, false);
  MlaWeights swapped = w;  // heads' W_UK blocks exchanged
  swapped.W_UK = concat_cols({col_block(w.W_UK, 1, d.Dh), col_block(w.W_UK, 0, d.Dh)});
  MlaAbsorbed a = mla_absorbed(n.c_KV, n.K_R, n.Q_C, n.Q_R, swapped, d, false);
  CHECK(max_abs_diff(a.scores_absorbed, n.scores) > 1e-3);
}

TEST_CASE("RoPE: consecutive pairs rotated by position · θ_i", "[mla][rope]") {
  // θ_i = 10000^(−2i/4) for i = 0, 1: 1 and 10000^(−1/2) = 0.01
  Tensor theta = rope_theta(4);
  CHECK(theta.data[0] == 1.0);
  CHECK(theta.data[1] == Approx(0.01).epsilon(1e-15));
  // Row 0 (position 0) is unchanged; row 1 turns (1, 0) by 1 rad: (cos 1, sin 1).
  Tensor x({2, 2}, {1, 0, 1, 0});
  Tensor y = apply_rope(x, 2);
  CHECK(y(0, 0) == 1.0);
  CHECK(y(0, 1) == 0.0);
  CHECK(y(1, 0) == Approx(0.5403023058681398).margin(1e-15));
  CHECK(y(1, 1) == Approx(0.8414709848078965).margin(1e-15));
  // Relative positions: RoPE(q, m) · RoPE(k, n) depends on m − n only. Put q at 3 and k at 1,
  // then q at 5 and k at 3 (offset 2 both times): equal dot products.
  Rng rng(3);
  Tensor q = randn(rng, {1, 6}), k = randn(rng, {1, 6});
  auto at = [](const Tensor& v, std::size_t pos) {
    Tensor rows({pos + 1, 6});
    std::copy(v.data.begin(), v.data.end(), rows.data.begin() + static_cast<std::ptrdiff_t>(pos * 6));
    Tensor r = apply_rope(rows, 6);
    return std::vector<double>(r.data.begin() + static_cast<std::ptrdiff_t>(pos * 6), r.data.end());
  };
  auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  CHECK(dot(at(q, 3), at(k, 1)) == Approx(dot(at(q, 5), at(k, 3))).margin(1e-12));
  CHECK(std::fabs(dot(at(q, 3), at(k, 1)) - dot(at(q, 3), at(k, 2))) > 1e-6);
}

TEST_CASE("decode costs per token, worked by hand", "[mla]") {
  // H 2, Dh 4, C 4, R 2, D 8, L 4
  std::vector<DecodeCost> c = mla_decode_costs(MlaDims{4, 8, 2, 4, 4, 0, 2}, 4);
  REQUIRE(c.size() == 4);
  // naive: read 4·(2·2·4 + 2) = 72; MACs 2·4·2·4 (new K, V) 64 + 2·4·6 (scores) 48 + 2·4·4 (values) 32
  //        + 2·4·8 (W_O) 64 = 208
  CHECK(c[0].cache_read == 72);
  CHECK(c[0].macs == 208);
  // re-expand: read 4·(4 + 2) = 24; MACs 2·4·4·2·4 = 256 + 48 + 32 + 64 = 400
  CHECK(c[1].cache_read == 24);
  CHECK(c[1].macs == 400);
  // absorbed, W_UV folded into W_O: 2·4·4 (q absorb) 32 + 2·4·6 48 + 2·4·4 32 + 2·4·8 (W_UVO) 64 = 176
  CHECK(c[2].macs == 176);
  // absorbed, W_UV after attention: 32 + 48 + 32 + 2·4·4 (W_UV) 32 + 2·4·8 (W_O) 64 = 208
  CHECK(c[3].macs == 208);
}

TEST_CASE("DeepSeek cache figures from the presets", "[mla]") {
  DeepSeekCacheFacts f = deepseek_cache_facts();
  CHECK(f.v3_mla == 576);     // 512 + 64
  CHECK(f.v3_mha == 32768);   // 2·128·128
  CHECK(f.v3_gqa8 == 2048);   // 2·8·128
  CHECK(f.v2_token == 34560); // 576·60 layers
  CHECK(f.b67_token == 194560);  // 2·8·128·95 layers
  CHECK(f.v2_bytes_bf16 == 69120);
  CHECK(f.v2_bytes_6bit == 25920);  // 34,560·6 / 8
  CHECK(f.b67_bytes_bf16 == 389120);
  // 25,920 / 389,120 = 6.66% kept: the "93.3% less" of the DeepSeek-V2 paper
  CHECK(1.0 - 25920.0 / 389120.0 == Approx(0.933).margin(5e-4));
}

TEST_CASE("lesson mla shows the paths agreeing and RoPE on the latent disagreeing", "[mla][cli]") {
  Trace t = run_mla(TestConfig{});
  CHECK(value(t, "absorb_scores_diff") <= 1e-12);
  CHECK(value(t, "absorb_output_diff") <= 1e-12);
  CHECK(value(t, "decoupled_absorb_diff") <= 1e-12);
  CHECK(value(t, "rope_on_latent_mismatch") > 0.1);
  CHECK(value(t, "rope_on_latent_first_key") <= 1e-12);
  for (const char* name : {"X", "W_DKV", "c_KV", "W_UK", "W_UV", "K_C", "V_C", "W_Q", "Q_C", "scores", "weights",
                           "heads", "concat", "W_O", "output", "q_absorbed", "scores_absorbed", "output_absorbed",
                           "W_QR", "W_KR", "Q_R", "K_R", "scores_rope_on_latent"})
    CHECK(t.tensors.count(name) == 1);
  CHECK(t.at("c_KV").tensor.shape == Shape{4, 4});
  CHECK(t.at("K_C").tensor.shape == Shape{4, 8});
  CHECK(t.at("K_R").tensor.shape == Shape{4, 2});
  CHECK(t.at("Q_R").tensor.shape == Shape{4, 4});
  CHECK(t.at("q_absorbed").tensor.shape == Shape{2, 4, 4});

  Trace q = run_mla(config(7, 6, 12, 3, 4, 5, 6, 0, false));  // query latent, no RoPE
  for (const char* name : {"W_DQ", "c_Q", "W_UQ"}) CHECK(q.tensors.count(name) == 1);
  for (const char* name : {"W_Q", "Q_R", "K_R"}) CHECK(q.tensors.count(name) == 0);

  Text en(Lang::En);
  CHECK(step(t, "absorb").notes.at(0) ==
        en("mla.absorb.note", {{"scores_diff", value(t, "absorb_scores_diff")}, {"output_diff", value(t, "absorb_output_diff")}}));
  CHECK(step(t, "rope_on_latent").notes.at(0) ==
        en("mla.rope_on_latent.note", {{"mismatch", value(t, "rope_on_latent_mismatch")}}));
  CHECK(step(t, "cache").notes.size() == 2);  // the "~7%" and "About 1/10" notes; the latent is smaller than MHA's

  CliResult r = run_cli("lesson mla --lang en --color never");
  REQUIRE(r.code == 0);
  for (const char* needle : {"576", "32,768", "1/56.9", "93.3%", "6.66%", "1.76%", "1/15.0", "1/3.6",
                             "scores_rope_on_latent  [2, 4, 4]"})
    CHECK(r.out.find(needle) != std::string::npos);
  CliResult zh = run_cli("lesson mla --lang zh --color never");
  REQUIRE(zh.code == 0);
  Text tzh(Lang{"zh"});
  for (const char* key : {"mla.absorb.title", "mla.rope.title", "mla.rope_on_latent.title"})
    CHECK(zh.out.find(tzh(key)) != std::string::npos);
  CHECK(run_cli("lesson mla --causal --q-latent-dim 6 --json -").out ==
        run_cli("lesson mla --causal --q-latent-dim 6 --json -").out);
  Trace odd = run_mla(config(42, 4, 8, 2, 3, 4, 0, 0, false));
  REQUIRE(step(odd, "rope_on_latent").notes.size() == 1);
  CHECK(step(odd, "rope_on_latent").notes[0] == en("mla.rope_on_latent.note_odd", {{"d_h", 3}}));
  CHECK(odd.tensors.count("scores_rope_on_latent") == 0);
}

TEST_CASE("mla says so when its cache is larger than MHA's", "[mla]") {
  // --latent-dim 20: d_c + d_R = 22 against 2·2·4 = 16, 137.50% of MHA's cache.
  TestConfig c;
  c.latent_dim = 20;
  Trace t = run_mla(c);
  const Step& cache = step(t, "cache");
  Text en(Lang::En);
  std::string larger = en("mla.cache.note_not_smaller",
                          {{"larger", true}, {"mla", 22}, {"mha", 16}, {"percent", 137.5}, {"times", 1.375}, {"inv", 16.0 / 22.0}});
  CHECK(std::count(cache.notes.begin(), cache.notes.end(), larger) == 1);
  CHECK(larger.find("137.50%") != std::string::npos);
  CHECK(larger != en("mla.cache.note_not_smaller",
                     {{"larger", false}, {"mla", 22}, {"mha", 16}, {"percent", 137.5}, {"times", 1.375}, {"inv", 16.0 / 22.0}}));
  // equal sizes (d_c 14 + d_R 2 = 16): the other branch
  c.latent_dim = 14;
  Trace eq = run_mla(c);
  CHECK(std::count(step(eq, "cache").notes.begin(), step(eq, "cache").notes.end(),
                   en("mla.cache.note_not_smaller", {{"larger", false}, {"mla", 16}, {"mha", 16}, {"percent", 100.0}, {"times", 1.0}, {"inv", 1.0}})) == 1);
}

TEST_CASE("mla bad combinations exit 2 naming the flag", "[mla][cli]") {
  expect_usage_error("lesson mla --rope-dim 3", "--rope-dim 3 must be even");
  expect_usage_error("lesson mla --rope-dim -2", "--rope-dim");
  expect_usage_error("lesson mla --latent-dim 0", "--latent-dim");
  expect_usage_error("lesson mla --q-latent-dim 0", "--q-latent-dim");
  expect_usage_error("lesson mla --head-dim 0", "--head-dim");
  expect_usage_error("lesson mla --heads -1", "--heads");
  expect_usage_error("lesson mla --kv-heads 2", "--kv-heads");
  expect_usage_error("lesson mla --heads 100000 --latent-dim 100000 --d-model 100000", "reduce");
}

}  // namespace file_test_mla
