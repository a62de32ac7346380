// Lesson `gelu`: the activations of section 3 and 4 at the values you choose.
//   GELU exact  x·Φ(x) = 0.5 x (1 + erf(x/√2))
//   GELU tanh   0.5 x (1 + tanh(√(2/π)(x + 0.044715 x³)))
//   SiLU        x·σ(x)            ReLU  max(0, x)
// Legend: N = how many values.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ffn.h"
#include "ffn_common/ffn_common.h"

namespace attn {

namespace {

constexpr double kPlotLo = -4.0, kPlotHi = 4.0;
constexpr std::size_t kPlotPoints = 161;  // a step of 0.05

void step_values(Recorder& r, const Tensor& values, bool chapter) {
  r.step("values", r.tr("Four activations", "四个激活函数"),
         r.tr("An activation acts on each number on its own. The four the chapter uses:\n"
              "  GELU (exact)  x·Φ(x) = 0.5·x·(1 + erf(x/√2))   Φ: the standard normal CDF\n"
              "  GELU (tanh)   0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))   GPT-2's approximation\n"
              "  SiLU          x·σ(x) = x / (1 + e^−x)   the gate of SwiGLU (LLaMA, GLM)\n"
              "  ReLU          max(0, x)   the original transformer's\n"
              "GELU keeps the fraction Φ(x) of x: nearly all of a large positive x, about half near 0, almost "
              "nothing of a large negative x.",
              "激活函数对每个数单独作用。本章用到的四个：\n"
              "  GELU（精确）  x·Φ(x) = 0.5·x·(1 + erf(x/√2))   Φ：标准正态分布函数\n"
              "  GELU（tanh）  0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))   GPT-2 用的近似\n"
              "  SiLU          x·σ(x) = x / (1 + e^−x)   SwiGLU 的门控（LLaMA、GLM）\n"
              "  ReLU          max(0, x)   最初的 Transformer 用的\n"
              "GELU 保留 x 的 Φ(x) 这一部分：很大的正数几乎全留，0 附近留一半左右，很大的负数几乎全部去掉。"));
  r.tensor("values", values,
           chapter ? r.tr("the z values the chapter prints in section 3.2", "本章 3.2 节印出的 z 值")
                   : r.tr("the values you gave (--values)", "你给出的值（--values）"));  // (N)
}

void step_compute(Recorder& r, const Tensor& values) {
  r.step("compute", r.tr("The four activations at these values", "这些值上的四个激活函数"),
         r.tr("Exact GELU against its tanh approximation: they agree to a few ten-thousandths, which is why the "
              "approximation was good enough for GPT-2 — but they are not the same function.",
              "精确 GELU 与 tanh 近似：两者只差万分之几，所以这个近似对 GPT-2 够用——但它们不是同一个函数。"));
  const Tensor& g = r.tensor("gelu", apply(values, gelu), r.tr("GELU, exact erf form", "GELU，精确 erf 形式"));          // (N)
  const Tensor& gt = r.tensor("gelu_tanh", apply(values, gelu_tanh), r.tr("GELU, tanh approximation", "GELU，tanh 近似"));  // (N)
  const Tensor& s = r.tensor("silu", apply(values, silu), "SiLU x·σ(x)");                                                // (N)
  const Tensor& re = r.tensor("relu", apply(values, relu), "ReLU max(0, x)");                                            // (N)
  const Tensor& err = r.tensor("gelu_tanh_error", sub(gt, g), r.tr("tanh approximation − exact", "tanh 近似 − 精确值"));  // (N)
  if (values.numel() <= 40) {
    Table t{{"x", r.tr("GELU exact", "GELU 精确"), r.tr("GELU tanh", "GELU tanh"), r.tr("tanh − exact", "tanh − 精确"),
             "SiLU", "ReLU"},
            {}};
    for (std::size_t i = 0; i < values.numel(); ++i)
      t.rows.push_back({values.data[i], g.data[i], gt.data[i], err.data[i], s.data[i], re.data[i]});
    r.table(t);
  }
  r.value("max_tanh_error", max_abs(err), r.tr("max |tanh approx − exact| at these values", "这些值上最大 |tanh 近似 − 精确值|"));
}

void step_plot(Recorder& r) {
  r.step("plot", r.fmt("The curves over [{}, {}]", "[{}, {}] 上的曲线", kPlotLo, kPlotHi),
         r.tr("ReLU cuts at 0 with a corner. GELU and SiLU are smooth and dip slightly below 0 for negative x "
              "before returning to 0: a small negative input still lets a little through, with its sign. The "
              "two GELU forms lie on top of each other at this scale.",
              "ReLU 在 0 处一刀切，有个尖角。GELU 和 SiLU 是光滑的，负半轴先略微下探到 0 以下再回到 0："
              "小的负输入仍会带着符号漏过一点。两种 GELU 在这个尺度上完全重合。"));
  const Tensor& xs = r.tensor("curve_x", linspace(kPlotLo, kPlotHi, kPlotPoints), r.tr("x, step 0.05", "x，步长 0.05"));  // (P)
  const Tensor& g = r.tensor("curve_gelu", apply(xs, gelu), r.tr("GELU exact", "GELU 精确"));              // (P)
  const Tensor& gt = r.tensor("curve_gelu_tanh", apply(xs, gelu_tanh), r.tr("GELU tanh approx.", "GELU tanh 近似"));  // (P)
  const Tensor& s = r.tensor("curve_silu", apply(xs, silu), "SiLU");                                    // (P)
  r.tensor("curve_relu", apply(xs, relu), "ReLU");                                                      // (P)
  r.chart(Chart{r.tr("GELU, GELU (tanh), SiLU and ReLU", "GELU、GELU（tanh）、SiLU 与 ReLU"), "curve_x",
                {"curve_gelu", "curve_silu", "curve_relu", "curve_gelu_tanh"}});
  std::size_t gmin = top_k_indices(scale(g, -1.0), 1)[0], smin = top_k_indices(scale(s, -1.0), 1)[0];
  r.value("gelu_min", g.data[gmin], r.tr("lowest GELU on the grid", "网格上 GELU 的最小值"));
  r.value("gelu_min_at", xs.data[gmin], r.tr("… at x", "……位于 x"));
  r.value("silu_min", s.data[smin], r.tr("lowest SiLU on the grid", "网格上 SiLU 的最小值"));
  r.value("silu_min_at", xs.data[smin], r.tr("… at x", "……位于 x"));
  r.value("max_tanh_error_curve", max_abs_diff(gt, g), r.fmt("max |tanh approx − exact| over [{}, {}]", "[{}, {}] 上最大 |tanh 近似 − 精确值|", kPlotLo, kPlotHi));
}

void step_chapter(Recorder& r) {
  r.step("chapter", r.tr("Checking the chapter's printed GELU values", "核对本章印出的 GELU 值"),
         r.tr("Section 3.2 prints the first entries of z and of h = GELU(z), to two decimals. Each printed h, "
              "computed again and rounded to the same two places:",
              "本章 3.2 节印出了 z 和 h = GELU(z) 的前几个数，保留两位小数。把每个 h 重新计算，并保留同样的两位小数："));
  std::size_t wrong = record_chapter_gelu_check(r);
  std::size_t n = chapter_ffn().z_printed.size();
  if (wrong == 0)
    r.note(r.tr("Every printed value is right.", "印出的值全部正确。"));
  else
    r.note(r.fmt("{} of the {} printed values are right; {} are not. The chapter's conclusion still holds: positive "
                 "values mostly pass, negative ones are squashed to small negatives — but use the computed numbers.",
                 "印出的 {1} 个值中 {0} 个正确，{2} 个有误。本章的结论依然成立：正值大体通过，负值被压成很小的负数——"
                 "但请以计算出的数值为准。",
                 n - wrong, n, wrong));
}

Trace run(const LessonConfig& c) {
  Recorder r("gelu", c.lang);
  bool chapter = !c.values;
  std::vector<double> v = chapter ? chapter_ffn().z_printed : parse_numbers(*c.values, "--values");
  require_fits({v.size()}, "--values", "the number of --values");
  r.config("values", chapter ? std::string("chapter") : std::string("custom"));
  r.config("n_values", I(v.size()));
  Tensor values({v.size()}, v);  // (N)
  step_values(r, values, chapter);
  step_compute(r, values);
  step_chapter(r);
  step_plot(r);
  return r.finish();
}

}  // namespace

extern const LessonInfo gelu_lesson = {
    "gelu", {"--values"}, run};

}  // namespace attn
