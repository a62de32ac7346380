// GPT-2 training math: every backward pass against central finite differences, the whole model and
// AdamW against PyTorch autograd (tests/golden/gen_train_gpt.py), thread independence, the tasks,
// the head scores on hand-built attention patterns and the safetensors writer.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adamw.h"
#include "gpt.h"
#include "head_scores.h"
#include "parallel.h"
#include "random.h"
#include "safetensors_writer.h"
#include "tasks.h"
#include "trainer.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_train_gpt {

using namespace attn;
using namespace attn::gpt;

namespace {

std::vector<double> rand_vec(Rng& rng, std::size_t n, double std = 1.0) {
  std::vector<double> v(n);
  rng.fill_normal(v.data(), n, std);
  return v;
}

// For an objective f(x) = Σ out(x) · R, checks the analytic gradient g against central differences
// of every entry of x. Returns the worst relative error.
double fd_check(std::vector<double>& x, const std::vector<double>& g, const std::function<double()>& f) {
  REQUIRE(x.size() == g.size());
  const double h = 1e-5;
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double keep = x[i];
    x[i] = keep + h;
    double up = f();
    x[i] = keep - h;
    double down = f();
    x[i] = keep;
    double fd = (up - down) / (2 * h);
    worst = std::max(worst, std::fabs(fd - g[i]) / std::max(1.0, std::fabs(fd)));
  }
  return worst;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

TEST_CASE("gpt layernorm backward matches finite differences") {
  Rng rng(1);
  const std::size_t N = 3, C = 5;
  auto inp = rand_vec(rng, N * C), w = rand_vec(rng, C), b = rand_vec(rng, C), R = rand_vec(rng, N * C);
  std::vector<double> out(N * C), mean(N), rstd(N);
  auto f = [&] {
    layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(), b.data(), N, C);
    return dot(out, R);
  };
  f();
  std::vector<double> dinp(N * C, 0.0), dw(C, 0.0), db(C, 0.0);
  layernorm_backward(dinp.data(), dw.data(), db.data(), R.data(), inp.data(), w.data(), mean.data(), rstd.data(), N, C);
  CHECK(fd_check(inp, dinp, f) < 1e-8);
  CHECK(fd_check(w, dw, f) < 1e-8);
  CHECK(fd_check(b, db, f) < 1e-8);
}

TEST_CASE("gpt matmul backward matches finite differences") {
  Rng rng(2);
  const std::size_t N = 4, IC = 3, OC = 5;
  auto inp = rand_vec(rng, N * IC), w = rand_vec(rng, IC * OC), bias = rand_vec(rng, OC), R = rand_vec(rng, N * OC);
  std::vector<double> out(N * OC);
  auto f = [&] {
    matmul_forward(out.data(), inp.data(), w.data(), bias.data(), N, IC, OC);
    return dot(out, R);
  };
  std::vector<double> dinp(N * IC, 0.0), dw(IC * OC, 0.0), db(OC, 0.0);
  matmul_backward(dinp.data(), dw.data(), db.data(), R.data(), inp.data(), w.data(), N, IC, OC);
  CHECK(fd_check(inp, dinp, f) < 1e-8);
  CHECK(fd_check(w, dw, f) < 1e-8);
  CHECK(fd_check(bias, db, f) < 1e-8);
}

TEST_CASE("gpt causal attention backward matches finite differences, with and without a head gate") {
  Rng rng(3);
  const std::size_t B = 2, T = 4, C = 6, H = 3;
  auto qkv = rand_vec(rng, B * T * 3 * C), R = rand_vec(rng, B * T * C);
  for (bool gated : {false, true}) {
    std::vector<double> gate = {1.0, 0.0, 0.5};
    const double* g = gated ? gate.data() : nullptr;
    std::vector<double> out(B * T * C), att(B * H * T * T);
    auto f = [&] {
      attention_forward(out.data(), att.data(), qkv.data(), B, T, C, H, g);
      return dot(out, R);
    };
    f();
    // causal: weights above the diagonal are exactly 0, rows sum to 1
    CHECK(att[1] == 0.0);
    double row = 0.0;
    for (std::size_t t2 = 0; t2 < T; ++t2) row += att[(T - 1) * T + t2];
    CHECK(row == Approx(1.0).epsilon(1e-14));
    std::vector<double> dqkv(qkv.size(), 0.0);
    attention_backward(dqkv.data(), R.data(), qkv.data(), att.data(), B, T, C, H, g);
    CHECK(fd_check(qkv, dqkv, f) < 1e-8);
  }
}

TEST_CASE("gpt gelu, residual, encoder and cross-entropy backwards match finite differences") {
  Rng rng(4);
  const std::size_t n = 9;
  auto x = rand_vec(rng, n, 2.0), R = rand_vec(rng, n);
  std::vector<double> out(n);
  auto fg = [&] {
    gelu_forward(out.data(), x.data(), n);
    return dot(out, R);
  };
  std::vector<double> dx(n, 0.0);
  gelu_backward(dx.data(), x.data(), R.data(), n);
  CHECK(fd_check(x, dx, fg) < 1e-8);
  CHECK(out.size() == n);
  // GELU tanh at 1: 0.5 (1 + tanh(√(2/π) · 1.044715))
  double one = 1.0, g1 = 0.0;
  gelu_forward(&g1, &one, 1);
  CHECK(g1 == Approx(0.5 * (1 + std::tanh(std::sqrt(2 / M_PI) * 1.044715))).epsilon(1e-15));

  auto a = rand_vec(rng, n), b = rand_vec(rng, n);
  auto fr = [&] {
    residual_forward(out.data(), a.data(), b.data(), n);
    return dot(out, R);
  };
  std::vector<double> da(n, 0.0), db(n, 0.0);
  residual_backward(da.data(), db.data(), R.data(), n);
  CHECK(fd_check(a, da, fr) < 1e-8);
  CHECK(fd_check(b, db, fr) < 1e-8);

  const std::size_t B = 2, T = 3, C = 4, V = 5;
  std::vector<int> tokens = {1, 4, 1, 0, 2, 1};
  auto wte = rand_vec(rng, V * C), wpe = rand_vec(rng, T * C), Re = rand_vec(rng, B * T * C);
  std::vector<double> enc(B * T * C);
  auto fe = [&] {
    encoder_forward(enc.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);
    return dot(enc, Re);
  };
  std::vector<double> dwte(V * C, 0.0), dwpe(T * C, 0.0);
  encoder_backward(dwte.data(), dwpe.data(), Re.data(), tokens.data(), B, T, C, V);
  CHECK(fd_check(wte, dwte, fe) < 1e-8);
  CHECK(fd_check(wpe, dwpe, fe) < 1e-8);

  const std::size_t N = 3;
  auto logits = rand_vec(rng, N * V), dl = rand_vec(rng, N);
  std::vector<int> targets = {2, -1, 4};
  std::vector<double> probs(N * V), losses(N);
  auto fc = [&] {
    softmax_forward(probs.data(), logits.data(), N, V);
    crossentropy_forward(losses.data(), probs.data(), targets.data(), N, V);
    return dot(losses, dl);
  };
  fc();
  CHECK(losses[1] == 0.0);
  std::vector<double> dlogits(N * V, 0.0);
  crossentropy_softmax_backward(dlogits.data(), dl.data(), probs.data(), targets.data(), N, V);
  CHECK(fd_check(logits, dlogits, fc) < 1e-8);
}

TEST_CASE("gpt whole-model gradient matches finite differences, with and without the MLP") {
  for (bool mlp : {true, false}) {
    GptConfig c{7, 5, 6, 2, 2, mlp};
    Gpt m = make_gpt(c, 3);
    Rng rng(5);  // larger weights than GPT-2's 0.02 so that every path carries gradient
    m.params = rand_vec(rng, m.layout.total, 0.5);
    const std::size_t B = 2, T = 4;
    std::vector<int> tokens = {1, 6, 2, 2, 0, 3, 5, 1}, targets = {6, 2, 2, -1, 3, 5, 1, 4};
    GptActs a;
    std::vector<double> grads;
    gpt_forward(m, tokens.data(), targets.data(), B, T, a);
    CHECK(a.counted == 7);
    gpt_backward(m, tokens.data(), targets.data(), a, grads);
    auto f = [&] {
      GptActs b;
      gpt_forward(m, tokens.data(), targets.data(), B, T, b);
      return b.loss;
    };
    INFO("mlp " << mlp);
    CHECK(fd_check(m.params, grads, f) < 1e-7);
  }
}

TEST_CASE("gpt layout follows Hugging Face GPT-2 names and shapes") {
  GptConfig c{50, 16, 8, 2, 2, true};
  GptLayout g = gpt_layout(c);
  REQUIRE(g.tensors.size() == 2 + 2 * 12 + 2);
  CHECK(g.tensors[0].name == "wte.weight");
  CHECK(g.tensors[0].shape == Shape{50, 8});
  CHECK(g.tensors[4].name == "h.0.attn.c_attn.weight");
  CHECK(g.tensors[4].shape == Shape{8, 24});
  CHECK(g.tensors[12].name == "h.0.mlp.c_proj.weight");
  CHECK(g.tensors[12].shape == Shape{32, 8});
  CHECK(g.tensors.back().name == "ln_f.bias");
  CHECK(static_cast<double>(g.total) == gpt_param_count(c));
  GptConfig a = c;
  a.mlp = false;
  CHECK(gpt_layout(a).tensors.size() == 2 + 2 * 6 + 2);
  CHECK(static_cast<double>(gpt_layout(a).total) == gpt_param_count(a));
  // the attention-only model: 37,760 parameters
  CHECK(gpt_param_count(GptConfig{32, 32, 64, 2, 4, false}) == 37760.0);
}

namespace {
void check_case(const nlohmann::json& k) {
  const auto& cfg = k["config"];
  GptConfig c{cfg["vocab"], cfg["n_positions"], cfg["d_model"], cfg["n_layer"], cfg["n_head"], cfg["mlp"]};
  Gpt m = make_gpt(c, cfg["seed"].get<std::uint64_t>());
  std::vector<int> tokens = k["tokens"].get<std::vector<int>>(), targets = k["targets"].get<std::vector<int>>();
  const std::size_t B = cfg["batch"], T = c.n_positions;
  GptActs a;
  std::vector<double> grads;
  gpt_forward(m, tokens.data(), targets.data(), B, T, a);
  CHECK(std::fabs(a.loss - k["loss"].get<double>()) < 1e-12);
  gpt_backward(m, tokens.data(), targets.data(), a, grads);
  double worst = 0.0;
  for (const ParamTensor& t : m.layout.tensors) {
    const auto& g = k["grads"][t.name];
    REQUIRE(g.size() == t.size);
    for (std::size_t i = 0; i < t.size; ++i) worst = std::max(worst, std::fabs(grads[t.offset + i] - g[i].get<double>()));
  }
  INFO("largest gradient difference " << worst);
  CHECK(worst < 1e-10);
  std::vector<std::uint8_t> decay(m.layout.total, 0);
  for (const ParamTensor& t : m.layout.tensors)
    if (t.shape.size() == 2) std::fill(decay.begin() + t.offset, decay.begin() + t.offset + t.size, 1);
  AdamW opt;
  opt.beta1 = cfg["betas"][0], opt.beta2 = cfg["betas"][1], opt.eps = cfg["eps"], opt.weight_decay = cfg["weight_decay"];
  const std::size_t steps = cfg["adamw_steps"];
  for (std::size_t s = 0; s < steps; ++s) {
    gpt_forward(m, tokens.data(), targets.data(), B, T, a);
    CHECK(std::fabs(a.loss - k["step_losses"][s].get<double>()) < 1e-10);
    gpt_backward(m, tokens.data(), targets.data(), a, grads);
    adamw_step(opt, m.params, grads, cfg["lr"].get<double>(), &decay);
  }
  double worst_w = 0.0;
  for (const ParamTensor& t : m.layout.tensors) {
    const auto& w = k["after"][t.name];
    REQUIRE(w.size() == t.size);
    for (std::size_t i = 0; i < t.size; ++i) worst_w = std::max(worst_w, std::fabs(m.params[t.offset + i] - w[i].get<double>()));
  }
  INFO("largest weight difference after AdamW " << worst_w);
  CHECK(worst_w < 1e-10);
}
}  // namespace

TEST_CASE("gpt loss, every gradient and AdamW steps agree with PyTorch autograd") {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/train_gpt.json");
  REQUIRE(in.good());
  nlohmann::json doc = nlohmann::json::parse(in);
  REQUIRE(doc["cases"].size() == 2);
  for (const auto& [name, k] : doc["cases"].items()) {
    INFO("case " << name);
    check_case(k);
  }
}

TEST_CASE("adamw decays only the flagged parameters and matches a hand computation") {
  AdamW opt;
  opt.weight_decay = 0.5;
  std::vector<double> p = {1.0, 1.0}, g = {0.2, 0.2};
  std::vector<std::uint8_t> decay = {1, 0};
  adamw_step(opt, p, g, 0.1, &decay);
  // step 1: m̂ = g, v̂ = g², update = lr · g / (|g| + eps)
  double upd = 0.1 * (0.2 * (1 - 0.9) / (1 - 0.9)) / (std::sqrt(0.2 * 0.2 * (1 - 0.999)) / std::sqrt(1 - 0.999) + 1e-8);
  CHECK(p[0] == Approx(1.0 * (1 - 0.1 * 0.5) - upd).epsilon(1e-14));
  CHECK(p[1] == Approx(1.0 - upd).epsilon(1e-14));
  CHECK(opt.t == 1);
  std::vector<double> bad = {1.0};
  CHECK_THROWS_AS(adamw_step(opt, p, bad, 0.1), std::invalid_argument);
}

TEST_CASE("training gives the same bits for one thread and for three") {
  train::TrainConfig c;
  c.model = {12, 16, 8, 2, 2, true};
  c.batch = 4, c.steps = 6, c.warmup = 2, c.eval_every = 3, c.eval_batch = 4;
  set_threads(1);
  train::TrainResult one = train::train(c);
  set_threads(3);
  train::TrainResult three = train::train(c);
  set_threads(0);
  REQUIRE(one.loss_curve.size() == 6);
  CHECK(one.loss_curve == three.loss_curve);
  CHECK(one.model.params == three.model.params);
  CHECK(one.evals.size() == 3);
  CHECK(one.evals.back().scores.induction.data == three.evals.back().scores.induction.data);
  CHECK(one.loss_curve.front() == Approx(std::log(12.0)).epsilon(0.05));  // a fresh model guesses uniformly
}

TEST_CASE("the induction task repeats h distinct tokens at a random offset") {
  Rng rng(9);
  train::Batch b = train::make_batch(train::Task::Induction, 50, 32, 32, rng);
  std::set<std::size_t> starts;
  for (std::size_t s = 0; s < b.B; ++s) {
    const int* x = b.tokens.data() + s * 32;
    const int* r = b.repeat_targets.data() + s * 32;
    std::size_t first = 32, n = 0;
    for (std::size_t t = 0; t < 32; ++t)
      if (r[t] >= 0) first = std::min(first, t), ++n;
    REQUIRE(n >= 7);
    REQUIRE(n <= 14);
    const std::size_t h = n + 1, p = first - h;  // the second copy starts at p + h
    starts.insert(p);
    std::set<int> copy(x + p, x + p + h);
    CHECK(copy.size() == h);  // distinct
    for (std::size_t i = 0; i < h; ++i) CHECK(x[p + h + i] == x[p + i]);
    for (std::size_t t = 0; t < p; ++t) CHECK(copy.count(x[t]) == 0);  // none in the prefix
    for (std::size_t t = 0; t + 1 < 32; ++t) CHECK(b.targets[s * 32 + t] == x[t + 1]);
    CHECK(b.targets[s * 32 + 31] == -1);
  }
  CHECK(starts.size() > 5);
  Rng r2(9);
  train::Batch half = train::make_batch(train::Task::RepeatHalf, 3, 16, 10, r2);
  for (std::size_t t = 8; t < 16; ++t) CHECK(half.tokens[t] == half.tokens[t - 8]);
  train::Batch pmf = train::make_batch(train::Task::PrevMinusFirst, 2, 8, 10, r2);
  CHECK(pmf.targets[0] == -1);
  CHECK(pmf.targets[5] == (pmf.tokens[4] - pmf.tokens[0] + 10) % 10);
}

TEST_CASE("head scores on hand-built attention patterns") {
  const std::size_t T = 6;
  std::vector<int> tokens = {3, 1, 4, 3, 1, 4};  // a repeat: position 3 saw token 3 at 0, followed by 1 at 1
  Tensor prev({T, T}), ind({T, T});
  prev(0, 0) = ind(0, 0) = 1.0;
  for (std::size_t t = 1; t < T; ++t) prev(t, t - 1) = 1.0;
  // induction: t attends to the position after the previous occurrence of its token, else to itself
  for (std::size_t t = 1; t < T; ++t) ind(t, t >= 3 ? t - 2 : t) = 1.0;
  train::ScoreSums s;
  train::add_head_scores(prev, tokens.data(), s);
  CHECK(s.n_rows == 5);
  CHECK(s.prev / s.n_rows == 1.0);
  CHECK(s.n_induction == 3);
  CHECK(s.induction == 0.0);
  train::ScoreSums i;
  train::add_head_scores(ind, tokens.data(), i);
  CHECK(i.induction / i.n_induction == 1.0);
  CHECK(i.prev == 0.0);
  CHECK(i.self == 2.0);  // rows 1 and 2
  Tensor first({T, T});
  for (std::size_t t = 0; t < T; ++t) first(t, 0) = 1.0;
  train::ScoreSums f;
  train::add_head_scores(first, tokens.data(), f);
  CHECK(f.first / f.n_rows == 1.0);
  CHECK(f.prev == 1.0);  // row 1: the previous token is the first
}

TEST_CASE("safetensors bytes: little-endian header length, padded JSON header, raw data") {
  std::vector<double> a = {1.5, -2.0, 0.1, 3.0, 4.0, 5.0}, b = {7.25};
  std::string f32 = train::safetensors_bytes({{"x.weight", {2, 3}, a.data()}, {"y", {1}, b.data()}}, train::SafeDtype::F32,
                                             {{"format", "pt"}});
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(f32[i]);
  REQUIRE(n % 8 == 0);
  nlohmann::json h = nlohmann::json::parse(f32.substr(8, n));
  CHECK(h["__metadata__"]["format"] == "pt");
  CHECK(h["x.weight"]["dtype"] == "F32");
  CHECK(h["x.weight"]["shape"] == nlohmann::json::array({2, 3}));
  CHECK(h["y"]["data_offsets"] == nlohmann::json::array({24, 28}));
  REQUIRE(f32.size() == 8 + n + 28);
  float v = 0;
  std::memcpy(&v, f32.data() + 8 + n + 8, 4);  // the little-endian host reads it back
  CHECK(v == 0.1f);
  std::string f64 = train::safetensors_bytes({{"y", {1}, b.data()}}, train::SafeDtype::F64);
  double d = 0;
  std::memcpy(&d, f64.data() + f64.size() - 8, 8);
  CHECK(d == 7.25);
}

// ---- float32 (train --dtype f32) --------------------------------------------------------------------

namespace {

// f32 against PyTorch in float32 (tests/golden/gen_train_gpt_f32.py). Both round at every operation,
// in different orders and with different exp/log/tanh, so they agree to a few float epsilons
// (eps = 2^-23 ≈ 1.19e-7) of each quantity's scale, not to the bit. The tolerances:
// - the loss within 8 eps of it (measured: 0-0.9 eps);
// - every gradient within 16 eps of the largest gradient of its case (measured: 1.1-1.8 eps; a
//   gradient sums up to B·T·4C float-rounded products through LayerNorm, softmax and GELU backward);
// - each weight after 3 AdamW steps within 16 eps of the largest weight (they are about 1), plus
//   what AdamW makes of a gradient known to ±δ = 16 eps · scale: its step is lr · m̂ / √v̂, about
//   lr · g/|g|, so a gradient g moves the weight by up to 3 · lr · min(2, δ/|g|) more. That term
//   matters where |g| is near the float noise: the key biases' gradient is exactly 0 (adding a
//   constant to every score of a softmax changes nothing), and some key weights' is 1e-9, so both
//   sides hold rounding noise there, which AdamW's m / (√v + 1e-8) turns into a step of an arbitrary
//   sign. (In f64 that noise is 1e-18, far below ε = 1e-8, and the f64 fixture needs no such term.)
constexpr double kEps32 = 1.1920928955078125e-07;

void check_case_f32(const std::string& name, const nlohmann::json& k) {
  const auto& cfg = k["config"];
  GptConfig c{cfg["vocab"], cfg["n_positions"], cfg["d_model"], cfg["n_layer"], cfg["n_head"], cfg["mlp"]};
  const Gpt m64 = make_gpt(c, cfg["seed"].get<std::uint64_t>());
  GptT<float> m = gpt_cast<float>(m64);
  std::vector<int> tokens = k["tokens"].get<std::vector<int>>(), targets = k["targets"].get<std::vector<int>>();
  const std::size_t B = cfg["batch"], T = c.n_positions;
  GptActsT<float> a;
  std::vector<float> grads;
  gpt_forward(m, tokens.data(), targets.data(), B, T, a);
  const double want_loss = k["loss"].get<double>();
  INFO("case " << name << ": loss " << a.loss << ", PyTorch float32 " << want_loss << " ("
                << std::fabs(a.loss - want_loss) / (kEps32 * want_loss) << " eps of it)");
  CHECK(std::fabs(a.loss - want_loss) <= 8 * kEps32 * want_loss);
  CHECK(static_cast<double>(static_cast<float>(a.loss)) == a.loss);  // a float, widened
  gpt_backward(m, tokens.data(), targets.data(), a, grads);

  // the same gradients in f64 from the same (float-rounded) weights: float's are not those
  const Gpt m64r = gpt_cast<double>(m);
  GptActs a64;
  std::vector<double> grads64;
  gpt_forward(m64r, tokens.data(), targets.data(), B, T, a64);
  gpt_backward(m64r, tokens.data(), targets.data(), a64, grads64);

  double scale = 0.0, worst = 0.0, from_f64 = 0.0;
  for (const ParamTensor& t : m.layout.tensors) {
    const auto& g = k["grads"][t.name];
    REQUIRE(g.size() == t.size);
    for (std::size_t i = 0; i < t.size; ++i) {
      scale = std::max(scale, std::fabs(g[i].get<double>()));
      worst = std::max(worst, std::fabs(grads[t.offset + i] - g[i].get<double>()));
      from_f64 = std::max(from_f64, std::fabs(grads[t.offset + i] - grads64[t.offset + i]));
    }
  }
  INFO("largest gradient " << scale << "; largest difference from PyTorch f32 " << worst << " (" << worst / (kEps32 * scale)
                           << " eps of scale); from attnlab f64 " << from_f64);
  CHECK(worst <= 16 * kEps32 * scale);
  // the test has teeth: f32 really computed in float (the f64 path would differ from itself by 0
  // here, and from PyTorch's float32 by about as much as float does), and loss and gradients moved
  CHECK(from_f64 >= 0.01 * kEps32 * scale);
  CHECK(a.loss != a64.loss);

  std::vector<std::uint8_t> decay(m.layout.total, 0);
  for (const ParamTensor& t : m.layout.tensors)
    if (t.shape.size() == 2) std::fill(decay.begin() + t.offset, decay.begin() + t.offset + t.size, 1);
  AdamWT<float> opt;
  opt.beta1 = cfg["betas"][0], opt.beta2 = cfg["betas"][1], opt.eps = cfg["eps"], opt.weight_decay = cfg["weight_decay"];
  const std::size_t steps = cfg["adamw_steps"];
  for (std::size_t s = 0; s < steps; ++s) {
    gpt_forward(m, tokens.data(), targets.data(), B, T, a);
    const double want_s = k["step_losses"][s].get<double>();
    INFO("step " << s << ": loss " << a.loss << ", PyTorch " << want_s << " (" << std::fabs(a.loss - want_s) / (kEps32 * want_s)
                 << " eps of it)");
    CHECK(std::fabs(a.loss - want_s) <= 8 * kEps32 * want_s);
    gpt_backward(m, tokens.data(), targets.data(), a, grads);
    adamw_step(opt, m.params, grads, cfg["lr"].get<double>(), &decay);
  }
  double wscale = 0.0;
  for (const ParamTensor& t : m.layout.tensors)
    for (const auto& w : k["after"][t.name]) wscale = std::max(wscale, std::fabs(w.get<double>()));
  const double lr = cfg["lr"].get<double>(), delta = 16 * kEps32 * scale;
  double worst_share = 0.0, worst_w = 0.0;  // the largest |difference| / allowed, and the largest difference
  std::string where;
  std::size_t free_to_move = 0;  // weights whose gradient is within δ of 0: AdamW may step them either way
  for (const ParamTensor& t : m.layout.tensors) {
    const auto& w = k["after"][t.name];
    const auto& g = k["grads"][t.name];
    REQUIRE(w.size() == t.size);
    for (std::size_t i = 0; i < t.size; ++i) {
      const double gi = std::fabs(g[i].get<double>());
      const double allowed = 16 * kEps32 * wscale + static_cast<double>(steps) * lr * std::min(2.0, delta / gi);
      free_to_move += gi <= delta;
      const double d = std::fabs(m.params[t.offset + i] - w[i].get<double>());
      worst_w = std::max(worst_w, d);
      if (d / allowed > worst_share) worst_share = d / allowed, where = t.name + "[" + std::to_string(i) + "]";
    }
  }
  INFO("largest weight " << wscale << "; largest difference after AdamW " << worst_w << " (" << worst_w / (kEps32 * wscale)
                         << " eps of scale); closest to its bound: " << where << " at " << worst_share << " of it; "
                         << free_to_move << " of " << m.layout.total << " weights have |gradient| <= delta");
  CHECK(worst_share <= 1.0);
  CHECK(free_to_move < m.layout.total / 10);  // the bound stays tight for all but a few weights (measured: 0.5-8%)
}

}  // namespace

TEST_CASE("gpt float32 loss, every gradient and AdamW steps agree with PyTorch autograd in float32") {
  std::ifstream in(std::string(ATTNLAB_TEST_DIR) + "/golden/train_gpt_f32.json");
  REQUIRE(in.good());
  nlohmann::json doc = nlohmann::json::parse(in);
  REQUIRE(doc["dtype"] == "float32");
  REQUIRE(doc["cases"].size() == 3);
  for (const auto& [name, k] : doc["cases"].items()) check_case_f32(name, k);
}

TEST_CASE("float32 training gives the same bits for one, two and three threads") {
  // large enough that the matmuls take the blocked kernel on several threads (N = 256 rows)
  train::TrainConfig c;
  c.model = {16, 16, 32, 2, 4, true};
  c.batch = 16, c.steps = 5, c.warmup = 2, c.eval_every = 5, c.eval_batch = 4;
  c.compute = train::Precision::F32;
  std::vector<train::TrainResult> runs;
  for (std::size_t threads : {1, 2, 3}) {
    set_threads(threads);
    runs.push_back(train::train(c));
  }
  set_threads(0);
  for (std::size_t i = 1; i < runs.size(); ++i) {
    INFO("threads " << i + 1);
    CHECK(runs[i].loss_curve == runs[0].loss_curve);
    CHECK(runs[i].model.params == runs[0].model.params);
    CHECK(runs[i].evals.back().loss == runs[0].evals.back().loss);
  }
  // every weight is a float (widened exactly), and the run is not the f64 one
  for (double w : runs[0].model.params) REQUIRE(static_cast<double>(static_cast<float>(w)) == w);
  for (double l : runs[0].loss_curve) REQUIRE(static_cast<double>(static_cast<float>(l)) == l);
  c.compute = train::Precision::F64;
  train::TrainResult f64 = train::train(c);
  CHECK(f64.loss_curve != runs[0].loss_curve);
  CHECK(std::fabs(f64.loss_curve.back() - runs[0].loss_curve.back()) < 1e-4);  // yet the same training
}

TEST_CASE("float32 GELU: eight at a time (AVX2) gives the plain loop's bits, and tanh within 4 eps") {
  std::vector<float> x;
  Rng rng(3);
  for (int i = 0; i < 200; ++i) x.push_back(static_cast<float>(rng.normal() * 3.0));
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 30.0f, -30.0f, 100.0f, -100.0f, 1e4f, -1e4f, 3e38f, -3e38f}) x.push_back(v);
  const std::size_t n = x.size();
  std::vector<float> all(n), dall(n, 0.5f), dout(n);
  for (std::size_t i = 0; i < n; ++i) dout[i] = static_cast<float>(i % 7) - 3.0f;
  gelu_forward(all.data(), x.data(), n);
  gelu_backward(dall.data(), x.data(), dout.data(), n);
  double worst = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    float one = 0.0f, done = 0.5f;  // one number alone: the plain loop
    gelu_forward(&one, &x[i], 1);
    gelu_backward(&done, &x[i], &dout[i], 1);
    INFO("x = " << x[i]);
    CHECK(std::memcmp(&one, &all[i], sizeof(float)) == 0);
    CHECK(std::memcmp(&done, &dall[i], sizeof(float)) == 0);
    if (std::fabs(x[i]) < 1e12f) {  // x³ overflows float past 7e12 (as double's does past 5e102)
      CHECK(std::isfinite(all[i]));
      CHECK(std::isfinite(dall[i]));
    }
    // against the double GELU: float rounding of x's GELU, a few eps of |x| + 1
    double d = 0.0;
    const double xd = x[i];
    gelu_forward(&d, &xd, 1);
    if (std::fabs(xd) < 1e4) worst = std::max(worst, std::fabs(all[i] - d) / (std::fabs(xd) + 1.0));
  }
  CHECK(worst < 4 * 1.1920928955078125e-07);
}

TEST_CASE("GELU with the forward's tanh kept gives the bits of GELU computing it twice, in float and double") {
  // gpt_forward keeps tanh(u) for gpt_backward (a fifth of a float64 step was glibc's tanh, twice);
  // the kept path must change no number: compared bit for bit with gelu_forward / gelu_backward.
  auto check = [](auto zero) {
    using S = decltype(zero);
    std::vector<S> x;
    Rng rng(5);
    for (int i = 0; i < 40000; ++i) x.push_back(static_cast<S>(rng.normal() * 3.0));  // several chunks and tails
    for (S v : {S(0), S(-0.0), S(1e-30), S(30), S(-30), S(100), S(-100)}) x.push_back(v);
    // every branch of tanh(u): u below 2^-28, around 0.35 (Taylor or e^2u − 1), up to 22 and past
    // it, both signs, at many magnitudes (x = 2^(e/16) · (1 + tiny))
    for (int e = -600; e <= 80; ++e)
      for (S sign : {S(1), S(-1)}) x.push_back(sign * static_cast<S>(std::ldexp(1.0 + 1e-9 * (e + 600), 0) * std::exp2(e / 16.0)));
    for (double u : {0.35, 0.3499999, 0.3500001, 22.0, 21.999, 22.001}) {  // x with u(x) near the branch points
      double lo = 0.0, hi = 30.0;
      for (int it = 0; it < 200; ++it) {
        double mid = 0.5 * (lo + hi);
        (std::sqrt(2.0 / 3.14159265358979323846) * (mid + 0.044715 * mid * mid * mid) < u ? lo : hi) = mid;
      }
      x.push_back(static_cast<S>(lo)), x.push_back(static_cast<S>(-hi));
    }
    const std::size_t n = x.size();
    std::vector<S> out(n), out_kept(n), th(n), din(n, S(0.25)), din_kept(n, S(0.25)), dout(n);
    for (std::size_t i = 0; i < n; ++i) dout[i] = static_cast<S>(i % 11) - S(5);
    gelu_forward(out.data(), x.data(), n);
    gelu_backward(din.data(), x.data(), dout.data(), n);
    gelu_forward_keep(out_kept.data(), th.data(), x.data(), n);
    gelu_backward_kept(din_kept.data(), x.data(), th.data(), dout.data(), n);
    CHECK(std::memcmp(out.data(), out_kept.data(), n * sizeof(S)) == 0);
    CHECK(std::memcmp(din.data(), din_kept.data(), n * sizeof(S)) == 0);
    CHECK(th[n - 4] == S(1));  // tanh of u(30), kept: the buffer was written
  };
  struct ThreadsGuard {
    ~ThreadsGuard() { set_threads(0); }
  } guard;
  for (std::size_t threads : {1, 2}) {
    set_threads(threads);
    check(0.0);
    check(0.0f);
  }
}

}  // namespace file_test_train_gpt
