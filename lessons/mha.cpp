// Lesson `mha`: section 1 of the chapter — multi-head attention, step by step.
//   X -> fused Q, K, V -> split into h heads -> per-head attention -> concat -> W_O
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H.
#include <fmt/format.h>

#include "attention.h"
#include "lessons/lesson.h"
#include "random.h"

namespace attn {

namespace {

using Dims = HeadDims;

Dims resolve_dims(const LessonConfig& c, std::size_t T) { return resolve_head_dims(c, T); }

void step_split_heads(Recorder& r, const Dims& d, const Tensor& X, const Tensor& W_Q, const AttentionPass& p,
                      const std::vector<std::string>& tokens) {
  r.step("split_heads", r.tr("Split into heads", "拆成多个头"),
         r.fmt("d_k = d_model / h = {} / {} = {}. Head i takes columns (i−1)·d_k … i·d_k−1 of Q, K and V (heads counted from 1, columns from 0). "
                          "Nothing is cut out of the input: head i's own W_Q_i is simply the i-th column block of the "
                          "fused W_Q, and X W_Q_i is exactly that block of Q.",
                          "d_k = d_model / h = {} / {} = {}。第 i 个头取 Q、K、V 的第 (i−1)·d_k … i·d_k−1 列（头从 1 数起，列从 0 数起）。"
                          "并不是把输入切开：第 i 个头自己的 W_Q_i 就是合并矩阵 W_Q 的第 i 个列块，X W_Q_i 恰好等于 Q 的那一块。",
                     d.D, d.H, d.Dk));
  Labels heads{.rows = tokens, .block = head_word(r.lang())};
  r.tensor("Q_heads", p.Q_heads, r.tr("queries per head", "每个头的查询"), heads);  // (H, T, Dk)
  r.tensor("K_heads", p.K_heads, r.tr("keys per head", "每个头的键"), heads);       // (H, T, Dk)
  r.tensor("V_heads", p.V_heads, r.tr("values per head", "每个头的值"), heads);     // (H, T, Dk)
  r.value("d_k", I(d.Dk));
  Table check{{r.tr("head", "头"), r.tr("W_Q_i shape", "W_Q_i 形状"), r.tr("max |X W_Q_i − Q_heads[i]|", "最大 |X W_Q_i − Q_heads[i]|")}, {}};
  for (std::size_t i = 0; i < d.H; ++i) {
    Tensor W_Q_i = col_block(W_Q, i, d.Dk);  // (D, Dk)
    Tensor direct = matmul(X, W_Q_i);        // (T, Dk)
    check.rows.push_back({I(i + 1), shape_str(W_Q_i.shape), max_abs_diff(direct, slice0(p.Q_heads, i))});
    if (i == 0) {
      r.tensor("W_Q_1", W_Q_i, r.tr("head 1's own query weights: columns 0 … d_k−1 of W_Q", "头 1 自己的查询权重：W_Q 的第 0 … d_k−1 列"));
      r.tensor("Q_1_direct", direct, r.tr("X W_Q_1, computed on its own", "单独计算的 X W_Q_1"), Labels{.rows = tokens});
    }
  }
  r.table(check);
  r.note(r.tr("A difference of 0: the fused projection is h separate per-head projections computed in one matmul.",
              "差为 0：合并的投影就是 h 个各自独立的投影，只是放进一次矩阵乘法里算。"));
}

void step_attention(Recorder& r, const Dims& d, const AttentionPass& p, const std::vector<std::string>& tokens,
                    bool causal) {
  r.step("scores", r.tr("Each head scores every pair of tokens", "每个头给每对词打分"),
         r.fmt("scores_i = Q_i K_iᵀ / √d_k with d_k = {}, one {}×{} matrix per head, computed independently.",
                          "scores_i = Q_i K_iᵀ / √d_k，其中 d_k = {}；每个头一个 {}×{} 的矩阵，彼此独立计算。",
                     d.Dk, d.T, d.T));
  Labels square{.rows = tokens, .cols = tokens, .block = head_word(r.lang())};
  r.tensor("scores", p.scores,
           causal ? r.tr("per-head scores, future positions masked to -inf", "每个头的分数，未来位置遮为 -inf")
                  : r.tr("per-head scores", "每个头的分数"),
           square);
  square.heatmap = true;
  r.step("weights", r.tr("Softmax per head: each head's own pattern", "每个头做 softmax：各自的关注模式"),
         r.tr("The same softmax as in single-head attention, once per head. Different W_Q_i, W_K_i give each head a "
              "different pattern — that is the point of having several.",
              "和单头注意力一样的 softmax，每个头各做一次。不同的 W_Q_i、W_K_i 让每个头得到不同的关注模式——这正是多头的意义。"));
  const Tensor& W = r.tensor("weights", p.weights, r.tr("attention weights per head, rows sum to 1", "每个头的注意力权重，每行和为 1"), square);
  r.value("max_row_sum_error", max_row_sum_error(W), r.tr("max |row sum − 1|", "最大 |行和 − 1|"));
  if (d.H > 1)
    r.value("head_difference", max_abs_diff(slice0(W, 0), slice0(W, 1)),
            r.tr("max |weights of head 1 − head 2|", "最大 |头 1 权重 − 头 2 权重|"));
  std::size_t last = d.T - 1;
  for (std::size_t h = 0; h < std::min<std::size_t>(d.H, 8); ++h) {
    std::size_t j = strongest_column(W, h, last);
    r.note(r.fmt("head {}: {} attends most to {} ({})", "头 {}：{} 最关注 {}（{}）", h + 1, tokens[last],
                       tokens[j], fixed(W(h, last, j), 3)));
  }
}

void step_concat_output(Recorder& r, const Dims& d, const Tensor& W_O, const AttentionPass& p,
                        const std::vector<std::string>& tokens) {
  r.step("heads", r.tr("Head outputs", "各头的输出"),
         r.tr("head_i = weights_i V_i: each head blends the values it attended to, in its own d_k-wide space.",
              "head_i = weights_i V_i：每个头在自己 d_k 维的小空间里，把它关注到的值混合起来。"));
  r.tensor("heads", p.heads, r.tr("head_i = weights_i V_i", "head_i = weights_i V_i"),
           Labels{.rows = tokens, .block = head_word(r.lang())});

  r.step("concat", r.tr("Concatenate and project with W_O", "拼接，再用 W_O 投影"),
         r.fmt("concat = [head_1 ; … ; head_h] puts the heads side by side: [{}, {}×{}] = [{}, {}]. "
                          "output = concat W_O, with W_O of shape [{}, {}].",
                          "concat = [head_1 ; … ; head_h] 把各头并排放在一起：[{}, {}×{}] = [{}, {}]。"
                          "output = concat W_O，W_O 的形状为 [{}, {}]。",
                     d.T, d.Dk, d.H, d.T, d.D, d.D, d.D));
  r.tensor("concat", p.concat, r.tr("the heads side by side", "各头并排拼接"), Labels{.rows = tokens});
  r.tensor("W_O", W_O, r.tr("learned output projection", "可学习的输出投影"));
  r.tensor("output", p.output, r.tr("concat W_O: the layer's output", "concat W_O：这一层的输出"), Labels{.rows = tokens});

  r.step("mix", r.tr("How W_O mixes the heads", "W_O 如何融合各头"),
         r.tr("Split W_O into h row blocks W_O,i of d_k rows each. Then concat W_O = Σ_i head_i W_O,i: every output "
              "number is a sum of contributions from all heads — W_O is where the heads' findings are merged.",
              "把 W_O 按行切成 h 块，每块 W_O,i 有 d_k 行。于是 concat W_O = Σ_i head_i W_O,i：输出的每个数都是所有头"
              "贡献之和——W_O 就是各头发现汇总的地方。"));
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < d.H; ++i) parts.push_back(matmul(slice0(p.heads, i), row_block(W_O, i, d.Dk)));
  r.tensor("head_contributions", stack0(parts), r.tr("head_i W_O,i, one block per head", "head_i W_O,i，每个头一块"),
           Labels{.rows = tokens, .block = head_word(r.lang())});
  r.value("sum_check", max_abs_diff(output_as_head_sum(p.heads, W_O), p.output),
          r.tr("max |Σ_i head_i W_O,i − output|", "最大 |Σ_i head_i W_O,i − output|"));
}

void step_params(Recorder& r, const Dims& d) {
  r.step("params", r.tr("Parameter count", "参数量"),
         r.tr("W_Q, W_K, W_V and W_O are each d_model × d_model, so one attention layer has 4·d_model² parameters "
              "(no biases here). The head count only decides how the columns are shared out — it never adds any.",
              "W_Q、W_K、W_V、W_O 都是 d_model × d_model，所以一个注意力层有 4·d_model² 个参数（这里不含偏置）。"
              "头数只决定这些列怎么分给各个头——不会增加参数。"));
  auto D = static_cast<std::int64_t>(d.D);
  Table mats{{r.tr("matrix", "矩阵"), r.tr("this run", "本次运行"), "", r.tr("chapter (d=768, h=12)", "本章（d=768，h=12）"), ""}, {}};
  for (const char* m : {"W_Q", "W_K", "W_V", "W_O"})
    mats.rows.push_back({std::string(m), fmt::format("[{}, {}]", D, D), D * D, std::string("[768, 768]"), std::int64_t{768 * 768}});
  mats.rows.push_back({r.tr("total", "合计"), std::string("4·d²"), attention_param_count(D, d.H, d.H, d.Dk),
                       std::string("4·768²"), attention_param_count(768, 12, 12, 64)});
  r.table(mats);
  r.value("params_run", attention_param_count(D, d.H, d.H, d.Dk), r.tr("this run", "本次运行"));
  r.value("params_chapter", attention_param_count(768, 12, 12, 64), r.tr("d_model 768, 12 heads", "d_model 768，12 个头"));
  Table heads{{"h", "d_k", r.tr("each W_Q_i", "每个 W_Q_i"), r.tr("attention parameters", "注意力参数")}, {}};
  for (std::int64_t h : {1, 2, 3, 4, 6, 8, 12, 16, 24})
    if (768 % h == 0)
      heads.rows.push_back({h, 768 / h, fmt::format("[768, {}]", 768 / h), attention_param_count(768, h, h, 768 / h)});
  r.table(heads);
  r.note(r.tr("The same 2,359,296 for every head count: more heads means narrower heads, not more weights.",
              "无论多少个头都是 2,359,296：头越多，每个头越窄，权重总数不变。"));
}

Trace run(const LessonConfig& c) {
  Recorder r("mha", c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  Dims d = resolve_dims(c, tokens.size());
  record_head_config(r, c, tokens, d);

  Rng rng(static_cast<std::uint64_t>(c.seed));
  r.step("input", r.tr("The input X", "输入 X"),
         r.tr("The chapter's sentence, one row per token, d_model numbers each (random here; learned embeddings in "
              "a real model). One head could learn only one way of looking at it; h heads learn h ways at once.",
              "本章的例句，每个词一行，每行 d_model 个数（这里随机生成；真实模型里是学到的嵌入）。"
              "一个头只能学会一种看法；h 个头同时学 h 种。"));
  const Tensor& X = r.tensor("X", randn(rng, {d.T, d.D}), r.tr("one row per token", "每个词一行"), Labels{.rows = tokens});

  r.step("project", r.tr("Fused projections Q, K, V", "合并的投影 Q、K、V"),
         r.fmt("In practice the h heads' W_Q_i ([{0}, {1}] each) are stored side by side as one W_Q of "
                          "[{0}, {0}], and likewise W_K and W_V. One matmul computes every head's queries at once.",
                          "实际实现中，h 个头的 W_Q_i（每个 [{0}, {1}]）并排存成一个 [{0}, {0}] 的 W_Q，W_K、W_V 也一样。"
                          "一次矩阵乘法就算出所有头的查询。",
                     d.D, d.Dk));
  const Tensor& W_Q = r.tensor("W_Q", init_weight(rng, d.D, d.D), r.tr("fused query weights, h blocks of d_k columns", "合并的查询权重，h 个 d_k 列的块"));
  const Tensor& W_K = r.tensor("W_K", init_weight(rng, d.D, d.D), r.tr("fused key weights", "合并的键权重"));
  const Tensor& W_V = r.tensor("W_V", init_weight(rng, d.D, d.D), r.tr("fused value weights", "合并的值权重"));
  Tensor W_O = init_weight(rng, d.D, d.D);  // (D, D), shown in the concat step
  AttentionPass p = grouped_attention(X, W_Q, W_K, W_V, W_O, d.H, d.H, c.causal);
  Labels rows{.rows = tokens};
  r.tensor("Q", p.Q, r.tr("queries, X W_Q", "查询 X W_Q"), rows);  // (T, D)
  r.tensor("K", p.K, r.tr("keys, X W_K", "键 X W_K"), rows);       // (T, D)
  r.tensor("V", p.V, r.tr("values, X W_V", "值 X W_V"), rows);     // (T, D)

  step_split_heads(r, d, X, W_Q, p, tokens);
  step_attention(r, d, p, tokens, c.causal);
  step_concat_output(r, d, W_O, p, tokens);
  step_params(r, d);
  return r.finish();
}

}  // namespace

extern const LessonInfo mha_lesson = {
    "mha", "Multi-head attention: split into heads, attend per head, concat, W_O, parameter count",
    "多头注意力：拆头、逐头注意力、拼接、W_O、参数量",
    {"--tokens", "--seq-len", "--d-model", "--heads", "--causal"}, run};

}  // namespace attn
