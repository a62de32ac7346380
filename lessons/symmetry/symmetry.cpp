// Lesson `symmetry`: "is each head's initialization purely random — and why must it be?"
// Train one small attention layer by gradient descent (analytic backprop, src/backprop.h) from
// three starts — identical heads, random heads, all zeros — and watch max |head 1 − head 2|.
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "errors.h"
#include "lesson.h"
#include "symmetry.h"

namespace attn {

namespace {

constexpr double kInitStd = 0.02;  // GPT-2's initialization: every weight N(0, 0.02²)
// Training runs three times in full before anything prints: keep a lesson to seconds.
constexpr std::size_t kMaxSteps = 10000;
constexpr double kMaxWork = 5e9;  // multiply-adds over all three runs (~3 s on one core)

struct Setup {
  std::size_t T, D, H, Dk, steps;
  double lr;
};

Setup resolve(const LessonConfig& c, std::size_t T) {
  std::size_t D = positive(c.d_model, 8, "--d-model");
  std::size_t H = positive(c.heads, 2, "--heads");
  if (H < 2) throw UsageError("--heads must be at least 2: the lesson compares head 1 with head 2");
  require_divisible(D, "--d-model", H, "--heads");
  std::size_t steps = positive(c.steps, 20, "--steps");
  double lr = c.lr.value_or(1.0);
  if (!std::isfinite(lr) || lr <= 0.0)
    throw UsageError(fmt::format("--lr must be a positive number (got {})", lr));
  require_fits({D, D}, "W_Q", "--d-model");
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({H, T, T}, "the attention weights", "--seq-len/--tokens or --heads");
  if (steps > kMaxSteps)
    throw UsageError(fmt::format("--steps {} is more than this lesson trains (at most {})", steps, kMaxSteps));
  // Per step, forward: 4·T·D² (W_Q, W_K, W_V, W_O) + 2·T²·D (scores, weighted sums); backward about twice that.
  double Td = static_cast<double>(T), Dd = static_cast<double>(D);
  double work = 3.0 * 3.0 * static_cast<double>(steps) * (4.0 * Td * Dd * Dd + 2.0 * Td * Td * Dd);
  if (work > kMaxWork)
    throw UsageError(fmt::format("--steps {} on {} tokens with --d-model {} is about {:.1e} multiply-adds of training, "
                                 "more than a lesson should take ({:.0e}); reduce --steps, --d-model or --seq-len",
                                 steps, T, D, work, kMaxWork));
  return {T, D, H, D / H, steps, lr};
}

Tensor vec(const std::vector<double>& v) { return Tensor({v.size()}, v); }  // (n)

void step_gradients(Recorder& r, const Setup& s, const Starts& st, const TrainRun& same, const TrainRun& diff,
                    const TrainRun& zero) {
  r.step("gradients", r.tr("The first gradients", "第一步的梯度"),
         r.tr("Swap head 1 and head 2 (their W_Q, W_K, W_V columns and their W_O rows) and the layer computes "
              "exactly the same function. So when the two heads are equal, nothing in the loss can tell them "
              "apart: backpropagation hands them the same gradient, number for number.",
              "把头 1 和头 2 对调（它们的 W_Q、W_K、W_V 列块和 W_O 行块），这一层算出的函数完全不变。所以当两个头"
              "相等时，损失函数里没有任何东西能区分它们：反向传播给它们的梯度一个数都不差。"));
  Table t{{r.tr("matrix", "矩阵"), r.tr("identical: |g₁ − g₂|", "相同初始化：|g₁ − g₂|"),
           r.tr("random: |g₁ − g₂|", "随机初始化：|g₁ − g₂|"), r.tr("zero: max |g|", "全零：最大 |g|")}, {}};
  const char* names[] = {"W_Q", "W_K", "W_V", "W_O"};
  auto head_diffs = [&](const MhaWeights& g) {
    HeadWeights a = head_of(g, s.H, 0), b = head_of(g, s.H, 1);
    return std::vector<double>{max_abs_diff(a.W_Q, b.W_Q), max_abs_diff(a.W_K, b.W_K), max_abs_diff(a.W_V, b.W_V),
                               max_abs_diff(a.W_O, b.W_O)};
  };
  std::vector<double> d_same = head_diffs(same.first_grads), d_diff = head_diffs(diff.first_grads);
  std::vector<double> g_zero = grad_max(zero.first_grads);
  for (std::size_t m = 0; m < 4; ++m) t.rows.push_back({std::string(names[m]), d_same[m], d_diff[m], g_zero[m]});
  r.table(t);
  r.tensor("dW_V_identical", same.first_grads.W_V,
           r.tr("gradient of W_V, identical start: the heads' column blocks repeat", "相同初始化时 W_V 的梯度：各头的列块完全重复"));
  (void)st;
}

void step_train(Recorder& r, const Setup& s, const TrainRun& same, const TrainRun& diff) {
  r.step("train", r.tr("Gradient descent, step by step", "梯度下降，一步一步"),
         r.fmt("{} steps of W ← W − {} · ∂loss/∂W on all four matrices. After every step: the loss and "
               "max |head₁ − head₂| over all of the two heads' weights.",
               "对四个矩阵做 {} 步 W ← W − {} · ∂loss/∂W。每一步之后记录损失和两个头全部权重的最大差 max |头₁ − 头₂|。",
               s.steps, s.lr));
  std::vector<double> steps;
  for (std::size_t i = 0; i <= s.steps; ++i) steps.push_back(static_cast<double>(i));
  r.tensor("step", vec(steps), r.tr("0 = before the first step", "0 = 第一步之前"));
  r.tensor("loss_identical", vec(same.loss), r.tr("loss, identical start", "损失，相同初始化"));
  r.tensor("gap_identical", vec(same.gap), r.tr("max |head₁ − head₂|, identical start", "max |头₁ − 头₂|，相同初始化"));
  r.tensor("loss_random", vec(diff.loss), r.tr("loss, random start", "损失，随机初始化"));
  r.tensor("gap_random", vec(diff.gap), r.tr("max |head₁ − head₂|, random start", "max |头₁ − 头₂|，随机初始化"));
  Table t{{r.tr("step", "步"), r.tr("loss (identical)", "损失（相同）"), r.tr("|head₁ − head₂|", "|头₁ − 头₂|"),
           r.tr("loss (random)", "损失（随机）"), r.tr("|head₁ − head₂|", "|头₁ − 头₂|")}, {}};
  std::size_t every = s.steps <= 50 ? 1 : s.steps / 25;  // long runs: every k-th step (all of them are in --json)
  for (std::size_t i = 0; i <= s.steps; ++i)
    if (i % every == 0 || i == s.steps)
      t.rows.push_back({I(i), same.loss[i], same.gap[i], diff.loss[i], diff.gap[i]});
  r.table(t);
  r.chart({r.tr("max |head₁ − head₂| per step", "每一步的 max |头₁ − 头₂|"), "step", {"gap_identical", "gap_random"}});
  bool exact = std::all_of(same.gap.begin(), same.gap.end(), [](double g) { return g == 0.0; });
  r.value("identical_stay_equal", Bool{exact}, r.tr("identical heads exactly equal after every step", "相同初始化的两个头每一步后都完全相等"));
  r.value("gap_random_start", diff.gap.front(), r.tr("random: gap before training", "随机：训练前的差"));
  r.value("gap_random_end", diff.gap.back(), r.tr("random: gap after training", "随机：训练后的差"));
  double g0 = diff.gap.front(), g1 = diff.gap.back();
  r.note(r.fmt("Identical start: max |head₁ − head₂| is exactly 0 before the first step and after every one of the {} "
               "steps. Random start: it {} from {} to {} — the small random differences are what the gradients work on.",
               "相同初始化：max |头₁ − 头₂| 在第一步之前和 {0} 步中的每一步之后都恰好是 0。随机初始化：它从 {2} {1}到 {3}"
               "——梯度正是在这些微小的随机差异上做文章。",
               s.steps, g1 > g0 ? r.tr("grows", "增长") : r.tr("moves", "变化"), fixed(g0, 4), fixed(g1, 4)));
  if (s.steps > 50)
    r.note(r.fmt("The table shows every {}th step; every step is in the trace (--json).",
                 "表中每隔 {} 步列一行；每一步都在 --json 的 trace 里。", every));
}

void step_final(Recorder& r, const Setup& s, const Tensor& X, const TrainRun& same, const TrainRun& diff,
                const std::vector<std::string>& tokens) {
  r.step("final", r.tr("The heads after training", "训练之后的各个头"),
         r.tr("What each head outputs after the last step (head_i = weights_i V_i). Started identical, the heads "
              "are still clones — h heads doing the work of one. Started random, each went its own way.",
              "最后一步之后每个头的输出（head_i = weights_i V_i）。相同初始化的头仍然是克隆——h 个头只干了一个头的活。"
              "随机初始化的头各走各的路。"));
  Labels heads{.rows = tokens, .block = head_word(r.lang())};
  r.tensor("heads_identical_final", split_heads(mha_forward(X, same.final, s.H).concat, s.H),
           r.tr("head outputs, identical start", "各头输出，相同初始化"), heads);  // (H, T, Dh)
  r.tensor("heads_random_final", split_heads(mha_forward(X, diff.final, s.H).concat, s.H),
           r.tr("head outputs, random start", "各头输出，随机初始化"), heads);  // (H, T, Dh)
  HeadWeights h1 = head_of(same.final, s.H, 0), h2 = head_of(same.final, s.H, 1);
  r.tensor("W_V_1_identical_final", h1.W_V, r.tr("head 1's W_V after training (identical start)", "训练后头 1 的 W_V（相同初始化）"));
  r.tensor("W_V_2_identical_final", h2.W_V, r.tr("head 2's W_V after training: the same numbers", "训练后头 2 的 W_V：数字一模一样"));
  bool equal = h1.W_Q.data == h2.W_Q.data && h1.W_K.data == h2.W_K.data && h1.W_V.data == h2.W_V.data &&
               h1.W_O.data == h2.W_O.data;
  r.value("identical_final_equal", Bool{equal}, r.tr("head 1 == head 2, every weight, bit for bit", "头 1 == 头 2，每个权重逐位相同"));
}

void step_zero(Recorder& r, const TrainRun& zero) {
  r.step("zero", r.tr("All-zero weights: nothing moves at all", "全零权重：什么都不动"),
         r.tr("With every weight 0: Q = K = V = 0, every score 0, uniform attention, every head outputs 0, "
              "output = 0. Backward: ∂loss/∂W_O = concatᵀ · ∂loss/∂output = 0 because concat is 0; "
              "∂loss/∂concat = ∂loss/∂output · W_Oᵀ = 0 because W_O is 0, so W_V, W_Q and W_K get 0 too. "
              "Each zero blocks the other's gradient: every gradient is exactly 0, the loss never changes. "
              "(Biases may start at 0 — GPT-2's do — because their gradients do not pass through another zero.)",
              "所有权重都是 0 时：Q = K = V = 0，分数全是 0，注意力均匀，每个头输出 0，output = 0。反向传播："
              "∂loss/∂W_O = concatᵀ · ∂loss/∂output = 0，因为 concat 是 0；∂loss/∂concat = ∂loss/∂output · W_Oᵀ = 0，"
              "因为 W_O 是 0，于是 W_V、W_Q、W_K 的梯度也是 0。两个零互相挡住了对方的梯度：所有梯度恰好为 0，损失永远不变。"
              "（偏置可以从 0 开始——GPT-2 就是这样——因为它们的梯度不经过另一个零。）"));
  r.tensor("loss_zero", vec(zero.loss), r.tr("loss, all-zero start: flat", "损失，全零初始化：一条直线"));
  std::vector<double> g = grad_max(zero.first_grads);
  r.value("zero_grad_max", *std::max_element(g.begin(), g.end()), r.tr("largest |gradient| of any weight", "所有权重中最大的 |梯度|"));
  r.value("zero_gap_end", zero.gap.back(), r.tr("max |head₁ − head₂| at the end", "最后的 max |头₁ − 头₂|"));
  r.value("zero_weights_end", std::max({max_abs(zero.final.W_Q), max_abs(zero.final.W_K), max_abs(zero.final.W_V), max_abs(zero.final.W_O)}),
          r.tr("largest |weight| at the end", "最后最大的 |权重|"));
  r.note(r.tr("To tell a friend: heads that start equal get equal gradients — swap them and nothing changes — so "
              "they stay clones forever; zeros are worse, nothing learns at all. Random initialization gives each "
              "head a different start, so the gradients pull them apart and each can find its own pattern.",
              "一句话讲给朋友听：起点相同的头拿到相同的梯度——把它们对调，什么都不变——所以永远是克隆；全零更糟，"
              "根本学不动。随机初始化让每个头起点不同，梯度把它们推向不同方向，各自才能学出自己的模式。"));
}

Trace run(const LessonConfig& c) {
  Recorder r("symmetry", c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  Setup s = resolve(c, tokens.size());
  record_common_config(r, c, tokens);
  r.config("d_model", I(s.D));
  r.config("n_heads", I(s.H));
  r.config("d_k", I(s.Dk));
  r.config("steps", I(s.steps));
  r.config("lr", s.lr);

  Rng rng(static_cast<std::uint64_t>(c.seed));
  r.step("setup", r.tr("A small network to train", "一个用来训练的小网络"),
         r.fmt("One multi-head attention layer (h = {}, d_k = {}, no biases) learns to copy a target Y made by "
               "another attention layer whose heads differ. loss = mean((output − Y)²). Gradients come from "
               "backpropagation written out by hand (src/backprop.cpp), checked against finite differences in the tests.",
               "一个多头注意力层（h = {}，d_k = {}，无偏置）学着模仿目标 Y；Y 由另一个各头互不相同的注意力层生成。"
               "loss = mean((output − Y)²)。梯度由手写的反向传播给出（src/backprop.cpp），测试里用有限差分核对过。",
               s.H, s.Dk));
  Labels rows{.rows = tokens};
  const Tensor& X = r.tensor("X", randn(rng, {s.T, s.D}), r.tr("one row per token", "每个词一行"), rows);
  const Tensor& Y = r.tensor("Y", teacher_target(rng, X, s.H, s.Dk), r.tr("the target", "目标"), rows);
  Starts st = make_starts(rng, s.D, s.H, s.Dk, kInitStd);

  r.step("init", r.tr("Three starts", "三种起点"),
         r.fmt("identical: head 1 drawn from N(0, {}²) (GPT-2's initialization) and copied into every head. "
               "random: the same head 1, the other heads drawn independently. zero: every weight 0.",
               "相同：头 1 从 N(0, {}²)（GPT-2 的初始化）中抽取，再复制给每个头。随机：同一个头 1，其他头各自独立抽取。"
               "全零：所有权重都是 0。",
               kInitStd));
  r.tensor("W_Q_identical", st.identical.W_Q, r.tr("W_Q, identical start: column blocks repeat", "W_Q，相同初始化：列块重复"));
  r.tensor("W_Q_random", st.random.W_Q, r.tr("W_Q, random start", "W_Q，随机初始化"));

  TrainRun same = train(X, Y, st.identical, s.H, s.steps, s.lr);
  TrainRun diff = train(X, Y, st.random, s.H, s.steps, s.lr);
  TrainRun zero = train(X, Y, st.zero, s.H, s.steps, s.lr);
  for (const TrainRun* run : {&same, &diff})
    if (run->diverged_at)
      throw UsageError(fmt::format("--lr {}: gradient descent diverges (a weight passed {:.0e} after step {}); "
                                   "use a smaller --lr (the default is 1)",
                                   s.lr, kDivergedWeight, run->diverged_at));
  step_gradients(r, s, st, same, diff, zero);
  step_train(r, s, same, diff);
  step_final(r, s, X, same, diff, tokens);
  step_zero(r, zero);
  return r.finish();
}

}  // namespace

extern const LessonInfo symmetry_lesson = {
    "symmetry", {"--tokens", "--seq-len", "--d-model", "--heads", "--steps", "--lr"}, run};

}  // namespace attn
