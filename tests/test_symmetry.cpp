// symmetry: analytic gradients against finite differences; identical heads stay exactly equal;
// all-zero weights get exactly zero gradients.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "lesson_args.h"
#include "backprop.h"
#include "catalog.h"
#include "lesson.h"
#include "run_cli.h"
#include "symmetry.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_symmetry {

using namespace attn;

namespace {

struct Problem {
  Tensor X, Y;
  MhaWeights w;
  std::size_t H;
};

// A small problem with every size different so that a transposed index cannot hide: T 3, D 6, H 2, Dh 3.
Problem make_problem(std::uint64_t seed, double std) {
  Rng rng(seed);
  Problem p{randn(rng, {3, 6}), {}, {}, 2};
  p.Y = teacher_target(rng, p.X, p.H, 3);
  p.w = make_starts(rng, 6, p.H, 3, std).random;
  return p;
}

double loss_at(const Problem& p, const MhaWeights& w) { return mse_loss(mha_forward(p.X, w, p.H).output, p.Y); }

// Central differences, entry by entry, for one matrix of the weights.
void check_matrix(const Problem& p, Tensor MhaWeights::*m, const Tensor& analytic) {
  const double h = 1e-6;
  double worst = 0.0;
  for (std::size_t i = 0; i < analytic.numel(); ++i) {
    MhaWeights up = p.w, down = p.w;
    (up.*m).data[i] += h;
    (down.*m).data[i] -= h;
    double numeric = (loss_at(p, up) - loss_at(p, down)) / (2 * h);
    worst = std::max(worst, std::fabs(numeric - analytic.data[i]) / std::max(1e-3, std::fabs(numeric)));
  }
  INFO("worst relative difference " << worst);
  CHECK(worst < 1e-6);  // central differences are O(h²) ≈ 1e-12 accurate; rounding adds ~1e-10 / h
}

}  // namespace

TEST_CASE("backprop: every gradient matches finite differences", "[symmetry][backprop]") {
  for (double std : {0.02, 0.5}) {  // near-uniform attention and sharp attention
    Problem p = make_problem(17, std);
    MhaActs a = mha_forward(p.X, p.w, p.H);
    MhaWeights g = mha_backward(p.X, p.w, a, mse_backward(a.output, p.Y), p.H);
    check_matrix(p, &MhaWeights::W_Q, g.W_Q);
    check_matrix(p, &MhaWeights::W_K, g.W_K);
    check_matrix(p, &MhaWeights::W_V, g.W_V);
    check_matrix(p, &MhaWeights::W_O, g.W_O);
  }
}

TEST_CASE("backprop: softmax_backward on one hand-worked row", "[symmetry][backprop]") {
  // w = (0.5, 0.5), dw = (1, 0): Σ dw·w = 0.5, ds = w ⊙ (dw − 0.5) = (0.25, −0.25)
  Tensor ds = softmax_backward(Tensor({1, 2}, {0.5, 0.5}), Tensor({1, 2}, {1.0, 0.0}));
  CHECK(ds.data == std::vector<double>{0.25, -0.25});
}

TEST_CASE("symmetry: identical heads stay exactly equal after N steps", "[symmetry]") {
  Rng rng(42);
  Tensor X = randn(rng, {4, 8});
  Tensor Y = teacher_target(rng, X, 2, 4);
  Starts st = make_starts(rng, 8, 2, 4, 0.3);
  TrainRun run = train_toy(X, Y, st.identical, 2, 30, 0.5);
  HeadWeights a = head_of(run.final, 2, 0), b = head_of(run.final, 2, 1);
  CHECK(a.W_Q.data == b.W_Q.data);  // ==, bit for bit, not approximately
  CHECK(a.W_K.data == b.W_K.data);
  CHECK(a.W_V.data == b.W_V.data);
  CHECK(a.W_O.data == b.W_O.data);
  for (double g : run.gap) CHECK(g == 0.0);
  CHECK(max_abs_diff(run.final.W_Q, st.identical.W_Q) > 1e-3);  // and they did train: it is not a frozen copy
  CHECK(run.loss.back() < run.loss.front());
}

TEST_CASE("symmetry: random heads move apart, zero weights never move", "[symmetry]") {
  Trace t = run_lesson("symmetry", TestConfig{});
  const Tensor& gap_random = t.at("gap_random").tensor;
  REQUIRE(gap_random.numel() == 21);  // --steps 20: before the first step and after each
  CHECK(gap_random.data.back() > 2 * gap_random.data.front());  // seed 42: 0.0807 -> 0.2394
  for (double g : t.at("gap_identical").tensor.data) CHECK(g == 0.0);
  const Tensor& loss_zero = t.at("loss_zero").tensor;
  for (double l : loss_zero.data) CHECK(l == loss_zero.data.front());  // exactly flat

  Rng rng(1);
  Tensor X = randn(rng, {3, 4});
  Tensor Y = randn(rng, {3, 4});
  MhaWeights zero = make_starts(rng, 4, 2, 2, 0.02).zero;
  MhaActs a = mha_forward(X, zero, 2);
  MhaWeights g = mha_backward(X, zero, a, mse_backward(a.output, Y), 2);
  for (double m : grad_max(g)) CHECK(m == 0.0);
  // while a non-zero start does get gradients on all four matrices
  MhaWeights w = make_starts(rng, 4, 2, 2, 0.3).random;
  MhaActs b = mha_forward(X, w, 2);
  for (double m : grad_max(mha_backward(X, w, b, mse_backward(b.output, Y), 2))) CHECK(m > 0.0);
}

TEST_CASE("symmetry on the command line", "[symmetry][cli]") {
  CliResult ok = run_cli("lesson symmetry --steps 3 --lr 0.5 --seed 7 --d-model 6 --heads 3 --lang zh --color never");
  CHECK(ok.code == 0);
  CHECK(ok.out.find(Text(Lang{"zh"})("symmetry.zero.title")) != std::string::npos);
  for (const char* args : {"lesson symmetry --steps 0", "lesson symmetry --lr -1", "lesson symmetry --heads 1",
                           "lesson symmetry --d-model 7 --heads 2"}) {
    CliResult bad = run_cli(args);
    INFO(args);
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  }
  CHECK(run_cli("lesson symmetry --lr -1").err.find("--lr") != std::string::npos);
}

namespace {

// The note of the train step that compares the final losses, as the trace holds it.
bool has_note(const Trace& t, const std::string& text) {
  for (const Step& s : t.steps)
    for (const std::string& n : s.notes)
      if (n == text) return true;
  return false;
}

std::string loss_note(const Trace& t, const char* lower) {
  return Text(Lang::En)("symmetry.train.note_loss", {{"loss_identical", t.at("loss_identical").tensor.data.back()},
                                                      {"loss_random", t.at("loss_random").tensor.data.back()},
                                                      {"lower", lower}});
}

}  // namespace

TEST_CASE("symmetry: the final losses are compared as printed, not claimed for the random start", "[symmetry]") {
  // Issue 9: the lesson said random heads "find their own pattern", while its own two starts end at
  // the same loss (0.0909 at seed 42) and the identical start ends lower at seed 7 (0.0578 < 0.0640).
  Trace t42 = run_lesson("symmetry", TestConfig{});
  CHECK(has_note(t42, loss_note(t42, "same")));
  TestConfig c7;
  c7.seed = 7;
  Trace t7 = run_lesson("symmetry", c7);
  CHECK(t7.at("loss_identical").tensor.data.back() < t7.at("loss_random").tensor.data.back());
  CHECK(has_note(t7, loss_note(t7, "identical")));
}

TEST_CASE("symmetry: usage errors are catalog messages naming the flag", "[symmetry][bad-input]") {
  for (const char* key : {"symmetry.err.heads_min", "symmetry.err.lr", "symmetry.err.steps_max",
                          "symmetry.err.diverged"})
    CHECK(Text(Lang::En).has(key));
  CliResult r = run_cli("lesson symmetry --heads 1");
  CHECK(r.err.find(Text(Lang::En)("symmetry.err.heads_min", {{"flag", "--heads"}})) != std::string::npos);
}

}  // namespace file_test_symmetry
