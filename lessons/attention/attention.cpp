// Lesson `attention`: one attention head, the previous chapter's prerequisite.
//   X -> Q, K, V -> scores = Q Kᵀ / √d_k -> (causal mask) -> softmax -> weights -> output = weights V
#include <cmath>

#include <fmt/format.h>

#include "attention.h"
#include "lesson.h"
#include "random.h"

namespace attn {

namespace {

Trace run(const LessonConfig& c) {
  Recorder r("attention", c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  std::size_t T = tokens.size();
  std::size_t D = positive(c.d_model, 8, "--d-model");
  std::size_t Dk = positive(c.head_dim, 4, "--head-dim");
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({D, Dk}, "W_Q", "--d-model or --head-dim");
  require_fits({T, T}, "the scores", "--seq-len/--tokens");
  record_common_config(r, c, tokens);
  r.config("d_model", I(D));
  r.config("d_k", I(Dk));
  Labels rows{.rows = tokens};
  Labels square{.rows = tokens, .cols = tokens, .heatmap = true};

  Rng rng(static_cast<std::uint64_t>(c.seed));
  r.step("input", r.tr("The input X", "输入 X"),
         r.tr("Each token is a row vector of d_model numbers (random here; learned embeddings in a real model).",
              "每个词是一行 d_model 个数（这里随机生成；真实模型里是学到的嵌入向量）。"));
  const Tensor& X = r.tensor("X", randn(rng, {T, D}), r.tr("one row per token", "每个词一行"), rows);

  r.step("project", r.tr("Project to queries, keys and values", "投影出 Q、K、V"),
         r.tr("Three learned matrices turn the same X into three roles:\n"
              "  Q = X W_Q  what each token is looking for\n"
              "  K = X W_K  what each token offers to be matched on\n"
              "  V = X W_V  what each token hands over when it is attended to",
              "三个可学习的矩阵把同一个 X 变成三种角色：\n"
              "  Q = X W_Q  每个词“想找什么”\n"
              "  K = X W_K  每个词“凭什么被找到”\n"
              "  V = X W_V  被关注时每个词“交出什么内容”"));
  const Tensor& W_Q = r.tensor("W_Q", init_weight(rng, D, Dk), r.tr("learned query weights", "可学习的查询权重"));
  const Tensor& W_K = r.tensor("W_K", init_weight(rng, D, Dk), r.tr("learned key weights", "可学习的键权重"));
  const Tensor& W_V = r.tensor("W_V", init_weight(rng, D, Dk), r.tr("learned value weights", "可学习的值权重"));
  const Tensor& Q = r.tensor("Q", matmul(X, W_Q), r.tr("queries, X W_Q", "查询 X W_Q"), rows);     // (T, Dk)
  const Tensor& K = r.tensor("K", matmul(X, W_K), r.tr("keys, X W_K", "键 X W_K"), rows);          // (T, Dk)
  const Tensor& V = r.tensor("V", matmul(X, W_V), r.tr("values, X W_V", "值 X W_V"), rows);        // (T, Dk)

  r.step("scores", r.tr("Scores: every query against every key", "打分：每个查询对每个键"),
         r.tr("scores[i][j] = q_i · k_j / √d_k. Dividing by √d_k keeps the scores of order 1 however wide the "
              "head is, so the softmax does not saturate.",
              "scores[i][j] = q_i · k_j / √d_k。除以 √d_k 让分数无论头多宽都保持在 1 的量级，softmax 才不会饱和。"));
  Tensor scores = attention_scores(Q, K);  // (T, T)
  if (c.causal) scores = causal_mask(scores);
  r.tensor("scores", scores,
           c.causal ? r.tr("Q Kᵀ / √d_k, future positions masked to -inf", "Q Kᵀ / √d_k，未来位置遮为 -inf")
                    : r.tr("Q Kᵀ / √d_k", "Q Kᵀ / √d_k"),
           Labels{.rows = tokens, .cols = tokens});
  r.value("d_k", I(Dk));
  r.value("sqrt_d_k", std::sqrt(static_cast<double>(Dk)), "√d_k");
  if (c.causal)
    r.note(r.tr("Causal mask: token i may not look at tokens after it, so those scores are -inf (null in the JSON).",
                "因果遮罩：第 i 个词不能看它后面的词，这些分数设为 -inf（JSON 中为 null）。"));

  r.step("softmax", r.tr("Softmax: scores become weights", "Softmax：分数变成权重"),
         r.tr("Each row is exponentiated and normalized so it sums to 1: how much of its attention each token "
              "gives to each other token. A masked score gets weight exactly 0.",
              "每一行取指数再归一化，使其和为 1：每个词把多少注意力分给每个词。被遮住的位置权重恰好为 0。"));
  const Tensor& W = r.tensor("weights", softmax_rows(scores), r.tr("softmax of each row", "每行做 softmax"), square);
  r.value("max_row_sum_error", max_row_sum_error(W), r.tr("max |row sum − 1|", "最大 |行和 − 1|"));
  for (std::size_t i = 0; i < T; ++i) {
    std::size_t j = strongest_column(W, 0, i);
    r.note(r.fmt("{} attends most to {} ({})", "{} 最关注 {}（{}）", tokens[i], tokens[j],
                       fixed(W(i, j), 3)));
  }

  r.step("output", r.tr("Output: a weighted sum of values", "输出：值的加权和"),
         r.tr("output_i = Σ_j weights[i][j] · v_j. Each token's new vector is a blend of the values it attended to.",
              "output_i = Σ_j weights[i][j] · v_j。每个词的新向量是它所关注的那些值的混合。"));
  r.show("V");
  r.tensor("output", matmul(W, V), r.tr("weights V", "weights V"), rows);  // (T, Dk)
  return r.finish();
}

}  // namespace

extern const LessonInfo attention_lesson = {
    "attention", {"--tokens", "--seq-len", "--d-model", "--head-dim", "--causal"}, run};

}  // namespace attn
