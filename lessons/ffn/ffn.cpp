// Lesson `ffn`: section 3 of the chapter — the two-layer feed-forward network.
//   x (D) -> z = x W_1 + b_1 (F, "expand") -> h = act(z) -> y = h W_2 + b_2 (D, "compress")
// Legend: D = d_model, F = d_ff (4·D by default, as in GPT-2).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "attention.h"
#include "ffn.h"
#include "ffn_common/ffn_common.h"

namespace attn {

namespace {

constexpr double kBiasStd = 0.1;  // biases N(0, 0.1²): small, so the weights do the work

void step_input(Recorder& r, const FfnInput& in, std::size_t F, Rng& rng) {
  const ChapterFfn& ch = chapter_ffn();
  bool chapter_x = in.x && *in.x == ch.x;
  r.step("input", r.tr("The input x", "输入 x"),
         r.fmt("One token's vector, d = {} (768 in GPT-2). {} The FFN works on each token on its own: no token "
               "sees another here — mixing across tokens was attention's job.\n"
               "The chapter does not print its W_1, b_1, W_2, b_2, so ours are random from --seed "
               "(weights N(0, 1/d_in), biases N(0, {}²)). The shapes and the steps are the chapter's; the "
               "numbers after x are ours.",
               "一个词的向量，d = {}（GPT-2 中是 768）。{}FFN 对每个词单独计算：这里词与词之间互不可见——"
               "跨词混合信息是注意力的工作。\n"
               "本章没有给出它的 W_1、b_1、W_2、b_2，所以这里的权重由 --seed 随机生成（权重 N(0, 1/d_in)，"
               "偏置 N(0, {}²)）。形状和步骤是本章的；x 之后的数值是我们自己的。",
               in.D,
               chapter_x ? r.fmt("This is the chapter's own x (section 3.2, d = {}, 4d = {}).",
                                 "这正是本章 3.2 节的 x（d = {}，4d = {}）。", ch.d_model, ch.d_ff)
                         : std::string(in.x ? r.tr("x is the --x you gave.", "x 是你用 --x 给出的。")
                                            : r.tr("x is drawn from --seed (give your own with --x).",
                                                   "x 由 --seed 随机生成（可用 --x 给出自己的）。")),
               kBiasStd));
  r.tensor("x", input_tensor(in, rng), r.tr("one token's hidden vector", "一个词的隐藏向量"));  // (D)
  r.value("d_model", I(in.D), "d");
  r.value("d_ff", I(F), "d_ff");
}

void step_expand(Recorder& r, std::size_t D, std::size_t F, Rng& rng) {
  r.step("expand", r.tr("Expand: z = x W_1 + b_1", "展开：z = x W_1 + b_1"),
         r.fmt("W_1 is [{0}, {1}]: [1, {0}] @ [{0}, {1}] gives {1} numbers. Each column of W_1 is one pattern "
               "detector; z_j says how strongly x matches pattern j (see `attnlab lesson kv-memory`).",
               "W_1 的形状是 [{0}, {1}]：[1, {0}] @ [{0}, {1}] 得到 {1} 个数。W_1 的每一列是一个模式检测器；"
               "z_j 表示 x 与第 j 个模式的匹配程度（见 `attnlab lesson kv-memory`）。",
               D, F));
  const Tensor& W_1 = r.tensor("W_1", init_weight(rng, D, F), r.tr("first layer, random (the chapter gives none)", "第一层，随机（本章未给出）"));  // (D, F)
  const Tensor& b_1 = r.tensor("b_1", randn(rng, {F}, kBiasStd), r.tr("first-layer bias", "第一层偏置"));             // (F)
  r.tensor("z", add_bias(matmul(r.get("x"), W_1), b_1), r.tr("x W_1 + b_1, the expanded vector", "x W_1 + b_1，展开后的向量"));  // (F)
  const std::vector<double>& zc = chapter_ffn().z_printed;
  r.tensor("chapter_z", Tensor({zc.size()}, zc), r.tr("the first entries of z as the chapter prints them", "本章印出的 z 的前几个数"));
  r.note(r.tr("The chapter's z came from weights it does not print, so ours differs. `attnlab lesson gelu` takes "
              "the chapter's z values through GELU and checks its printed results.",
              "本章的 z 来自它没有给出的权重，所以和我们的不同。`attnlab lesson gelu` 用本章的 z 值逐个算 GELU，"
              "并核对它印出的结果。"));
}

void step_activate(Recorder& r, Activation act, std::size_t F) {
  r.step("activate", r.fmt("Activate: h = {}(z)", "激活：h = {}(z)", activation_name(act)),
         r.fmt("{} acts on each of the {} numbers separately and decides which patterns are kept: a positive z_j "
               "passes (a large one almost unchanged), a negative one is squashed towards 0 — \"positive numbers "
               "stay, negative ones are strongly compressed\", as the chapter puts it.",
               "{} 对 {} 个数逐个作用，决定保留哪些模式：正的 z_j 通过（大的几乎原样通过），负的被压向 0——"
               "正如本章所说，“正数基本不变，负数被大幅压缩”。",
               activation_title(r.lang(), act), F));
  const Tensor& z = r.get("z");
  const Tensor& h = r.tensor("h", apply(z, activation_fn(act)), r.tr("activations: which units survive", "激活值：哪些单元留下"));  // (F)
  std::size_t pos = 0;
  for (double v : z.data) pos += v > 0 ? 1 : 0;
  if (F <= 32) {
    Table t{{r.tr("unit", "单元"), "z", "h", "h − z", r.tr("fate", "去向")}, {}};
    for (std::size_t j = 0; j < F; ++j)
      t.rows.push_back({I(j + 1), z.data[j], h.data[j], h.data[j] - z.data[j],
                        std::string(z.data[j] > 0 ? r.tr("kept", "保留") : r.tr("squashed", "压缩"))});
    r.table(t);
  }
  r.value("units_kept", I(pos), r.tr("units with z > 0 (kept)", "z > 0 的单元（保留）"));
  r.value("units_squashed", I(F - pos), r.tr("units with z ≤ 0 (squashed)", "z ≤ 0 的单元（压缩）"));
  double squashed_max = 0.0;  // the largest |h_j| among units with z_j <= 0
  for (std::size_t j = 0; j < F; ++j)
    if (z.data[j] <= 0) squashed_max = std::max(squashed_max, std::fabs(h.data[j]));
  r.value("max_abs_h_squashed", squashed_max,
          r.tr("largest |h| among squashed units", "被压缩单元中最大的 |h|"));
}

void step_compress(Recorder& r, std::size_t D, std::size_t F, Rng& rng) {
  const ChapterFfn& ch = chapter_ffn();
  r.step("compress", r.tr("Compress: y = h W_2 + b_2", "压缩：y = h W_2 + b_2"),
         r.fmt("W_2 is [{1}, {0}]: the {1} activations are mixed back down to d = {0}. Each row of W_2 is the "
               "output pattern written when its unit fires.",
               "W_2 的形状是 [{1}, {0}]：{1} 个激活值被重新组合、降回 d = {0} 维。W_2 的每一行是对应单元被激活时"
               "写出的输出模式。",
               D, F));
  const Tensor& W_2 = r.tensor("W_2", init_weight(rng, F, D), r.tr("second layer, random (the chapter gives none)", "第二层，随机（本章未给出）"));  // (F, D)
  const Tensor& b_2 = r.tensor("b_2", randn(rng, {D}, kBiasStd), r.tr("second-layer bias", "第二层偏置"));            // (D)
  r.tensor("y", add_bias(matmul(r.get("h"), W_2), b_2), r.tr("the FFN output, back at width d", "FFN 的输出，回到 d 维"));  // (D)
  r.tensor("chapter_output", Tensor({ch.output_printed.size()}, ch.output_printed),
           r.tr("the chapter's example output (its own weights)", "本章的示例输出（来自它自己的权重）"));
  r.note(r.tr("Same shape as the chapter's output, different numbers: only the weights differ. Try --seed to see "
              "another random FFN, or --x to feed your own vector.",
              "和本章的输出形状相同、数值不同：区别只在权重。换 --seed 看另一个随机 FFN，或用 --x 输入你自己的向量。"));
}

// Parameters of the FFN at the run's width and at GPT-2's d = 768, then one layer's split.
void step_params(Recorder& r, std::size_t D, std::size_t F) {
  r.step("params", r.tr("Parameter count", "参数量"),
         r.tr("Two matrices and two biases. At d = 768, d_ff = 4d = 3072 (GPT-2 small), as in section 3.5:",
              "两个矩阵加两个偏置。d = 768、d_ff = 4d = 3072（GPT-2 small）时，即本章 3.5 节："));
  auto d = static_cast<std::int64_t>(D), f = static_cast<std::int64_t>(F);
  FfnParams run = ffn_param_count(d, f), big = ffn_param_count(768, 3072);
  Table t{{"", r.tr("this run", "本次运行"), "", "d = 768", ""}, {}};
  t.rows.push_back({std::string("W_1"), fmt::format("[{}, {}]", d, f), run.W_1, std::string("[768, 3072]"), big.W_1});
  t.rows.push_back({std::string("b_1"), fmt::format("[{}]", f), run.b_1, std::string("[3072]"), big.b_1});
  t.rows.push_back({std::string("W_2"), fmt::format("[{}, {}]", f, d), run.W_2, std::string("[3072, 768]"), big.W_2});
  t.rows.push_back({std::string("b_2"), fmt::format("[{}]", d), run.b_2, std::string("[768]"), big.b_2});
  t.rows.push_back({r.tr("total", "合计"), std::string(""), run.total, std::string(""), big.total});
  r.table(t);
  r.value("params_run", run.total, r.tr("FFN parameters, this run", "FFN 参数，本次运行"));
  r.value("params_768", big.total, r.tr("FFN parameters, d = 768", "FFN 参数，d = 768"));

  r.step("split", r.tr("One layer: attention routes, the FFN stores", "一层之中：注意力负责路由，FFN 负责存储"),
         r.tr("Attention has W_Q, W_K, W_V, W_O, each d × d (4d², see `attnlab lesson mha`); the FFN has about 8d². "
              "So in one transformer layer the FFN holds two thirds of the parameters.",
              "注意力有 W_Q、W_K、W_V、W_O，各为 d × d（共 4d²，见 `attnlab lesson mha`）；FFN 约 8d²。"
              "所以一个 Transformer 层里，FFN 占了三分之二的参数。"));
  std::int64_t attn_run = attention_param_count(d, 1, 1, d), attn_768 = attention_param_count(768, 12, 12, 64);
  auto share = [](std::int64_t part, std::int64_t other) { return static_cast<double>(part) / static_cast<double>(part + other); };
  auto pct = [](double s) { return fmt::format("{:.0f}%", 100.0 * s); };
  Table s{{"", r.tr("this run", "本次运行"), r.tr("share", "占比"), "d = 768", r.tr("share", "占比")}, {}};
  s.rows.push_back({r.tr("attention", "注意力"), attn_run, pct(share(attn_run, run.total)), attn_768, pct(share(attn_768, big.total))});
  s.rows.push_back({std::string("FFN"), run.total, pct(share(run.total, attn_run)), big.total, pct(share(big.total, attn_768))});
  s.rows.push_back({r.tr("layer", "整层"), attn_run + run.total, std::string("100%"), attn_768 + big.total, std::string("100%")});
  r.table(s);
  r.value("attention_params_768", attn_768, r.tr("attention parameters, d = 768", "注意力参数，d = 768"));
  r.value("ffn_share_768", share(big.total, attn_768), r.tr("FFN share of the layer, d = 768", "FFN 在整层中的占比，d = 768"));
  r.value("ffn_over_attention_768", static_cast<double>(big.total) / static_cast<double>(attn_768),
          r.tr("FFN / attention, d = 768", "FFN / 注意力，d = 768"));
  r.note(r.tr("The FFN has twice attention's parameters: 1/3 of a layer routes information between tokens, 2/3 "
              "stores what the model knows (counts without LayerNorm, whose 2·2d parameters are negligible).",
              "FFN 的参数是注意力的两倍：一层中 1/3 的参数用来在词之间“路由”信息，2/3 用来“存储”知识"
              "（不计 LayerNorm，它的 2·2d 个参数可以忽略）。"));
}

Trace run(const LessonConfig& c) {
  Recorder r("ffn", c.lang);
  FfnInput in = resolve_ffn_input(c);
  std::size_t F = positive(c.d_ff, 4 * in.D, "--d-ff");
  Activation act = resolve_activation(c);
  require_fits({in.D, F}, "W_1", "--d-model or --d-ff");
  r.config("seed", c.seed);
  r.config("d_model", I(in.D));
  r.config("d_ff", I(F));
  r.config("activation", std::string(activation_name(act)));

  Rng rng(static_cast<std::uint64_t>(c.seed));
  step_input(r, in, F, rng);
  step_expand(r, in.D, F, rng);
  step_activate(r, act, F);
  step_compress(r, in.D, F, rng);
  step_params(r, in.D, F);
  return r.finish();
}

}  // namespace

extern const LessonInfo ffn_lesson = {
    "ffn", {"--x", "--d-model", "--d-ff", "--activation"}, run};

}  // namespace attn
