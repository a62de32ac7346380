// Lesson `qkv-roles`: the conversation's questions — are Q, K, V hyperparameters? why three
// matrices? could there be a fourth? — answered by running attention with pieces taken away.
//   (a) no projections  (b) only W_V  (c) W_Q and W_K, V = X  (d) all three; then W_O.
// Legend: T tokens, D = d_model, H heads, Dh = d_k = D / H.
#include <fmt/format.h>

#include "attention.h"
#include "lesson.h"
#include "qkv_ablation.h"
#include "random.h"
#include "row_stats.h"

namespace attn {

namespace {

using Dims = HeadDims;

Dims resolve_dims(const LessonConfig& c, std::size_t T) { return resolve_head_dims(c, T); }

// The second input: the rest of the chapter's sentence when it is long enough, else u1 … uT.
std::vector<std::string> other_tokens(Lang lang, std::size_t T) {
  std::vector<std::string> all = chapter_tokens(lang, 8), out;
  for (std::size_t i = 0; i < T; ++i)
    out.push_back(2 * T <= all.size() ? all[T + i] : "u" + std::to_string(i + 1));
  return out;
}

std::string names_of(const std::vector<std::size_t>& rows, const std::vector<std::string>& tokens) {
  std::string out;
  for (std::size_t i : rows) out += (out.empty() ? "" : " ") + tokens[i];
  return out.empty() ? "—" : out;
}

void step_roles(Recorder& r, const Dims& d) {
  r.step("roles", r.tr("Hyperparameters, parameters, activations", "超参数、参数、激活值"),
         r.tr("Three different kinds of numbers meet in attention. Hyperparameters are chosen by you before "
              "training and never change. Parameters are the learned matrices: gradient descent sets them, and "
              "they are what a checkpoint stores. Q, K and V are neither: they are activations, recomputed from "
              "X for every input and thrown away afterwards.",
              "注意力里有三类不同的数。超参数由人在训练前定好，之后不再变。参数是可学习的矩阵，由梯度下降决定，"
              "模型文件里存的就是它们。Q、K、V 两者都不是：它们是激活值，每来一个输入就用 X 重新算一遍，用完即弃。"));
  auto D = static_cast<std::int64_t>(d.D);
  Table hp{{r.tr("hyperparameter", "超参数"), r.tr("value", "取值"), r.tr("what it fixes", "决定什么")}, {}};
  hp.rows.push_back({std::string("d_model"), D, std::string(r.tr("width of every token vector", "每个词向量的宽度"))});
  hp.rows.push_back({std::string("h"), I(d.H), std::string(r.tr("number of heads", "头的个数"))});
  hp.rows.push_back({std::string("d_k"), I(d.Dk), std::string(r.tr("width of each head, d_model / h", "每个头的宽度，d_model / h"))});
  r.table(hp);
  Table lp{{r.tr("learned parameter", "可学习参数"), r.tr("shape", "形状"), r.tr("numbers", "个数")}, {}};
  for (const char* m : {"W_Q", "W_K", "W_V", "W_O"})
    lp.rows.push_back({std::string(m), fmt::format("[{}, {}]", D, D), D * D});
  lp.rows.push_back({r.tr("total", "合计"), std::string("4·d_model²"), attention_param_count(D, d.H, d.H, d.Dk)});
  r.table(lp);
}

void step_activations(Recorder& r, const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
                      Rng& rng, const std::vector<std::string>& tokens) {
  std::vector<std::string> other = other_tokens(r.lang(), tokens.size());
  r.step("activations", r.tr("Same weights, two inputs", "同一组权重，两个输入"),
         r.tr("Feed a second sentence through the very same W_Q, W_K, W_V. The weights do not move; Q, K and V "
              "come out different, because they are computed from the input: Q = X W_Q.",
              "把第二句话送进完全相同的 W_Q、W_K、W_V。权重一动不动；Q、K、V 却变了，因为它们是由输入算出来的：Q = X W_Q。"));
  const Tensor& X_other = r.tensor("X_other", randn(rng, X.shape), r.tr("a second input", "第二个输入"), Labels{.rows = other});
  const Tensor& Q = r.tensor("Q", matmul(X, W_Q), r.tr("X W_Q: queries of the first input", "X W_Q：第一个输入的查询"), Labels{.rows = tokens});  // (T, D)
  const Tensor& Q_other = r.tensor("Q_other", matmul(X_other, W_Q), r.tr("X_other W_Q: the same W_Q, other queries", "X_other W_Q：同一个 W_Q，不同的查询"), Labels{.rows = other});  // (T, D)
  Tensor K = matmul(X, W_K), K_other = matmul(X_other, W_K);  // (T, D) each
  Tensor V = matmul(X, W_V), V_other = matmul(X_other, W_V);  // (T, D) each
  Table t{{r.tr("tensor", "张量"), r.tr("kind", "类别"), r.tr("max |input 1 − input 2|", "最大 |输入 1 − 输入 2|")}, {}};
  const char* param = r.tr("parameter", "参数");
  const char* act = r.tr("activation", "激活值");
  for (const char* m : {"W_Q", "W_K", "W_V"}) t.rows.push_back({std::string(m), std::string(param), 0.0});
  t.rows.push_back({std::string("Q"), std::string(act), max_abs_diff(Q, Q_other)});
  t.rows.push_back({std::string("K"), std::string(act), max_abs_diff(K, K_other)});
  t.rows.push_back({std::string("V"), std::string(act), max_abs_diff(V, V_other)});
  r.table(t);
  r.note(r.tr("So Q, K, V are not hyperparameters (nobody picks them) and not parameters (nothing stores them): "
              "like every hidden state, they exist only while an input is being processed.",
              "所以 Q、K、V 既不是超参数（没人去设定它们），也不是参数（没有地方存它们）："
              "和所有隐藏状态一样，它们只在处理某个输入的那一刻存在。"));
}

void step_raw(Recorder& r, const Dims& d, const Tensor& X, const QkvAblation& a, const std::vector<std::string>& tokens) {
  r.step("ablation_raw", r.tr("(a) No matrices at all: scores = X Xᵀ / √d", "(a) 一个矩阵都不要：scores = X Xᵀ / √d"),
         r.fmt("Let X itself be query, key and value. Then score[i][j] = x_i · x_j / √{} = score[j][i]: the matrix "
               "is symmetric, so \"how much i looks for j\" is forced to equal \"how much j looks for i\". And "
               "x_i · x_j ≤ |x_i| |x_j| (Cauchy–Schwarz), so a token's largest score is usually with itself — "
               "unless another token is longer and points the same way. Nothing here can be learned.",
               "让 X 自己同时当查询、键和值。于是 score[i][j] = x_i · x_j / √{} = score[j][i]：矩阵是对称的，"
               "“i 找 j 的程度”被迫等于“j 找 i 的程度”。又因为 x_i · x_j ≤ |x_i| |x_j|（柯西–施瓦茨不等式），"
               "一个词的最高分通常是和它自己——除非另一个词更长且方向相近。这里没有任何可学的东西。",
               d.D));
  Labels square{.rows = tokens, .cols = tokens};
  r.tensor("scores_raw", a.scores_raw, r.tr("X Xᵀ / √d_model", "X Xᵀ / √d_model"), square);
  square.heatmap = true;
  const Tensor& W = r.tensor("weights_raw", a.weights_raw, r.tr("softmax of X Xᵀ / √d_model", "X Xᵀ / √d_model 的 softmax"), square);
  r.tensor("output_raw", a.output_raw, r.tr("weights_raw X: a blend of raw embeddings", "weights_raw X：原始嵌入的混合"), Labels{.rows = tokens});
  std::vector<std::size_t> self = self_attending_rows(W);
  r.value("asymmetry_raw", asymmetry(a.scores_raw), r.tr("max |scores − scoresᵀ|", "最大 |scores − scoresᵀ|"));
  r.value("self_attending_raw", I(self.size()), r.tr("tokens attending most to themselves", "最关注自己的词数"));
  Tensor norms = row_norms(X);  // (T)
  Table t{{r.tr("token", "词"), "|x_i|", r.tr("attends most to", "最关注"), r.tr("weight", "权重")}, {}};
  for (std::size_t i = 0; i < std::min<std::size_t>(d.T, 16); ++i) {
    std::size_t j = strongest_column(W, 0, i);
    t.rows.push_back({tokens[i], norms.data[i], tokens[j], W(i, j)});
  }
  r.table(t);
  r.note(r.fmt("{} of {} tokens attend most to themselves ({}). A token that should look for its subject cannot: "
               "without W_Q and W_K it can only find vectors that resemble its own.",
               "{} 个词里有 {} 个最关注自己（{}）。一个想去找主语的词做不到：没有 W_Q 和 W_K，它只能找到和自己相像的向量。",
               self.size(), d.T, names_of(self, tokens)));
  if (self.size() < d.T)
    r.note(r.tr("The exceptions look at a token with a larger |x| pointing roughly their way: that is the only "
                "way a dot product can beat the token's own |x_i|².",
                "例外的那些词看向了一个 |x| 更大、方向又相近的词：点积要想超过自己的 |x_i|²，只有这一种可能。"));
}

void step_only_v(Recorder& r, const QkvAblation& a, const std::vector<std::string>& tokens) {
  r.step("ablation_only_v", r.tr("(b) Only W_V: everyone gets the same average", "(b) 只有 W_V：大锅饭"),
         r.tr("Keep W_V but drop W_Q and W_K. With no queries and keys there is nothing to compare, every score "
              "is equal, and the softmax gives every token the weight 1/T. Each token's output is the same "
              "average of all values — content is transformed, but nobody chooses whom to listen to.",
              "保留 W_V，去掉 W_Q 和 W_K。没有查询和键就没有可比较的东西，所有分数相等，softmax 给每个词的权重都是 1/T。"
              "每个词的输出都是所有值的同一个平均——内容被变换了，但谁也没有选择听谁的。这就是“大锅饭”。"));
  Labels square{.rows = tokens, .cols = tokens, .heatmap = true};
  r.tensor("weights_only_v", a.weights_only_v, r.tr("uniform: every weight 1/T", "均匀：每个权重都是 1/T"), square);
  r.tensor("V_only_v", a.V, r.tr("X W_V", "X W_V"), Labels{.rows = tokens});
  r.tensor("output_only_v", a.output_only_v, r.tr("weights_only_v V: every row the mean of V", "weights_only_v V：每一行都是 V 的平均"), Labels{.rows = tokens});
  double spread = max_row_spread(a.output_only_v);
  r.value("row_spread_only_v", spread, r.tr("max |output row i − output row 1|", "最大 |输出第 i 行 − 第 1 行|"));
  r.note(r.fmt("Every output row is the same (largest difference {}): after this layer the tokens can no longer be told apart.",
               "每一行输出都一样（最大差 {}）：经过这一层，词与词之间再也分不出来了。", spread));
}

void step_qk(Recorder& r, const QkvAblation& a, const std::vector<std::string>& tokens) {
  r.step("ablation_qk", r.tr("(c) W_Q and W_K, but V = X", "(c) 有 W_Q 和 W_K，但 V = X"),
         r.tr("Queries and keys come from two different matrices, so score[i][j] = (x_i W_Q)·(x_j W_K) no longer "
              "equals score[j][i]: the pattern is learnable and one-way. But each token hands over its raw "
              "embedding: the search is learned, the content is not transformed — the right book is found, but "
              "you are handed the whole book as printed, not the passage you needed.",
              "查询和键来自两个不同的矩阵，于是 score[i][j] = (x_i W_Q)·(x_j W_K) 不再等于 score[j][i]：关注模式可学，"
              "而且是单向的。但每个词交出去的仍是原始嵌入：检索学会了，内容却没有变换——找对了书，"
              "递过来的却是原样的整本书，而不是你要的那一段。"));
  Labels square{.rows = tokens, .cols = tokens};
  r.tensor("scores_qk", a.scores_qk, r.tr("(X W_Q)(X W_K)ᵀ / √d_model", "(X W_Q)(X W_K)ᵀ / √d_model"), square);
  square.heatmap = true;
  const Tensor& W = r.tensor("weights_qk", a.weights_qk, r.tr("a learned pattern", "可学习的关注模式"), square);
  r.tensor("output_qk", a.output_qk, r.tr("weights_qk X: raw embeddings, newly mixed", "weights_qk X：原始嵌入，按新模式混合"), Labels{.rows = tokens});
  r.value("asymmetry_qk", asymmetry(a.scores_qk), r.tr("max |scores − scoresᵀ|", "最大 |scores − scoresᵀ|"));
  r.value("self_attending_qk", I(self_attending_rows(W).size()), r.tr("tokens attending most to themselves", "最关注自己的词数"));
  r.value("pattern_change", max_abs_diff(W, a.weights_raw), r.tr("max |weights_qk − weights_raw|", "最大 |weights_qk − weights_raw|"));
}

void step_full(Recorder& r, const Tensor& W_V, const QkvAblation& a, const std::vector<std::string>& tokens) {
  r.step("ablation_full", r.tr("(d) All three: W_Q, W_K and W_V", "(d) 三个都有：W_Q、W_K、W_V"),
         r.tr("Add W_V back. The weights are exactly those of (c) — W_V takes no part in deciding who looks at "
              "whom — and the output is (c)'s output passed through W_V. The jobs are decoupled: Q and K decide "
              "where to look, V decides what is handed over.",
              "把 W_V 加回来。权重和 (c) 完全一样——W_V 不参与决定谁看谁——输出则是 (c) 的输出再乘上 W_V。"
              "分工由此解耦：Q 和 K 决定看哪里，V 决定交出什么。"));
  Labels square{.rows = tokens, .cols = tokens, .heatmap = true};
  r.tensor("weights_full", a.weights_full, r.tr("softmax((X W_Q)(X W_K)ᵀ / √d_model)", "softmax((X W_Q)(X W_K)ᵀ / √d_model)"), square);
  r.tensor("output_full", a.output_full, r.tr("weights_full X W_V", "weights_full X W_V"), Labels{.rows = tokens});
  r.value("weights_full_vs_qk", max_abs_diff(a.weights_full, a.weights_qk), r.tr("max |weights_full − weights_qk|", "最大 |weights_full − weights_qk|"));
  r.value("output_full_vs_qk_WV", max_abs_diff(a.output_full, matmul(a.output_qk, W_V)),
          r.tr("max |output_full − output_qk W_V|", "最大 |output_full − output_qk W_V|"));
}

void step_compare(Recorder& r, const QkvAblation& a, const std::vector<std::string>& tokens) {
  r.step("compare", r.tr("The four side by side", "四种并排比较"),
         r.tr("What each matrix buys, on the same X (the weights are random, untrained: this shows what each "
              "matrix makes possible, not what training would make of it).",
              "在同一个 X 上，每个矩阵各带来了什么（权重是随机的、未经训练：这里展示的是每个矩阵让什么成为可能，"
              "而不是训练后的结果）。"));
  Table t{{r.tr("variant", "方案"), r.tr("learned", "可学习"), r.tr("max |S − Sᵀ|", "最大 |S − Sᵀ|"),
           r.tr("self-attending", "最关注自己"), r.tr("output rows differ by", "输出行间最大差")}, {}};
  auto self = [&](const Tensor& w) { return I(self_attending_rows(w).size()); };
  t.rows.push_back({std::string("(a)"), std::string("—"), asymmetry(a.scores_raw), self(a.weights_raw), max_row_spread(a.output_raw)});
  t.rows.push_back({std::string("(b)"), std::string("W_V"), 0.0, self(a.weights_only_v), max_row_spread(a.output_only_v)});
  t.rows.push_back({std::string("(c)"), std::string("W_Q W_K"), asymmetry(a.scores_qk), self(a.weights_qk), max_row_spread(a.output_qk)});
  t.rows.push_back({std::string("(d)"), std::string("W_Q W_K W_V"), asymmetry(a.scores_qk), self(a.weights_full), max_row_spread(a.output_full)});
  r.table(t);
  r.note(r.tr("(a) symmetric and self-centred; (b) one average for all; (c) a one-way learned pattern over raw "
              "content; (d) learned pattern and learned content. Two matrices are needed for the pattern (one "
              "would make it symmetric again: (x_i W)·(x_j W) = (x_j W)·(x_i W)), and a third for the content.",
              "(a) 对称、以自我为中心；(b) 人人同一个平均；(c) 可学习的单向模式，但内容是原样的；(d) 模式和内容都可学。"
              "模式需要两个矩阵（只用一个又会变回对称：(x_i W)·(x_j W) = (x_j W)·(x_i W)），内容还需要第三个。"));
  (void)tokens;
}

void step_w_o(Recorder& r, const Dims& d, const Tensor& X, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V,
              Rng& rng, const std::vector<std::string>& tokens) {
  r.step("w_o", r.tr("The fourth matrix is already there: W_O", "第四个矩阵其实早就有了：W_O"),
         r.fmt("Now split the same W_Q, W_K, W_V into h = {} heads of d_k = {}. Each head attends on its own; "
               "W_O ([{}, {}]) then merges them. Cut W_O into h row blocks W_O,i: output = concat W_O = "
               "Σ_i head_i W_O,i — every output number is a sum of all heads' contributions.",
               "现在把同样的 W_Q、W_K、W_V 拆成 h = {} 个头，每个 d_k = {}。每个头各自做注意力；然后 W_O（[{}, {}]）"
               "把它们融合起来。把 W_O 按行切成 h 块 W_O,i：output = concat W_O = Σ_i head_i W_O,i——"
               "输出的每个数都是所有头贡献之和。",
               d.H, d.Dk, d.D, d.D));
  const Tensor& W_O = r.tensor("W_O", init_weight(rng, d.D, d.D), r.tr("learned output projection", "可学习的输出投影"));
  AttentionPass p = grouped_attention(X, W_Q, W_K, W_V, W_O, d.H, d.H, false);
  r.tensor("heads", p.heads, r.tr("head_i = weights_i V_i", "head_i = weights_i V_i"), Labels{.rows = tokens, .block = head_word(r.lang())});
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < d.H; ++i) parts.push_back(matmul(slice0(p.heads, i), row_block(W_O, i, d.Dk)));
  r.tensor("head_contributions", stack0(parts), r.tr("head_i W_O,i, one block per head", "head_i W_O,i，每个头一块"),
           Labels{.rows = tokens, .block = head_word(r.lang())});
  r.tensor("output", p.output, r.tr("concat W_O", "concat W_O"), Labels{.rows = tokens});
  r.value("sum_check", max_abs_diff(output_as_head_sum(p.heads, W_O), p.output),
          r.tr("max |Σ_i head_i W_O,i − output|", "最大 |Σ_i head_i W_O,i − output|"));
  r.value("W_O_params", I(d.D * d.D), r.tr("parameters in W_O", "W_O 的参数量"));
  r.note(r.tr("Without W_O, head i's numbers would stay in their own d_k columns and never meet the other heads'. "
              "For a fourth matrix that sits beside Q, K, V — a gate — see `attnlab lesson gate`.",
              "没有 W_O，第 i 个头的数只会待在自己的 d_k 列里，永远碰不到其他头。"
              "至于和 Q、K、V 并列的第四个矩阵——门控——见 `attnlab lesson gate`。"));
}

Trace run(const LessonConfig& c) {
  Recorder r("qkv-roles", c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  Dims d = resolve_dims(c, tokens.size());
  record_head_config(r, c, tokens, d);

  Rng rng(static_cast<std::uint64_t>(c.seed));
  r.step("input", r.tr("The input X and three learned matrices", "输入 X 和三个可学习矩阵"),
         r.tr("One row per token. W_Q, W_K, W_V are drawn at random, as at the start of training; the four "
              "ablations below all use these same matrices as one head of full width.",
              "每个词一行。W_Q、W_K、W_V 随机生成，就像训练刚开始时那样；下面四种方案都用这同一组矩阵，当作一个全宽的单头。"));
  const Tensor& X = r.tensor("X", randn(rng, {d.T, d.D}), r.tr("one row per token", "每个词一行"), Labels{.rows = tokens});
  const Tensor& W_Q = r.tensor("W_Q", init_weight(rng, d.D, d.D), r.tr("learned query weights", "可学习的查询权重"));
  const Tensor& W_K = r.tensor("W_K", init_weight(rng, d.D, d.D), r.tr("learned key weights", "可学习的键权重"));
  const Tensor& W_V = r.tensor("W_V", init_weight(rng, d.D, d.D), r.tr("learned value weights", "可学习的值权重"));

  step_roles(r, d);
  step_activations(r, X, W_Q, W_K, W_V, rng, tokens);
  QkvAblation a = qkv_ablations(X, W_Q, W_K, W_V);
  step_raw(r, d, X, a, tokens);
  step_only_v(r, a, tokens);
  step_qk(r, a, tokens);
  step_full(r, W_V, a, tokens);
  step_compare(r, a, tokens);
  step_w_o(r, d, X, W_Q, W_K, W_V, rng, tokens);
  return r.finish();
}

}  // namespace

extern const LessonInfo qkv_roles_lesson = {
    "qkv-roles", {"--tokens", "--seq-len", "--d-model", "--heads"}, run};

}  // namespace attn
