// The gqa / mqa engine (lessons/kv_sharing.h): group map, projections for G KV heads only, the
// expanded view, per-head attention, the equivalences with MHA, the KV cache and the parameters.
#include "kv_sharing/kv_sharing.h"

#include <fmt/format.h>

#include "attention.h"
#include "gqa.h"
#include "models.h"
#include "random.h"

namespace attn {

std::string head_range(Lang lang, std::size_t first, std::size_t last) {
  if (first == last) return fmt::format(fmt::runtime(tr(lang, "head {}", "头 {}")), first);
  return fmt::format(fmt::runtime(tr(lang, "heads {}–{}", "头 {}–{}")), first, last);
}

void preset_cache_table(Recorder& r, const std::vector<std::string>& presets) {
  Table t{{r.tr("model", "模型"), r.tr("query heads", "查询头"), r.tr("KV heads", "KV 头"), "d_k",
           r.tr("vectors (2·g)", "向量数 (2·g)"), r.tr("MHA (2·h)", "MHA (2·h)"), r.tr("less than MHA", "比 MHA 少")},
          {}};
  for (const std::string& name : presets) {
    ModelConfig m = load_preset(name);
    auto h = static_cast<std::int64_t>(m.n_h), g = static_cast<std::int64_t>(m.n_g);
    Fraction f = cache_reduction(h, g);
    std::string title = m.title.substr(0, m.title.find(" ("));  // "DeepSeek LLM 67B (the baseline of …)": name only
    t.rows.push_back({title, h, g, static_cast<std::int64_t>(m.d_h), kv_cache_vectors(g), kv_cache_vectors(h),
                      fmt::format("{}/{}", f.num, f.den)});
  }
  r.table(t);
}

namespace {

// English count with its noun: "1 key", "4 keys" (the Chinese text has no plural).
std::string count(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The layer's input and weights, drawn in the mha lesson's order (X, W_Q, W_K, W_V, W_O), so that
// g = h reproduces `attnlab lesson mha` number for number.
struct KvLayer {
  Tensor X;    // (T, D)
  Tensor W_Q;  // (D, H*Dk)
  Tensor W_K;  // (D, G*Dk)
  Tensor W_V;  // (D, G*Dk)
  Tensor W_O;  // (H*Dk, D)
};

KvLayer draw_layer(Rng& rng, const KvDims& d) {
  KvLayer L;
  L.X = randn(rng, {d.T, d.D});
  L.W_Q = init_weight(rng, d.D, d.H * d.Dk);
  L.W_K = init_weight(rng, d.D, d.G * d.Dk);
  L.W_V = init_weight(rng, d.D, d.G * d.Dk);
  L.W_O = init_weight(rng, d.H * d.Dk, d.D);
  return L;
}

KvDims resolve_dims(const LessonConfig& c, std::size_t T, bool mqa) {
  std::size_t H = positive(c.heads, 4, "--heads");
  std::size_t G = mqa ? 1 : positive(c.kv_heads, H % 2 == 0 ? H / 2 : 1, "--kv-heads");
  require_divisible(H, "--heads", G, "--kv-heads");
  // Without --d-model: the smallest multiple of H that is at least 8 and gives d_k >= 2.
  std::size_t D = positive(c.d_model, H * std::max<std::size_t>(2, (8 + H - 1) / H), "--d-model");
  require_divisible(D, "--d-model", H, "--heads");
  require_fits({D, D}, "W_Q", c.d_model ? "--d-model" : "--heads (d_model defaults to a multiple of it)");
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({H, T, T}, "the scores", "--seq-len/--tokens or --heads");
  // scores, weights and the equivalence checks keep about eight (H, T, T) tensors at once
  require_total(8, {H, T, T}, "the attention tensors", "--seq-len/--tokens or --heads");
  return {T, D, H, G, D / H};
}

void step_group_map(Recorder& r, const KvDims& d, bool mqa) {
  std::size_t per = d.H / d.G;
  r.step("group_map", r.tr("Which query head reads which KV group", "哪个查询头读哪一组 KV"),
         mqa ? r.fmt("{} query heads, 1 key/value head: every query head reads the same K and V.",
                     "{} 个查询头，1 个键/值头：所有查询头读同一份 K 和 V。", d.H)
             : r.fmt("{5} share {6}, {7} per group. Query head i (counting from 0) reads group i / (h / g) = "
                     "i / {3}; counting from 1 as the chapter does, {4} {8} group 1.",
                     "{0} 个查询头共享 {1} 个键/值头，每组 {2} 个查询头。第 i 个查询头（从 0 数）读第 i / (h / g) = i / {3} "
                     "组；像本章那样从 1 数，{4} {9}第 1 组。",
                     d.H, d.G, per, per, head_range(r.lang(), 1, per), count(d.H, "query head", "query heads"),
                     count(d.G, "key/value head", "key/value heads"), count(per, "query head", "query heads"),
                     per == 1 ? "reads" : "share", per == 1 ? "读" : "共享"));
  r.tensor("group_of_head", group_of_head(d.H, d.G),
           r.tr("the KV group each query head reads (0-based, as numpy indexes)", "每个查询头读的 KV 组（从 0 数，同 numpy 下标）"));
  r.value("heads_per_group", I(per), r.tr("query heads per group h / g", "每组查询头数 h / g"));
  Table map{{r.tr("KV group", "KV 组"), r.tr("query heads", "查询头")}, {}};
  for (std::size_t j = 0; j < d.G; ++j) map.rows.push_back({I(j + 1), head_range(r.lang(), j * per + 1, (j + 1) * per)});
  r.table(map);
}

void step_project(Recorder& r, const KvDims& d, const KvLayer& L, const AttentionPass& p,
                  const std::vector<std::string>& tokens) {
  r.step("project", r.tr("Project: Q for h heads, K and V for g heads only", "投影：Q 有 h 个头，K、V 只有 g 个头"),
         r.fmt("W_Q is [{0}, {1}×{2}] as in MHA, but W_K and W_V are only [{0}, {3}×{2}] = [{0}, {4}]: the layer "
               "computes (and a decoder caches) {5} and {6} per token instead of {1} of each.",
               "W_Q 和 MHA 一样是 [{0}, {1}×{2}]，但 W_K、W_V 只有 [{0}, {3}×{2}] = [{0}, {4}]：这一层每个词只算"
               "（解码时也只缓存）{3} 个键和 {3} 个值，而不是 {1} 个。",
               d.D, d.H, d.Dk, d.G, d.G * d.Dk, count(d.G, "key", "keys"), count(d.G, "value", "values")));
  Labels rows{.rows = tokens};
  r.tensor("W_Q", L.W_Q, r.tr("query weights, h blocks of d_k columns", "查询权重，h 个 d_k 列的块"));  // (D, H*Dk)
  r.tensor("W_K", L.W_K, r.tr("key weights, g blocks of d_k columns", "键权重，g 个 d_k 列的块"));    // (D, G*Dk)
  r.tensor("W_V", L.W_V, r.tr("value weights, g blocks", "值权重，g 个块"));                        // (D, G*Dk)
  r.tensor("Q", p.Q, r.tr("queries, X W_Q", "查询 X W_Q"), rows);  // (T, H*Dk)
  r.tensor("K", p.K, r.tr("keys, X W_K: one block per KV head", "键 X W_K：每个 KV 头一块"), rows);  // (T, G*Dk)
  r.tensor("V", p.V, r.tr("values, X W_V", "值 X W_V"), rows);     // (T, G*Dk)
}

void step_split(Recorder& r, const KvDims& d, const AttentionPass& p, const std::vector<std::string>& tokens) {
  r.step("split_heads", r.tr("Split into heads, and the expanded view", "拆头，以及展开视图"),
         r.fmt("Q splits into {7}, K and V into {5}. Repeating each group for the {8} "
               "reading it gives the expanded view: {9} per token, of which only {6} different. Real "
               "kernels never build this copy — it is only how the sharing looks.",
               "Q 拆成 {} 个查询头，K、V 拆成 {} 组。把每组重复给读它的 {} 个查询头，就得到展开视图：每个词 {} 个键，"
               "其中只有 {} 个互不相同。真正的计算内核不会复制出这份数据——这只是让共享关系一目了然。",
               d.H, d.G, d.H / d.G, d.H, d.G, count(d.G, "group", "groups"), d.G == 1 ? "1 is" : fmt::format("{} are", d.G),
               count(d.H, "query head", "query heads"), count(d.H / d.G, "query head", "query heads"),
               count(d.H, "key", "keys")));
  Labels heads{.rows = tokens, .block = head_word(r.lang())};
  Labels groups{.rows = tokens, .block = group_word(r.lang())};
  r.tensor("Q_heads", p.Q_heads, r.tr("queries per head", "每个头的查询"), heads);                   // (H, T, Dk)
  r.tensor("K_heads", p.K_heads, r.tr("keys per KV group", "每个 KV 组的键"), groups);               // (G, T, Dk)
  r.tensor("V_heads", p.V_heads, r.tr("values per KV group", "每个 KV 组的值"), groups);             // (G, T, Dk)
  r.tensor("K_expanded", p.K_expanded, r.tr("keys as each query head sees them", "每个查询头看到的键"), heads);  // (H, T, Dk)
  r.tensor("V_expanded", p.V_expanded, r.tr("values as each query head sees them", "每个查询头看到的值"), heads);  // (H, T, Dk)
}

void step_attend(Recorder& r, const KvDims& d, const AttentionPass& p, const std::vector<std::string>& tokens,
                 bool causal) {
  r.step("scores", r.tr("Scores and weights per query head", "每个查询头的分数和权重"),
         r.fmt("scores_i = Q_i K_gᵀ / √d_k with d_k = {}, where g is head i's group. Heads of one group score the "
               "same keys, but with their own queries — so their patterns still differ.",
               "scores_i = Q_i K_gᵀ / √d_k，d_k = {}，g 是头 i 所在的组。同组的头给同一批键打分，但用各自的查询——"
               "所以关注模式仍然不同。",
               d.Dk));
  Labels square{.rows = tokens, .cols = tokens, .block = head_word(r.lang())};
  r.tensor("scores", p.scores,
           causal ? r.tr("per-head scores, future positions masked to -inf", "每个头的分数，未来位置遮为 -inf")
                  : r.tr("per-head scores", "每个头的分数"),
           square);
  square.heatmap = true;
  const Tensor& W = r.tensor("weights", p.weights, r.tr("attention weights per query head, rows sum to 1", "每个查询头的注意力权重，每行和为 1"), square);
  r.value("max_row_sum_error", max_row_sum_error(W), r.tr("max |row sum − 1|", "最大 |行和 − 1|"));
  if (d.H / d.G >= 2)
    r.value("same_group_difference", max_abs_diff(slice0(W, 0), slice0(W, 1)),
            r.tr("max |weights of head 1 − head 2| (same group, same keys)", "最大 |头 1 权重 − 头 2 权重|（同组、同一批键）"));
  std::size_t last = d.T - 1;
  for (std::size_t h = 0; h < std::min<std::size_t>(d.H, 8); ++h) {
    std::size_t j = strongest_column(W, h, last);
    r.note(r.fmt("head {} (group {}): {} attends most to {} ({})", "头 {}（第 {} 组）：{} 最关注 {}（{}）", h + 1,
                 h / (d.H / d.G) + 1, tokens[last], tokens[j], fixed(W(h, last, j), 3)));
  }
}

void step_output(Recorder& r, const KvDims& d, const KvLayer& L, const AttentionPass& p,
                 const std::vector<std::string>& tokens) {
  r.step("output", r.tr("Head outputs, concat, W_O", "各头输出、拼接、W_O"),
         r.fmt("head_i = weights_i V_g; the {} heads are concatenated to [{}, {}] and projected by W_O [{}, {}], "
               "exactly as in MHA.",
               "head_i = weights_i V_g；{} 个头拼接成 [{}, {}]，再乘 W_O [{}, {}]，和 MHA 完全一样。",
               d.H, d.T, d.D, d.D, d.D));
  r.tensor("heads", p.heads, r.tr("head_i = weights_i V_g", "head_i = weights_i V_g"),
           Labels{.rows = tokens, .block = head_word(r.lang())});  // (H, T, Dk)
  r.tensor("concat", p.concat, r.tr("the heads side by side", "各头并排拼接"), Labels{.rows = tokens});  // (T, D)
  r.tensor("W_O", L.W_O, r.tr("learned output projection", "可学习的输出投影"));  // (H*Dk, D)
  r.tensor("output", p.output, r.tr("concat W_O: the layer's output", "concat W_O：这一层的输出"), Labels{.rows = tokens});
}

void step_equivalence(Recorder& r, const KvDims& d, const KvLayer& L, const AttentionPass& p, bool causal,
                      const std::vector<std::string>& tokens) {
  const Tensor &X = L.X, &W_Q = L.W_Q, &W_K = L.W_K, &W_V = L.W_V, &W_O = L.W_O;
  r.step("equivalence", r.tr("GQA is an MHA whose K/V heads are copies within each group", "GQA 就是组内 K/V 头相同的 MHA"),
         r.fmt("Copy each group's W_K and W_V block to every query head of the group: W_K becomes [{0}, {1}], a "
               "full MHA matrix with only {4}. Plain MHA (g = h) on these copies computes the same "
               "layer. A third code path reads each group's K and V once for its {5}, without any copy.",
               "把每组的 W_K、W_V 块复制给组内每个查询头：W_K 变成 [{0}, {1}]，一个完整的 MHA 矩阵，只是只有 {2} "
               "个不同的块。在这些副本上做普通 MHA（g = h），算出的是同一层。第三条代码路径则不复制，每组的 K、V 只读一次，"
               "供组内 {3} 个头共用。",
               d.D, d.H * d.Dk, d.G, d.H / d.G, count(d.G, "different block", "different blocks"),
               count(d.H / d.G, "head", "heads")));
  Tensor W_K_copied = expand_kv_weights(W_K, d.H, d.G);  // (D, H*Dk)
  Tensor W_V_copied = expand_kv_weights(W_V, d.H, d.G);  // (D, H*Dk)
  AttentionPass mha = grouped_attention(X, W_Q, W_K_copied, W_V_copied, W_O, d.H, d.H, causal);
  GroupedPass by_group = gqa_by_group(X, W_Q, W_K, W_V, W_O, d.H, d.G, causal);
  GroupedPass by_group_h = gqa_by_group(X, W_Q, W_K_copied, W_V_copied, W_O, d.H, d.H, causal);
  r.tensor("W_K_copied", W_K_copied, r.tr("W_K with each group's block copied to its query heads", "每组的块复制给组内各头后的 W_K"));
  r.tensor("output_mha_copied", mha.output, r.tr("plain MHA on the copied weights", "在复制后的权重上做普通 MHA"), Labels{.rows = tokens});
  r.tensor("output_by_group", by_group.output, r.tr("GQA computed group by group, no copies", "逐组计算的 GQA，不复制"), Labels{.rows = tokens});
  double d_mha = max_abs_diff(mha.output, p.output), d_grp = max_abs_diff(by_group.output, p.output);
  double d_h = max_abs_diff(by_group_h.output, mha.output);
  r.value("gqa_vs_mha_copied", d_mha, r.tr("max |GQA − MHA on copied weights|", "最大 |GQA − 复制权重的 MHA|"));
  r.value("gqa_vs_by_group", d_grp, r.tr("max |GQA (expanded) − GQA (by group)|", "最大 |GQA（展开）− GQA（逐组）|"));
  r.value("g_equals_h_vs_mha", d_h, r.tr("max |group engine at g = h − MHA|", "最大 |g = h 的分组实现 − MHA|"));
  r.value("weights_vs_mha_copied", max_abs_diff(mha.weights, p.weights), r.tr("max |weights of GQA − of MHA on copies|", "最大 |GQA 权重 − 复制权重 MHA 的权重|"));
  r.note(r.tr("With g = h every group holds one query head, the group map is the identity, and the grouped engine is "
              "MHA exactly; run `attnlab lesson mha` with the same --heads, --d-model and --seed and compare the output.",
              "当 g = h 时每组只有一个查询头，分组映射就是恒等映射，分组实现与 MHA 完全相同；用相同的 --heads、--d-model、--seed "
              "运行 `attnlab lesson mha` 对比输出即可。"));
}

void step_cache(Recorder& r, const KvDims& d, bool mqa) {
  auto H = static_cast<std::int64_t>(d.H), G = static_cast<std::int64_t>(d.G), Dk = static_cast<std::int64_t>(d.Dk);
  r.step("kv_cache", r.tr("KV cache per token per layer", "每个词每层的 KV 缓存"),
         r.tr("When generating, every past token's keys and values are kept so they are not recomputed. Per token "
              "and layer that is one K and one V vector per KV head: 2·h for MHA, 2·g for GQA, 2 for MQA, each d_k "
              "numbers long.",
              "生成时，每个已生成词的键和值都要保存下来，免得重算。每个词每层，每个 KV 头存一个 K 向量和一个 V 向量："
              "MHA 是 2·h 个，GQA 是 2·g 个，MQA 是 2 个，每个向量 d_k 个数。"));
  auto row = [&](const char* kind, std::int64_t h, std::int64_t g, std::int64_t dk) -> std::vector<Scalar> {
    Fraction f = cache_reduction(h, g);
    return {std::string(kind), g, kv_cache_vectors(g), kv_cache_elements(g, dk),
            f.num == 0 ? std::string("0") : fmt::format("{}/{}", f.num, f.den)};
  };
  std::vector<std::string> header = {r.tr("this run", "本次运行"), r.tr("KV heads", "KV 头数"),
                                     r.tr("vectors (2·g)", "向量数 (2·g)"), r.tr("numbers (2·g·d_k)", "数值个数 (2·g·d_k)"),
                                     r.tr("less than MHA", "比 MHA 少")};
  Table run{header, {row("MHA", H, H, Dk)}};
  if (!mqa && G != 1 && G != H) run.rows.push_back(row("GQA", H, G, Dk));
  run.rows.push_back(row("MQA", H, 1, Dk));
  r.value("kv_vectors_mha", kv_cache_vectors(H), r.tr("this run, MHA", "本次运行，MHA"));
  r.value("kv_vectors_run", kv_cache_vectors(G), mqa ? r.tr("this run, MQA", "本次运行，MQA") : r.tr("this run, GQA", "本次运行，GQA"));
  if (!mqa) r.value("kv_vectors_mqa", kv_cache_vectors(1), r.tr("this run, MQA", "本次运行，MQA"));
  Fraction f = cache_reduction(H, G);
  r.value("cache_saved", f.num == 0 ? std::string("0") : fmt::format("{}/{}", f.num, f.den),
          r.tr("cache saved against MHA, (h − g) / h", "相对 MHA 省下的缓存 (h − g) / h"));
  r.table(run);
  header[0] = r.tr("chapter: h 12, d_k 64", "本章：h 12，d_k 64");
  Table chapter{header, {row("MHA", 12, 12, 64), row("GQA", 12, 4, 64), row("MQA", 12, 1, 64)}};
  r.table(chapter);
  Fraction ch = cache_reduction(12, 4);
  r.note(r.fmt("{0} → {1} → {2}: the chapter's example (second table: 12 query heads as MHA, in 4 groups, as MQA; "
               "d_k 64). GQA keeps {1} of {0} vectors, {3}/{4} less — the chapter's \"2/3 less\".",
               "{0} → {1} → {2}：本章的例子（第二张表：12 个查询头分别作 MHA、分 4 组、作 MQA；d_k 64）。GQA 在 {0} "
               "个向量里只留 {1} 个，少了 {3}/{4}——正是本章说的“减少 2/3”。",
               kv_cache_vectors(12), kv_cache_vectors(4), kv_cache_vectors(1), ch.num, ch.den));
}

void step_params(Recorder& r, const KvDims& d) {
  auto D = static_cast<std::int64_t>(d.D), H = static_cast<std::int64_t>(d.H), G = static_cast<std::int64_t>(d.G);
  auto Dk = static_cast<std::int64_t>(d.Dk);
  r.step("params", r.tr("Parameter count", "参数量"),
         r.tr("W_Q and W_O stay d × d; W_K and W_V shrink to d × g·d_k. One layer: 2·d·d + 2·d·g·d_k, against 4·d² "
              "for MHA (g = h, g·d_k = d).",
              "W_Q 和 W_O 仍是 d × d；W_K、W_V 缩小为 d × g·d_k。一层共 2·d·d + 2·d·g·d_k 个参数，MHA（g = h，g·d_k = d）"
              "是 4·d²。"));
  auto row = [&](const char* kind, std::int64_t d_, std::int64_t h, std::int64_t g, std::int64_t dk) -> std::vector<Scalar> {
    std::int64_t n = attention_param_count(d_, h, g, dk), mha = attention_param_count(d_, h, h, dk);
    return {std::string(kind), d_, g, fmt::format("2·{0}·{0} + 2·{0}·{1}·{2}", d_, g, dk), n,
            static_cast<double>(n) / static_cast<double>(mha)};
  };
  std::vector<std::string> header = {r.tr("this run", "本次运行"), "d", "g", r.tr("2·d·d + 2·d·g·d_k", "2·d·d + 2·d·g·d_k"),
                                     r.tr("parameters", "参数"), r.tr("of 4·d²", "占 4·d²")};
  Table run{header, {row("MHA", D, H, H, Dk)}};
  if (G != 1 && G != H) run.rows.push_back(row("GQA", D, H, G, Dk));
  run.rows.push_back(row("MQA", D, H, 1, Dk));
  r.table(run);
  header[0] = r.tr("chapter: h 12, d_k 64", "本章：h 12，d_k 64");
  r.table(Table{header, {row("MHA", 768, 12, 12, 64), row("GQA", 768, 12, 4, 64), row("MQA", 768, 12, 1, 64)}});
  r.value("params_run", attention_param_count(D, H, G, Dk), r.tr("this run", "本次运行"));
  r.value("params_mha_run", attention_param_count(D, H, H, Dk), r.tr("MHA on the same d", "同样 d 的 MHA"));
  r.note(r.fmt("The saving is in W_K and W_V only: at the chapter's d = 768 with 4 groups, {} instead of {}.",
               "省下的只在 W_K、W_V：本章 d = 768、4 组时是 {}，而不是 {}。",
               with_commas(attention_param_count(768, 12, 4, 64)), with_commas(attention_param_count(768, 12, 12, 64))));
}

}  // namespace

Trace run_kv_sharing(const LessonConfig& c, const KvStory& story) {
  Recorder r(story.lesson, c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  KvDims d = resolve_dims(c, tokens.size(), story.mqa);
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("n_kv_heads", I(d.G));
  r.config("d_k", I(d.Dk));

  Rng rng(static_cast<std::uint64_t>(c.seed));
  KvLayer L = draw_layer(rng, d);
  AttentionPass p = grouped_attention(L.X, L.W_Q, L.W_K, L.W_V, L.W_O, d.H, d.G, c.causal);

  story.intro(r, d);
  r.tensor("X", L.X, r.tr("one row per token", "每个词一行"), Labels{.rows = tokens});  // (T, D)
  step_group_map(r, d, story.mqa);
  step_project(r, d, L, p, tokens);
  step_split(r, d, p, tokens);
  step_attend(r, d, p, tokens, c.causal);
  step_output(r, d, L, p, tokens);
  step_equivalence(r, d, L, p, c.causal, tokens);
  step_cache(r, d, story.mqa);
  step_params(r, d);
  story.closing(r, d);
  return r.finish();
}

}  // namespace attn
