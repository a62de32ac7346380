// Lesson `gate`: the "fourth matrix G" the conversation imagines, as it was later published —
// gated attention (Qiu et al. 2025), used in Qwen3-Next's full-attention layers:
//   output = (concat ⊙ σ(X W_G)) W_O
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H.
#include <fmt/format.h>

#include "gate.h"
#include "lesson.h"
#include "random.h"
#include "row_stats.h"

namespace attn {

namespace {

constexpr double kClosedLogit = -6.0;  // σ(-6) = 0.0025: a gate that is as good as shut

using Dims = HeadDims;

Dims resolve_dims(const LessonConfig& c, std::size_t T) {
  Dims d = resolve_head_dims(c, T);
  require_fits({T, T}, "X Xᵀ", "--seq-len/--tokens");
  return d;
}

// The gate weights: random, then — when the tokens are independent (T <= D) — one exact edit that
// shuts the gate of token s, standing in for what training would learn. Returns W_G.
Tensor step_silence(Recorder& r, const Dims& d, const Tensor& X, const Tensor& W_G_random, std::size_t s,
                    const std::vector<std::string>& tokens) {
  if (d.T > d.D) {
    r.step("silence", r.tr("The most closed gate", "关得最紧的门"),
           r.fmt("{} tokens in {} dimensions cannot be linearly independent, so no direction of X belongs to one "
                 "token alone and the gate of one token cannot be shut without touching the others. The gate "
                 "below is the random one; its most closed token is {}.",
                 "{} 个词放在 {} 维里不可能线性无关，X 里没有只属于某一个词的方向，关上一个词的门必然牵动别的词。"
                 "下面用的就是随机的门；关得最紧的是 {}。",
                 d.T, d.D, tokens[s]));
    return W_G_random;
  }
  r.step("silence", r.tr("Shut one token's gate", "关上一个词的门"),
         r.fmt("A trained gate learns when to stay shut (the paper reports trained gate values that are mostly small — sparse). Stand in "
               "for training with one exact edit: W_G ← W_G + u (({}) · 1 − x_s W_G), where u is the direction "
               "that only token s has (x_s · u = 1, x_j · u = 0 for every other token; u = Xᵀ (X Xᵀ)⁻¹ e_s). "
               "Token s = {} (the one whose random gate was already the most closed) gets every gate logit = {}, "
               "σ({}) ≈ {}; every other token's gate stays exactly as it was.",
               "训练好的门会学会什么时候该关（论文报告训练后的门值大多很小——是稀疏的）。这里用一次精确的修改代替训练："
               "W_G ← W_G + u (({}) · 1 − x_s W_G)，其中 u 是只有词 s 才有的方向（x_s · u = 1，其他词 x_j · u = 0；"
               "u = Xᵀ (X Xᵀ)⁻¹ e_s）。词 s = {}（随机初始时门就关得最紧的那个）的每个门控 logit 都变成 {}，"
               "σ({}) ≈ {}；其他词的门一点都不变。",
               kClosedLogit, tokens[s], kClosedLogit, kClosedLogit, fixed(sigmoid(kClosedLogit), 4)));
  return close_gate(X, W_G_random, s, kClosedLogit);
}

void step_gated(Recorder& r, const GatedAttentionPass& g, std::size_t s, const std::vector<std::string>& tokens) {
  r.step("gated", r.tr("Gate the heads, then W_O: with and without the gate", "先过门再乘 W_O：有门与无门"),
         r.tr("gated = concat ⊙ gate scales every channel of every head, token by token; output = gated W_O. "
              "Without the gate the same layer gives output_ungated = concat W_O.",
              "gated = concat ⊙ gate 逐词、逐通道地缩放每个头的输出；output = gated W_O。"
              "不加门时，同一层的输出是 output_ungated = concat W_O。"));
  Labels rows{.rows = tokens};
  r.tensor("gated", g.gated, r.tr("concat ⊙ gate", "concat ⊙ gate"), rows);
  r.tensor("output", g.output, r.tr("gated W_O", "gated W_O"), rows);
  r.tensor("output_ungated", g.output_ungated, r.tr("concat W_O, no gate", "concat W_O，无门"), rows);
  Tensor mean_gate = row_means(g.gate);                // (T)
  Tensor with = row_norms(g.output);                   // (T)
  Tensor without = row_norms(g.output_ungated);        // (T)
  Table t{{r.tr("token", "词"), r.tr("mean gate", "平均门值"), r.tr("|output| without", "无门 |output|"),
           r.tr("|output| with", "有门 |output|"), r.tr("ratio", "比值")}, {}};
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (i < 16 || i == s)  // long inputs: the first 16 tokens and the silenced one
      t.rows.push_back({tokens[i], mean_gate.data[i], without.data[i], with.data[i], with.data[i] / without.data[i]});
  r.table(t);
  double ratio = with.data[s] / without.data[s];
  r.value("silenced_token", tokens[s], r.tr("silenced token", "被静音的词"));
  r.value("silenced_ratio", ratio, r.tr("|output| with / without, that token", "该词 有门/无门 的 |output| 之比"));
  r.note(r.fmt("{} still attended to the others — its attention weights are unchanged — but what it would have "
               "received is multiplied by {} before W_O: this layer adds next to nothing to it. In a block, the "
               "residual connection then carries the token on unchanged.",
               "{} 照样在关注其他词——注意力权重没有变——但它本该收到的内容在乘 W_O 之前被乘上了 {}："
               "这一层几乎什么都没给它。放在一个 Transformer 块里，残差连接会让这个词原样往下传。",
               tokens[s], fixed(ratio, 4)));
  r.note(r.tr("Why this matters: softmax weights must sum to 1, so without a gate a token that needs nothing "
              "from its context still has to take a full share from somewhere (often the first token — an "
              "\"attention sink\"). The gate lets it take nothing.",
              "为什么有用：softmax 的权重之和必须是 1，没有门时，一个不需要上下文的词也得从某处拿满一份"
              "（常常是第一个词——所谓“注意力汇聚点”）。有了门，它可以什么都不拿。"));
}

void step_params(Recorder& r, const Dims& d) {
  r.step("params", r.tr("What the gate costs", "门的代价"),
         r.tr("W_G is d_model × (h · d_k): one more d_model² matrix when h · d_k = d_model, i.e. attention goes "
              "from 4·d² to 5·d² parameters (+25%). Compute: one more matmul and a sigmoid per layer.",
              "W_G 的形状是 d_model × (h · d_k)：当 h · d_k = d_model 时就是多一个 d_model² 的矩阵，注意力参数从 "
              "4·d² 变成 5·d²（+25%）。计算上每层多一次矩阵乘法和一次 sigmoid。"));
  auto row = [&](std::string name, std::int64_t D, std::int64_t H, std::int64_t G, std::int64_t Dh) {
    std::int64_t base = attention_param_count(D, H, G, Dh), gate = gate_param_count(D, H, Dh);
    return std::vector<Scalar>{std::move(name), fmt::format("[{}, {}]", D, H * Dh), base, gate, base + gate,
                               fmt::format("+{:.1f}%", 100.0 * static_cast<double>(gate) / static_cast<double>(base))};
  };
  Table t{{r.tr("model", "模型"), r.tr("W_G shape", "W_G 形状"), r.tr("attention", "注意力"), "W_G",
           r.tr("with gate", "加门后"), r.tr("extra %", "增加 %")}, {}};
  auto D = static_cast<std::int64_t>(d.D), H = static_cast<std::int64_t>(d.H), Dk = static_cast<std::int64_t>(d.Dk);
  t.rows.push_back(row(r.tr("this run", "本次运行"), D, H, H, Dk));
  t.rows.push_back(row(r.tr("chapter (d=768, h=12)", "本章（d=768，h=12）"), 768, 12, 12, 64));
  t.rows.push_back(row("Qwen3-Next-80B-A3B", 2048, 16, 2, 256));
  r.table(t);
  r.value("gate_params", gate_param_count(D, H, Dk), r.tr("extra parameters, this run (d²)", "本次运行多出的参数（d²）"));
  r.note(r.tr("Qwen3-Next-80B-A3B (config.json: hidden_size 2048, 16 query heads and 2 KV heads of 256): its gate "
              "is 2048 × 4096 because h · d_k = 4096 > d_model; it has one in each of its 12 full-attention layers "
              "(every 4th of 48). GQA shrinks W_K and W_V, not the gate, hence the larger share.",
              "Qwen3-Next-80B-A3B（config.json：hidden_size 2048，16 个查询头、2 个 KV 头，每头 256 维）：因为 "
              "h · d_k = 4096 > d_model，它的门是 2048 × 4096；48 层中每 4 层一层全注意力，共 12 层，每层一个门。"
              "GQA 缩小的是 W_K、W_V，不是门，所以门的占比更高。"));
}

Trace run(const LessonConfig& c) {
  Recorder r("gate", c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  Dims d = resolve_dims(c, tokens.size());
  record_head_config(r, c, tokens, d);
  Labels rows{.rows = tokens};

  Rng rng(static_cast<std::uint64_t>(c.seed));
  r.step("input", r.tr("Input and the usual four matrices", "输入和通常的四个矩阵"),
         r.tr("Multi-head attention as before: W_Q, W_K, W_V make the heads, the heads are concatenated, W_O merges them.",
              "和前面一样的多头注意力：W_Q、W_K、W_V 产生各个头，各头拼接，W_O 再把它们融合。"));
  const Tensor& X = r.tensor("X", randn(rng, {d.T, d.D}), r.tr("one row per token", "每个词一行"), rows);
  const Tensor& W_Q = r.tensor("W_Q", init_weight(rng, d.D, d.D), r.tr("query weights", "查询权重"));
  const Tensor& W_K = r.tensor("W_K", init_weight(rng, d.D, d.D), r.tr("key weights", "键权重"));
  const Tensor& W_V = r.tensor("W_V", init_weight(rng, d.D, d.D), r.tr("value weights", "值权重"));
  const Tensor& W_O = r.tensor("W_O", init_weight(rng, d.D, d.D), r.tr("output projection", "输出投影"));
  Tensor W_G_random = init_weight(rng, d.D, d.D);  // (D, H*Dh)

  r.step("gate_random", r.tr("A fourth matrix beside Q, K, V: the gate G", "Q、K、V 旁边的第四个矩阵：门 G"),
         r.tr("The conversation imagined a G that decides whether a token should \"keep quiet\" right now. "
              "Gated attention (Qiu et al. 2025; Qwen3-Next) is exactly that: gate = σ(X W_G), computed from the "
              "same input as Q, K and V, one number in (0, 1) per token and per channel of the concat. "
              "With random weights every gate sits around 0.5.",
              "对话里设想过一个 G，决定某个词此刻要不要“闭嘴”。门控注意力（Qiu 等 2025；Qwen3-Next）正是如此："
              "gate = σ(X W_G)，和 Q、K、V 来自同一个输入，每个词、concat 的每个通道各一个 (0, 1) 之间的数。"
              "权重随机时，每个门都在 0.5 上下。"));
  r.tensor("W_G_random", W_G_random, r.tr("gate weights at initialization", "初始化时的门控权重"));
  Tensor gate_random = apply(matmul(X, W_G_random), sigmoid);  // (T, D)
  r.tensor("gate_random", gate_random, r.tr("σ(X W_G_random)", "σ(X W_G_random)"), rows);
  std::size_t s = argmin(row_means(gate_random));

  Tensor W_G = step_silence(r, d, X, W_G_random, s, tokens);  // (D, H*Dh)
  r.tensor("W_G", W_G, r.tr("gate weights used below", "下面使用的门控权重"));
  GatedAttentionPass g = gated_attention(X, W_Q, W_K, W_V, W_O, W_G, d.H, c.causal);
  r.tensor("gate", g.gate, r.tr("σ(X W_G): 1 lets a channel through, 0 silences it", "σ(X W_G)：1 放行，0 静音"), rows);
  r.value("others_gate_change", max_abs_diff_except_row(gate_random, g.gate, s), r.tr("max change of the other tokens' gates", "其他词门值的最大变化"));

  r.step("concat", r.tr("The heads before gating", "过门之前的各头"),
         r.tr("concat = [head_1 ; … ; head_h], exactly as in plain multi-head attention.",
              "concat = [head_1 ; … ; head_h]，和普通多头注意力完全一样。"));
  r.tensor("concat", g.attn.concat, r.tr("the heads side by side", "各头并排拼接"), rows);

  step_gated(r, g, s, tokens);
  step_params(r, d);
  return r.finish();
}

}  // namespace

extern const LessonInfo gate_lesson = {
    "gate", {"--tokens", "--seq-len", "--d-model", "--heads", "--causal"}, run};

}  // namespace attn
