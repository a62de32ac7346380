// Weights that are finite but too large for double precision (1e200 in an F64 checkpoint): the
// forward refuses the first activation that overflows, naming the folder, the layer and the
// tensor (src/checkpoint/activations.h); and no renderer casts a NaN to an integer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include "activations.h"
#include "bars.h"
#include "checkpoint_files.h"
#include "html.h"
#include "run_cli.h"
#include "safetensors.h"
#include "terminal.h"
#include "trace.h"
#include "usage_error.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_activation_overflow {

using namespace attn;
using namespace ckpt_test;

namespace {

// dir/ as a copy of a fixture checkpoint written as F64, every tensor whose name `pick` accepts
// multiplied by `factor`.
void huge_copy(const std::string& name, const std::string& dir, const std::function<bool(const std::string&)>& pick,
               double factor) {
  std::filesystem::copy_file(fixture(name) + "/config.json", dir + "/config.json");
  SafetensorsFile f(fixture(name) + "/model.safetensors");
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& [key, e] : f.entries()) {
    Tensor t = f.read(e);
    if (pick(key))
      for (double& v : t.data) v *= factor;
    tensors.emplace_back(key, std::move(t));
  }
  write_bytes(dir + "/model.safetensors", write_f64(tensors));
}

bool everything(const std::string&) { return true; }

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("huge finite F64 weights: lessons, heads and generate refuse the overflowing activation by layer and tensor",
          "[checkpoint][cli][generate][bad_input]") {
  // Layer 1's c_attn × 1e200: q and k near 1e200 are finite, their products are not, so the
  // scores of layer 1 are the first activation to overflow (in the full forward and in the cache).
  TempDir scores("overflow_scores");
  huge_copy("tiny-gpt2", scores.path, [](const std::string& n) { return n == "transformer.h.1.attn.c_attn.weight"; }, 1e200);
  const std::string ids = " --token-ids 1,2,3 --lang en";
  for (const std::string& args : {"lesson attention --weights " + scores.path + " --layer 2" + ids,
                                   "lesson mha --weights " + scores.path + " --layer 2" + ids,
                                   "heads --weights " + scores.path + ids,
                                   "generate --weights " + scores.path + ids + " --tokens 2"}) {
    CliResult r = run_cli(args);
    INFO(args << "\n" << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(scores.path + ": a NaN or an infinity in layer 2 (L1), the attention scores") != std::string::npos);
  }
  // The layer below is untouched: it still runs.
  CHECK(run_cli("lesson attention --weights " + scores.path + " --layer 1" + ids).code == 0);
  CliResult zh = run_cli("heads --weights " + scores.path + " --token-ids 1,2,3 --lang zh");
  CHECK(zh.code == 2);
  CHECK(zh.err.find("第 2 层（L1）的注意力分数") != std::string::npos);

  // Every weight × 1e200: the first norm's variance overflows (1/√var would be 0, every output β).
  TempDir all("overflow_all");
  huge_copy("tiny-gpt2", all.path, everything, 1e200);
  TempDir llama("overflow_llama");
  huge_copy("tiny-llama", llama.path, everything, 1e200);
  for (const std::string& w : {all.path, llama.path})
    for (const std::string& args : {"lesson attention --weights " + w + ids, "lesson mha --weights " + w + ids,
                                    "heads --weights " + w + ids, "generate --weights " + w + ids + " --tokens 2"}) {
      CliResult r = run_cli(args);
      INFO(args << "\n" << r.err);
      CHECK(r.code == 2);
      CHECK(r.out.empty());
      CHECK(lines(r.err) == 1);
      CHECK(r.err.find(w + ": a NaN or an infinity in layer 1 (L0), the norm before attention") != std::string::npos);
    }
  // A Llama whose final norm and output head are huge: every layer runs, then the logits overflow.
  TempDir head("overflow_head");
  huge_copy("tiny-llama", head.path, [](const std::string& n) { return n == "lm_head.weight" || n == "model.norm.weight"; }, 1e200);
  CliResult r = run_cli("generate --weights " + head.path + ids + " --tokens 2");
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(head.path + ": a NaN or an infinity in the logits:") != std::string::npos);
  CHECK(run_cli("heads --weights " + head.path + ids).code == 0);  // heads reads no logits
}

TEST_CASE("an activation check names the tensor, skips what a causal mask hides and refuses a zero 1/std", "[checkpoint]") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const ActivationSite at{"ck", 3};
  CHECK(usage_error([&] { require_finite_activation(Tensor({2}, {1.0, nan}), at, "q"); }) ==
        "checkpoint.err.activation_not_finite folder=ck layer=4 l0=3 tensor=q");
  CHECK(usage_error([&] { require_finite_activation(Tensor({2}, {1.0, -inf}), at, "v"); }) != "no error");
  CHECK(usage_error([&] { require_finite_activation(Tensor({2}, {1.0, 2.0}), at, "v"); }) == "no error");
  // (2, 2) scores: the entry above the diagonal is masked, so its infinity is no error; (1, 3): one
  // new query over a cache of 3, which sees all of them.
  CHECK(usage_error([&] { require_finite_activation(Tensor({2, 2}, {1.0, inf, 2.0, 3.0}), at, "scores", FiniteRule::Causal); }) == "no error");
  CHECK(usage_error([&] { require_finite_activation(Tensor({2, 2}, {1.0, 0.0, nan, 3.0}), at, "scores", FiniteRule::Causal); }) != "no error");
  CHECK(usage_error([&] { require_finite_activation(Tensor({1, 3}, {1.0, 2.0, inf}), at, "scores", FiniteRule::Causal); }) != "no error");
  CHECK(usage_error([&] { require_finite_activation(Tensor({2, 2, 2}, {1.0, inf, 2.0, 3.0, 1.0, -inf, 2.0, 3.0}), at, "scores", FiniteRule::Causal); }) == "no error");
  CHECK(usage_error([&] { require_finite_activation(Tensor({2, 2, 2}, {1.0, inf, 2.0, 3.0, 1.0, -inf, 2.0, nan}), at, "scores", FiniteRule::Causal); }) != "no error");
  CHECK(usage_error([&] { require_finite_activation(Tensor({2}, {0.5, 0.0}), at, "norm1", FiniteRule::Positive); }) != "no error");
  CHECK(usage_error([&] { require_finite_activation(Tensor({2}, {0.5, 1e-150}), at, "norm1", FiniteRule::Positive); }) == "no error");
}

TEST_CASE("renderers draw a NaN as a gap and never cast it: heatmap ??, chart and bars without it", "[render]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Trace trace;
  TraceTensor t{Tensor({1, 2, 2}, {1, nan, 0.5, 0.5}), "m", Labels{.rows = {"a", "b"}, .heatmap = true}};
  RenderOptions opt;
  CHECK(render_heatmap(t, trace, opt) == "  heatmap\n      1 2\n  a  @@??\n  b  ++++\n  heatmap_legend_ramp\n");
  opt.color = true;
  std::string colour = render_heatmap(t, trace, opt);
  CHECK(colour.find("\x1b[48;5;255m  \x1b[0m??") != std::string::npos);
  // A chart: a NaN sample is a gap, and a range so wide that it overflows draws without a cast.
  Trace chart;
  chart.tensors["x"] = TraceTensor{Tensor({4}, {-1.0, 0.0, 1.0, 2.0}), "x", {}};
  chart.tensors["y"] = TraceTensor{Tensor({4}, {-1e308, nan, 1e308, 1e308}), "y", {}};
  std::string drawn = render_chart(chart, Chart{"t", "x", {"y"}}, RenderOptions{});
  CHECK(std::count(drawn.begin(), drawn.end(), '*') > 1);  // the legend's marker and the points from x = 1 to 2
  // Bars: a NaN draws no bar, the others as before.
  std::string bars = bar_chart({{"a", 2.0, "two"}, {"b", nan, "none"}, {"c", 1.0, "one"}}, 8);
  CHECK(bars == "  a  ████████  two\n  b            none\n  c  ████      one\n");
}

}  // namespace file_test_activation_overflow
