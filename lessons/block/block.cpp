// Lesson `block`: a preview of the next chapter — one pre-LayerNorm transformer block, GPT-2 style.
//   x -> resid1 = x + MHA(LN_1(x)) -> output = resid1 + FFN(LN_2(resid1))
// Legend: T tokens, D = d_model, H heads, Dh = D / H, F = d_ff.
#include <cmath>

#include <fmt/format.h>

#include "block.h"
#include "errors.h"
#include "ffn_common/ffn_common.h"
#include "lesson.h"
#include "models.h"
#include "random.h"
#include "row_stats.h"

namespace attn {

namespace {

constexpr double kNearStd = 0.1;  // γ = 1 + N(0, 0.1²), β and biases N(0, 0.1²): "as if trained a little"

struct Dims {
  std::size_t T, D, H, Dk, F;
  Activation act;
};

Dims resolve_dims(const LessonConfig& c, std::size_t T) {
  std::size_t D = positive(c.d_model, 8, "--d-model");
  std::size_t H = positive(c.heads, 2, "--heads");
  require_divisible(D, "--d-model", H, "--heads");
  std::size_t F = positive(c.d_ff, 4 * D, "--d-ff");
  Activation act = resolve_activation(c);
  require_fits({D, D}, "W_Q", "--d-model");
  require_fits({D, F}, "W_1", "--d-model or --d-ff");
  require_fits({T, F}, "the FFN hidden layer", "--seq-len/--tokens or --d-ff");
  require_fits({H, T, T}, "the attention weights", "--seq-len/--tokens or --heads");
  return {T, D, H, D / H, F, act};
}

// Draw every weight in the order the trace lists them.
BlockWeights draw_weights(Rng& rng, const Dims& d) {
  auto near_one = [&](std::size_t n) {
    Tensor t = randn(rng, {n}, kNearStd);
    for (double& v : t.data) v += 1.0;
    return t;
  };
  BlockWeights w;
  w.ln1_gamma = near_one(d.D);
  w.ln1_beta = randn(rng, {d.D}, kNearStd);
  w.W_Q = init_weight(rng, d.D, d.D);
  w.W_K = init_weight(rng, d.D, d.D);
  w.W_V = init_weight(rng, d.D, d.D);
  w.W_O = init_weight(rng, d.D, d.D);
  w.b_Q = randn(rng, {d.D}, kNearStd);
  w.b_K = randn(rng, {d.D}, kNearStd);
  w.b_V = randn(rng, {d.D}, kNearStd);
  w.b_O = randn(rng, {d.D}, kNearStd);
  w.ln2_gamma = near_one(d.D);
  w.ln2_beta = randn(rng, {d.D}, kNearStd);
  w.W_1 = init_weight(rng, d.D, d.F);
  w.b_1 = randn(rng, {d.F}, kNearStd);
  w.W_2 = init_weight(rng, d.F, d.D);
  w.b_2 = randn(rng, {d.D}, kNearStd);
  return w;
}

void step_ln(Recorder& r, int which, const Tensor& in, const LayerNormPass& ln, const Tensor& gamma, const Tensor& beta,
             const std::vector<std::string>& tokens) {
  std::string n = std::to_string(which);
  const char* input = which == 1 ? "x" : "resid1";
  r.step("ln" + n, r.fmt("LayerNorm {}", "LayerNorm {}", which),
         r.fmt("Each token's row of {} on its own: subtract its mean, divide by sqrt(variance + ε) with ε = 1e-5, "
               "then scale each channel by γ and shift it by β (both learned, d_model numbers each). The block "
               "reads a normalized copy; the residual stream itself is left as it is.",
               "对 {} 中每个词的那一行分别处理：减去这一行的均值，除以 sqrt(方差 + ε)，ε = 1e-5；再按通道乘 γ、加 β"
               "（两者都可学习，各 d_model 个数）。块读的是归一化后的副本；残差流本身保持不动。",
               input));
  r.tensor("ln" + n + "_gamma", gamma, r.tr("γ: learned scale per channel", "γ：每个通道可学习的缩放"));
  r.tensor("ln" + n + "_beta", beta, r.tr("β: learned shift per channel", "β：每个通道可学习的平移"));
  r.tensor("ln" + n + "_out", ln.out, r.tr("normalized, then γ and β", "归一化后再乘 γ、加 β"), Labels{.rows = tokens});
  Tensor m_hat = row_means(ln.xhat), n_hat = row_norms(ln.xhat);  // (T), (T)
  Table t{{r.tr("token", "词"), r.tr("mean", "均值"), "√(var+ε)", r.tr("mean after", "归一化后均值"),
           r.tr("|x̂| / √d", "|x̂| / √d")}, {}};
  double sqrt_d = std::sqrt(static_cast<double>(in.dim(1)));
  for (std::size_t i = 0; i < std::min<std::size_t>(tokens.size(), 16); ++i)
    t.rows.push_back({tokens[i], ln.mean.data[i], 1.0 / ln.rstd.data[i], m_hat.data[i], n_hat.data[i] / sqrt_d});
  r.table(t);
}

void step_attention(Recorder& r, const Dims& d, const BlockWeights& w, const BlockPass& p,
                    const std::vector<std::string>& tokens, bool causal) {
  r.step("attention", r.tr("Multi-head attention with biases", "带偏置的多头注意力"),
         r.fmt("Q = ln1_out W_Q + b_Q, and likewise K and V; {} heads of d_k = {}; attn_out = concat W_O + b_O. "
               "GPT-2 has a bias on every projection (b_Q, b_K, b_V, b_O){}.",
               "Q = ln1_out W_Q + b_Q，K、V 同理；{} 个头，每个 d_k = {}；attn_out = concat W_O + b_O。"
               "GPT-2 的每个投影都带偏置（b_Q、b_K、b_V、b_O）{}。",
               d.H, d.Dk,
               causal ? r.tr("; the causal mask hides later tokens, as in GPT-2", "；因果遮罩挡住后面的词，和 GPT-2 一样")
                      : r.tr("; GPT-2 also masks later tokens (add --causal)", "；GPT-2 还会遮住后面的词（加 --causal）")));
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"W_Q", &w.W_Q}, {"W_K", &w.W_K}, {"W_V", &w.W_V}, {"W_O", &w.W_O}})
    r.tensor(name, *t, r.tr("learned weights", "可学习的权重"));
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"b_Q", &w.b_Q}, {"b_K", &w.b_K}, {"b_V", &w.b_V}, {"b_O", &w.b_O}})
    r.tensor(name, *t, r.tr("learned bias", "可学习的偏置"));
  r.tensor("attn_weights", p.weights, r.tr("attention weights per head", "每个头的注意力权重"),
           Labels{.rows = tokens, .cols = tokens, .block = head_word(r.lang()), .heatmap = true});
  r.tensor("attn_out", p.attn_out, r.tr("concat W_O + b_O: what attention adds", "concat W_O + b_O：注意力要加进去的东西"), Labels{.rows = tokens});
}

void step_ffn(Recorder& r, const Dims& d, const BlockWeights& w, const BlockPass& p, const std::vector<std::string>& tokens) {
  r.step("ffn", r.tr("The FFN: up, activation, down", "FFN：升维、激活、降维"),
         r.fmt("ffn_out = {}(ln2_out W_1 + b_1) W_2 + b_2: d_model {} → d_ff {} → d_model {}.",
               "ffn_out = {}(ln2_out W_1 + b_1) W_2 + b_2：d_model {} → d_ff {} → d_model {}。",
               activation_name(d.act), d.D, d.F, d.D));
  r.tensor("W_1", w.W_1, r.tr("up-projection", "升维矩阵"));
  r.tensor("b_1", w.b_1, r.tr("its bias", "它的偏置"));
  r.tensor("ffn_hidden", p.ffn_hidden, r.tr("ln2_out W_1 + b_1, before the activation", "ln2_out W_1 + b_1，激活之前"), Labels{.rows = tokens});
  r.tensor("W_2", w.W_2, r.tr("down-projection", "降维矩阵"));
  r.tensor("b_2", w.b_2, r.tr("its bias", "它的偏置"));
  r.tensor("ffn_out", p.ffn_out, r.tr("what the FFN adds", "FFN 要加进去的东西"), Labels{.rows = tokens});
}

void step_stream(Recorder& r, const Tensor& X, const BlockPass& p, const std::vector<std::string>& tokens) {
  r.step("output", r.tr("The residual stream, point by point", "残差流，一处一处看"),
         r.tr("output = resid1 + ffn_out. The stream is only ever added to: x, then + attn_out, then + ffn_out. "
              "Each sub-layer reads a normalized copy and writes back a correction — which is why deep stacks of "
              "these blocks still train.",
              "output = resid1 + ffn_out。残差流只被“加”：x，加上 attn_out，再加上 ffn_out。每个子层读一份归一化的副本，"
              "写回一个修正量——所以这种块堆得很深也依然能训练。"));
  r.tensor("output", p.output, r.tr("the block's output: the next block's x", "块的输出：下一个块的 x"), Labels{.rows = tokens});
  Tensor nx = row_norms(X), na = row_norms(p.attn_out), n1 = row_norms(p.resid1), nf = row_norms(p.ffn_out),
         no = row_norms(p.output);  // (T) each
  Table t{{r.tr("token", "词"), "|x|", "|attn_out|", "|resid1|", "|ffn_out|", "|output|"}, {}};
  for (std::size_t i = 0; i < std::min<std::size_t>(tokens.size(), 16); ++i)
    t.rows.push_back({tokens[i], nx.data[i], na.data[i], n1.data[i], nf.data[i], no.data[i]});
  r.table(t);
  r.value("resid1_check", max_abs_diff(p.resid1, add(X, p.attn_out)), r.tr("max |resid1 − (x + attn_out)|", "最大 |resid1 − (x + attn_out)|"));
}

void step_params(Recorder& r, const Dims& d) {
  r.step("params", r.tr("Parameters of one block", "一个块的参数量"),
         r.tr("Every learned number of the block, part by part, for this run and for GPT-2 small (d_model 768, "
              "d_ff 3072), biases and LayerNorms included.",
              "块里每一个可学习的数，逐部分列出：本次运行和 GPT-2 small（d_model 768，d_ff 3072），含偏置和 LayerNorm。"));
  BlockParamCount run = block_param_count(static_cast<std::int64_t>(d.D), static_cast<std::int64_t>(d.F));
  BlockParamCount g = block_param_count(768, 3072);
  Table t{{r.tr("part", "部分"), r.tr("formula", "公式"), r.tr("this run", "本次运行"), "GPT-2 small"}, {}};
  t.rows.push_back({std::string("ln1 γ, β"), std::string("2·d"), run.ln1, g.ln1});
  t.rows.push_back({std::string("W_Q W_K W_V + b"), std::string("3·d² + 3·d"), run.qkv, g.qkv});
  t.rows.push_back({std::string("W_O + b_O"), std::string("d² + d"), run.proj, g.proj});
  t.rows.push_back({std::string("ln2 γ, β"), std::string("2·d"), run.ln2, g.ln2});
  t.rows.push_back({std::string("W_1 + b_1"), std::string("d·d_ff + d_ff"), run.fc, g.fc});
  t.rows.push_back({std::string("W_2 + b_2"), std::string("d_ff·d + d"), run.fc_proj, g.fc_proj});
  t.rows.push_back({r.tr("block", "整块"), std::string(""), run.total, g.total});
  r.table(t);
  r.value("block_params", run.total, r.tr("this run", "本次运行"));
  r.value("block_params_gpt2", g.total, r.tr("GPT-2 small, one block", "GPT-2 small，一个块"));
  ParamReport gpt2 = count_params(load_preset("gpt2"));  // the `params` command's independent count
  r.value("block_params_gpt2_models", static_cast<std::int64_t>(gpt2.layers.at(0).total),
          r.tr("the same from `attnlab params --model gpt2`", "`attnlab params --model gpt2` 给出的同一个数"));
  r.value("gpt2_total", static_cast<std::int64_t>(gpt2.total), r.tr("GPT-2 small: 12 blocks + embeddings + final LN", "GPT-2 small：12 个块 + 嵌入 + 最后的 LN"));
  r.note(r.fmt("Attention (with its biases) is {:.1f}% of the block and the FFN {:.1f}% — the chapter's 1/3 : 2/3. "
               "The LayerNorms are only {} numbers.",
               "注意力（含偏置）占整块的 {:.1f}%，FFN 占 {:.1f}%——正是本章说的 1/3 : 2/3。两个 LayerNorm 只有 {} 个数。",
               100.0 * static_cast<double>(g.qkv + g.proj) / static_cast<double>(g.total),
               100.0 * static_cast<double>(g.fc + g.fc_proj) / static_cast<double>(g.total), with_commas(g.ln1 + g.ln2)));
}

Trace run(const LessonConfig& c) {
  Recorder r("block", c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  Dims d = resolve_dims(c, tokens.size());
  record_head_config(r, c, tokens, HeadDims{d.T, d.D, d.H, d.Dk});
  r.config("d_ff", I(d.F));
  r.config("activation", std::string(activation_name(d.act)));

  Rng rng(static_cast<std::uint64_t>(c.seed));
  r.step("input", r.tr("The residual stream enters", "残差流进入"),
         r.tr("x: one row per token. A block never replaces x; it adds two corrections to it, each computed from "
              "a LayerNorm'd copy: x → x + MHA(LN(x)) → + FFN(LN(·)). γ and the biases are drawn near GPT-2's "
              "starting values (γ = 1, β = b = 0) so that each one's effect shows.",
              "x：每个词一行。块从不替换 x，只往上加两个修正，每个修正都从 LayerNorm 过的副本算出："
              "x → x + MHA(LN(x)) → + FFN(LN(·))。γ 和各偏置取在 GPT-2 初始值（γ = 1，β = b = 0）附近的随机数，"
              "好让每一个的作用都看得见。"));
  const Tensor& X = r.tensor("X", randn(rng, {d.T, d.D}), r.tr("the residual stream entering the block", "进入块的残差流"), Labels{.rows = tokens});
  BlockWeights w = draw_weights(rng, d);
  BlockPass p = transformer_block(X, w, d.H, c.causal, d.act);

  step_ln(r, 1, X, p.ln1, w.ln1_gamma, w.ln1_beta, tokens);
  step_attention(r, d, w, p, tokens, c.causal);
  r.step("resid1", r.tr("First residual connection", "第一个残差连接"),
         r.tr("resid1 = x + attn_out: what attention found is added onto the stream.",
              "resid1 = x + attn_out：注意力找到的东西被加到残差流上。"));
  r.tensor("resid1", p.resid1, r.tr("x + attn_out", "x + attn_out"), Labels{.rows = tokens});
  step_ln(r, 2, p.resid1, p.ln2, w.ln2_gamma, w.ln2_beta, tokens);
  step_ffn(r, d, w, p, tokens);
  step_stream(r, X, p, tokens);
  step_params(r, d);
  return r.finish();
}

}  // namespace

extern const LessonInfo block_lesson = {
    "block", {"--tokens", "--seq-len", "--d-model", "--heads", "--d-ff", "--causal", "--activation"}, run};

}  // namespace attn
