// Lesson `swiglu`: section 4 of the chapter — the gated FFN of LLaMA and GLM.
//   gate_pre = x W_gate, gate = SiLU(gate_pre), up = x W_up, hidden = gate ⊙ up, y = hidden W_down
// beside the standard FFN y = GELU(x W_1) W_2 on the same x, and the 8d/3 hidden-size rule.
// Legend: D = d_model, F = SwiGLU hidden width (⌊8D/3⌋ by default), 4D = the standard FFN's width.
#include <cmath>

#include <fmt/format.h>

#include "ffn.h"
#include "ffn_common/ffn_common.h"

namespace attn {

namespace {

constexpr std::int64_t kLlamaMultipleOf = 256;  // LLaMA's multiple_of, used for the real widths

void step_input(Recorder& r, const Tensor& x, std::size_t F) {
  std::int64_t rule = swiglu_hidden(I(x.numel()), 1);  // ⌊8D/3⌋
  r.step("input", r.tr("The input x and the hidden width", "输入 x 与中间维度"),
         r.fmt("The same kind of token vector as in `attnlab lesson ffn`, d = {0}. A SwiGLU FFN has three "
               "matrices instead of two, so its hidden width is 8d/3 instead of 4d to keep the parameter "
               "count: here ⌊8·{0}/3⌋ = {1}{2} The chapter gives no weights, so W_gate, W_up and W_down are "
               "random from --seed (N(0, 1/d_in)); like LLaMA, no biases.",
               "和 `attnlab lesson ffn` 一样的词向量，d = {0}。SwiGLU FFN 有三个矩阵而不是两个，所以中间维度取 8d/3 "
               "而不是 4d，以保持参数量不变：这里 ⌊8·{0}/3⌋ = {1}{2}本章没有给出权重，所以 W_gate、W_up、"
               "W_down 由 --seed 随机生成（N(0, 1/d_in)）；和 LLaMA 一样，没有偏置。",
               x.numel(), rule,
               I(F) == rule ? std::string(r.tr(".", "。"))
                            : r.fmt("; this run uses F = {} (--d-ff or --multiple-of).",
                                    "；本次运行使用 F = {}（--d-ff 或 --multiple-of）。", F)));
  r.tensor("x", x, r.tr("one token's hidden vector", "一个词的隐藏向量"));  // (D)
  r.value("hidden_width", I(F), r.tr("hidden width F", "中间维度 F"));
}

void step_gate_up(Recorder& r, const SwigluPass& p, const Tensor& W_gate, const Tensor& W_up) {
  std::size_t D = W_gate.dim(0), F = W_gate.dim(1);
  r.step("gate", r.tr("The gate: SiLU(x W_gate)", "门控：SiLU(x W_gate)"),
         r.fmt("gate_pre = x W_gate ([{0}] @ [{0}, {1}]), then gate = SiLU(gate_pre) = gate_pre·σ(gate_pre). "
               "σ(gate_pre) is the fraction let through: above 0.5 the gate is open, near 0 it is closed.",
               "gate_pre = x W_gate（[{0}] @ [{0}, {1}]），然后 gate = SiLU(gate_pre) = gate_pre·σ(gate_pre)。"
               "σ(gate_pre) 是放行的比例：大于 0.5 门是开的，接近 0 门是关的。",
               D, F));
  r.tensor("W_gate", W_gate, r.tr("gate projection, random", "门控投影，随机"));                 // (D, F)
  r.tensor("gate_pre", p.gate_pre, r.tr("x W_gate, before SiLU", "x W_gate，SiLU 之前"));         // (F)
  r.tensor("gate_fraction", apply(p.gate_pre, sigmoid), r.tr("σ(gate_pre): how far each gate is open", "σ(gate_pre)：每个门开了多少"));  // (F)
  r.tensor("gate", p.gate, r.tr("SiLU(gate_pre)", "SiLU(gate_pre)"));                             // (F)

  r.step("up", r.tr("The content: x W_up", "内容：x W_up"),
         r.tr("A second, independent projection of the same x: what each hidden unit would carry if its gate "
              "lets it. No activation here — the gate supplies the non-linearity.",
              "对同一个 x 的第二个独立投影：如果门放行，每个中间单元要携带的内容。这里没有激活函数——非线性由门提供。"));
  r.tensor("W_up", W_up, r.tr("up projection, random", "上投影，随机"));  // (D, F)
  r.tensor("up", p.up, "x W_up");                                          // (F)
}

void step_hidden(Recorder& r, const SwigluPass& p, const Tensor& W_down) {
  std::size_t F = p.hidden.numel();
  r.step("hidden", r.tr("Gate times content: hidden = gate ⊙ up", "门乘内容：hidden = gate ⊙ up"),
         r.tr("Element by element. Where the gate is open, up passes (scaled by gate); where it is closed, the "
              "unit contributes almost nothing however large up is. The standard FFN can only switch a unit by "
              "its own value; here one projection decides and the other carries.",
              "逐元素相乘。门开着的地方，up 按 gate 的大小通过；门关着的地方，不管 up 多大，这个单元几乎没有贡献。"
              "标准 FFN 只能由单元自身的值决定开关；这里一个投影负责决定，另一个负责携带内容。"));
  const Tensor& frac = r.get("gate_fraction");
  r.tensor("hidden", p.hidden, r.tr("gate ⊙ up", "gate ⊙ up"));  // (F)
  std::size_t open = 0;
  for (double f : frac.data) open += f > 0.5 ? 1 : 0;
  if (F <= 32) {
    Table t{{r.tr("unit", "单元"), "gate_pre", "σ", "gate", "up", "hidden", r.tr("open?", "门开否")}, {}};
    for (std::size_t j = 0; j < F; ++j)
      t.rows.push_back({I(j + 1), p.gate_pre.data[j], frac.data[j], p.gate.data[j], p.up.data[j], p.hidden.data[j],
                        std::string(frac.data[j] > 0.5 ? r.tr("open", "开") : r.tr("closed", "关"))});
    r.table(t);
  }
  r.value("gates_open", I(open), r.tr("gates open (σ > 0.5)", "开着的门（σ > 0.5）"));
  r.value("gates_closed", I(F - open), r.tr("gates closed (σ ≤ 0.5)", "关着的门（σ ≤ 0.5）"));
  std::size_t most_open = top_k_indices(p.gate, 1)[0];
  std::size_t biggest_up = top_k_indices(apply(p.up, [](double v) { return std::fabs(v); }), 1)[0];
  r.note(r.fmt("The gate opens unit {} the most: hidden = gate × up = {} × {} = {}.",
               "门对单元 {} 开得最大：hidden = gate × up = {} × {} = {}。", most_open + 1,
               fixed(p.gate.data[most_open], 4), fixed(p.up.data[most_open], 4), fixed(p.hidden.data[most_open], 4)));
  if (frac.data[biggest_up] <= 0.5)
    r.note(r.fmt("Unit {} has the largest content (up = {}) but its gate is closed (gate_pre = {}, gate = {}): only "
                 "hidden = {} gets through, and with its sign flipped. A negative gate_pre never passes more than "
                 "a small fraction of up.",
                 "单元 {} 的内容最大（up = {}），但它的门是关的（gate_pre = {}，gate = {}）：只有 hidden = {} 通过，"
                 "而且符号反了。负的 gate_pre 永远只放行 up 的一小部分。",
                 biggest_up + 1, fixed(p.up.data[biggest_up], 4), fixed(p.gate_pre.data[biggest_up], 4),
                 fixed(p.gate.data[biggest_up], 4), fixed(p.hidden.data[biggest_up], 4)));
  r.note(r.tr("With small random weights every gate sits near half-open (σ near 0.5); training pushes gate_pre "
              "far to either side, so that units are clearly on or off for a given input.",
              "权重小且随机时，每个门都在半开附近（σ 接近 0.5）；训练会把 gate_pre 推向两侧，使得对某个输入，"
              "单元要么明显打开、要么明显关闭。"));

  r.step("down", r.tr("Back down: y = hidden W_down", "降回：y = hidden W_down"),
         r.fmt("W_down is [{}, {}]: the gated hidden vector is mixed back down to d.",
               "W_down 的形状是 [{}, {}]：门控后的中间向量被组合、降回 d 维。", F, W_down.dim(1)));
  r.tensor("W_down", W_down, r.tr("down projection, random", "下投影，随机"));  // (F, D)
  r.tensor("y", p.y, r.tr("the SwiGLU output", "SwiGLU 的输出"));               // (D)
}

// The standard FFN of section 3 (no biases, as in section 4's formula) on the same x.
void step_compare(Recorder& r, const SwigluPass& p, const Tensor& x, Rng& rng) {
  std::size_t D = x.numel(), F4 = 4 * D, F = p.hidden.numel();
  r.step("compare", r.tr("Beside it: the standard GELU FFN on the same x", "对照：同一个 x 上的标准 GELU FFN"),
         r.fmt("y = GELU(x W_1) W_2 with d_ff = 4d = {}, its own random weights (no biases, as in the chapter's "
               "section 4 formula). The two outputs differ because the weights are untrained and independent; "
               "what the comparison shows is the structure and the cost.",
               "y = GELU(x W_1) W_2，d_ff = 4d = {}，权重另行随机（没有偏置，与本章第 4 节的公式一致）。两个输出"
               "不同，因为权重未经训练且彼此独立；这里比较的是结构和代价。",
               F4));
  const Tensor& W_1 = r.tensor("ffn_W_1", init_weight(rng, D, F4), r.tr("standard FFN W_1, random", "标准 FFN 的 W_1，随机"));  // (D, 4D)
  const Tensor& W_2 = r.tensor("ffn_W_2", init_weight(rng, F4, D), r.tr("standard FFN W_2, random", "标准 FFN 的 W_2，随机"));  // (4D, D)
  FfnPass f = ffn_forward(x, W_1, Tensor({F4}), W_2, Tensor({D}), Activation::Gelu);
  r.tensor("ffn_h", f.h, r.tr("GELU(x W_1)", "GELU(x W_1)"));              // (4D)
  r.tensor("ffn_y", f.y, r.tr("the standard FFN's output", "标准 FFN 的输出"));  // (D)
  std::size_t passing = 0, open = 0;
  for (double z : f.z.data) passing += z > 0 ? 1 : 0;
  for (double g : p.gate_pre.data) open += g > 0 ? 1 : 0;
  auto d = static_cast<std::int64_t>(D);
  FfnParams standard = ffn_param_count(d, I(F4));
  std::int64_t params_standard = standard.W_1 + standard.W_2;  // no biases here
  Table t{{"", r.tr("standard FFN", "标准 FFN"), "SwiGLU"}, {}};
  t.rows.push_back({r.tr("matrices", "矩阵"), std::string("W_1, W_2"), std::string("W_gate, W_up, W_down")});
  t.rows.push_back({r.tr("hidden width", "中间维度"), I(F4), I(F)});
  t.rows.push_back({r.tr("parameters", "参数量"), params_standard, swiglu_param_count(d, I(F))});
  t.rows.push_back({r.tr("units passing (z > 0 / gate open)", "通过的单元（z > 0 / 门开）"), I(passing), I(open)});
  t.rows.push_back({r.tr("what decides a unit", "谁决定单元开关"), r.tr("its own value z_j", "它自己的值 z_j"),
                    r.tr("a separate gate", "单独的门")});
  r.table(t);
  r.value("params_standard", params_standard, r.tr("standard FFN parameters (8d²)", "标准 FFN 参数（8d²）"));
  r.value("params_swiglu", swiglu_param_count(d, I(F)), r.tr("SwiGLU parameters (3·d·F)", "SwiGLU 参数（3·d·F）"));
}

void step_rule(Recorder& r, std::size_t D, std::size_t F, std::int64_t M) {
  r.step("rule", r.tr("The hidden-size rule: 8d/3, rounded", "中间维度的规则：8d/3，再取整"),
         r.fmt("Standard: W_1 [d, 4d] + W_2 [4d, d] = 8d². SwiGLU: three matrices of d × F, so F = 8d/3 gives "
               "3·d·8d/3 = 8d², the same count. 8d/3 is rarely a whole number, and GPUs like round widths, so "
               "LLaMA's code takes ⌊2·4d/3⌋ and rounds it up to a multiple of multiple_of = {0} (--multiple-of). "
               "The rounding adds a little: the count is close to 8d², not equal.",
               "标准：W_1 [d, 4d] + W_2 [4d, d] = 8d²。SwiGLU：三个 d × F 的矩阵，所以 F = 8d/3 时 3·d·8d/3 = 8d²，"
               "参数量相同。8d/3 很少是整数，而 GPU 喜欢整齐的宽度，所以 LLaMA 的代码取 ⌊2·4d/3⌋，再向上取整到 "
               "multiple_of = {0} 的倍数（--multiple-of）。取整会多出一点：参数量接近 8d²，但不完全相等。",
               M));
  Table t{{"", "d", "8d²", "⌊8d/3⌋", "F", "3·d·F", r.tr("vs 8d²", "比 8d²")}, {}};
  auto row = [&](const std::string& name, std::int64_t d, std::int64_t hidden) {
    std::int64_t std8 = 8 * d * d, sw = swiglu_param_count(d, hidden);
    t.rows.push_back({name, d, std8, swiglu_hidden(d, 1), hidden, sw,
                      fmt::format("{:+.2f}%", 100.0 * static_cast<double>(sw - std8) / static_cast<double>(std8))});
  };
  row(r.tr("this run", "本次运行"), I(D), I(F));
  row(r.tr("GPT-2 width", "GPT-2 的宽度"), 768, swiglu_hidden(768, M));
  row("LLaMA-7B", 4096, swiglu_hidden(4096, M));
  row("LLaMA-13B", 5120, swiglu_hidden(5120, M));
  row("LLaMA-65B", 8192, swiglu_hidden(8192, M));
  r.table(t);
  r.value("hidden_4096", swiglu_hidden(4096, M), r.fmt("F at d = 4096, multiple_of {}", "d = 4096、multiple_of {} 时的 F", M));
  r.value("params_4096", swiglu_param_count(4096, swiglu_hidden(4096, M)), r.tr("SwiGLU parameters at d = 4096", "d = 4096 时 SwiGLU 的参数量"));
  r.value("params_4096_8d2", std::int64_t{8} * 4096 * 4096, r.tr("8d² at d = 4096", "d = 4096 时的 8d²"));
  if (M == kLlamaMultipleOf)
    r.note(r.fmt("d = 4096: ⌊8·4096/3⌋ = {} rounds up to {} — the intermediate_size of LLaMA-7B.",
                 "d = 4096：⌊8·4096/3⌋ = {}，向上取整为 {}——正是 LLaMA-7B 的 intermediate_size。",
                 swiglu_hidden(4096, 1), swiglu_hidden(4096, M)));
}

Trace run(const LessonConfig& c) {
  Recorder r("swiglu", c.lang);
  FfnInput in = resolve_ffn_input(c);
  std::int64_t M = c.multiple_of ? I(positive(c.multiple_of, 1, "--multiple-of")) : kLlamaMultipleOf;
  std::int64_t run_multiple = c.multiple_of ? M : 1;  // no rounding at a toy width unless asked
  require_fits({in.D, 4 * in.D}, "the standard FFN's W_1", "--d-model");
  std::size_t F = c.d_ff ? positive(c.d_ff, 0, "--d-ff")
                         : static_cast<std::size_t>(swiglu_hidden(I(in.D), run_multiple));
  require_fits({in.D, F}, "W_gate", "--d-model, --d-ff or --multiple-of");
  r.config("seed", c.seed);
  r.config("d_model", I(in.D));
  r.config("hidden", I(F));
  r.config("multiple_of", M);

  Rng rng(static_cast<std::uint64_t>(c.seed));
  Tensor x = input_tensor(in, rng);           // (D)
  Tensor W_gate = init_weight(rng, in.D, F);  // (D, F)
  Tensor W_up = init_weight(rng, in.D, F);    // (D, F)
  Tensor W_down = init_weight(rng, F, in.D);  // (F, D)
  SwigluPass p = swiglu_forward(x, W_gate, W_up, W_down);
  step_input(r, x, F);
  step_gate_up(r, p, W_gate, W_up);
  step_hidden(r, p, W_down);
  step_compare(r, p, x, rng);
  step_rule(r, in.D, F, M);
  return r.finish();
}

}  // namespace

extern const LessonInfo swiglu_lesson = {
    "swiglu", {"--x", "--d-model", "--d-ff", "--multiple-of"}, run};

}  // namespace attn
