// Lesson `mla`: DeepSeek-V2/V3's Multi-head Latent Attention (the conversation's MLA half).
//   X -> c_KV (cached) -> K_C, V_C per head; queries (optionally through c_Q); decoupled RoPE
//   (Q_R per head, one shared K_R, cached); naive path vs absorbed path; why RoPE cannot rotate
//   K_C; the cache per token per layer, for this run and for DeepSeek-V3.
// Legend: T tokens, D = d_model, H heads, Dh = d_h, C = d_c, Cq = d_c', R = d_R. Math: src/mla.h.
#include <fmt/format.h>

#include "attention.h"
#include "errors.h"
#include "lesson.h"
#include "mla.h"
#include "deepseek_facts.h"
#include "random.h"
#include "rope.h"

namespace attn {

namespace {

constexpr std::uint64_t kV3Context = 4096;  // the context length used for DeepSeek-V3's decode costs

std::string pct(double x) { return fixed(100.0 * x, 2) + "%"; }

MlaDims resolve_dims(const LessonConfig& c, std::size_t T) {
  MlaDims d{T, positive(c.d_model, 8, "--d-model"), positive(c.heads, 2, "--heads"),
            positive(c.head_dim, 4, "--head-dim"), positive(c.latent_dim, 4, "--latent-dim")};
  if (c.q_latent_dim) d.Cq = positive(c.q_latent_dim, 0, "--q-latent-dim");
  if (c.rope_dim && *c.rope_dim < 0)
    throw UsageError(fmt::format("--rope-dim must be 0 (no decoupled RoPE) or a positive even number (got {})", *c.rope_dim));
  d.R = c.rope_dim ? (*c.rope_dim == 0 ? 0 : positive(c.rope_dim, 0, "--rope-dim")) : 2;
  if (d.R % 2 != 0)
    throw UsageError(fmt::format("--rope-dim {} must be even: RoPE rotates pairs of numbers (try --rope-dim {})", d.R, d.R + 1));
  std::string hd = "--heads or --head-dim";
  require_fits({T, d.D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({d.D, d.H, d.Dh}, "W_Q", "--d-model, " + hd);
  require_fits({d.C, d.H, d.Dh}, "W_UK", "--latent-dim, " + hd);
  require_fits({d.H, d.C, d.D}, "the folded W_UV,i W_O,i", "--heads, --latent-dim or --d-model");
  require_fits({d.H, T, std::max(T, d.C)}, "the scores", "--seq-len/--tokens, --heads or --latent-dim");
  require_fits({T, d.H, d.Dh}, "K_C", "--seq-len/--tokens, " + hd);
  if (d.Cq > 0) require_fits({d.Cq, d.H, d.Dh}, "W_UQ", "--q-latent-dim, " + hd);
  if (d.R > 0) require_fits({std::max(d.D, d.Cq), d.H, d.R}, "W_QR", "--d-model, --heads or --rope-dim");
  return d;
}

void step_compress(Recorder& r, const MlaDims& d, const MlaWeights& w, const MlaNaive& n, const Labels& rows) {
  r.step("compress", r.tr("Down-projection: the latent c_KV", "下投影：潜向量 c_KV"),
         r.fmt("c_KV = X W_DKV squeezes each token's {} numbers into a latent of d_c = {}. In a decoder this latent "
               "(plus the small RoPE key below) is all that is cached — not the heads' {} keys and {} values ({} "
               "numbers).",
               "c_KV = X W_DKV 把每个词的 {} 个数压成 d_c = {} 维的潜向量。解码时只缓存这个潜向量（外加下面那个小小的 "
               "RoPE 键）——而不是各头的 {} 个键和 {} 个值（{} 个数）。",
               d.D, d.C, d.H, d.H, 2 * d.H * d.Dh));
  r.tensor("W_DKV", w.W_DKV, r.tr("down-projection to the KV latent", "到 KV 潜空间的下投影"));  // (D, C)
  r.tensor("c_KV", n.c_KV, r.tr("the latent: cached", "潜向量：被缓存"), rows);                // (T, C)

  r.step("expand", r.tr("Up-projection: keys and values for every head", "上投影：每个头的键和值"),
         r.fmt("K_C = c_KV W_UK and V_C = c_KV W_UV, each [{0}, h·d_h] = [{0}, {1}]: head i takes column block i, "
               "as in MHA. All {2} heads' keys and values are decompressed from the same {3} numbers per token.",
               "K_C = c_KV W_UK，V_C = c_KV W_UV，各为 [{0}, h·d_h] = [{0}, {1}]：第 i 个头取第 i 个列块，和 MHA 一样。"
               "所有 {2} 个头的键和值，都是从每个词同样的 {3} 个数解压出来的。",
               d.T, d.H * d.Dh, d.H, d.C));
  r.tensor("W_UK", w.W_UK, r.tr("up-projection to keys, one d_h block per head", "到键的上投影，每个头一个 d_h 块"));  // (C, H*Dh)
  r.tensor("W_UV", w.W_UV, r.tr("up-projection to values", "到值的上投影"));                                           // (C, H*Dh)
  r.tensor("K_C", n.K_C, r.tr("compressed-path keys, all heads", "压缩路径的键，所有头"), rows);                         // (T, H*Dh)
  r.tensor("V_C", n.V_C, r.tr("values, all heads", "值，所有头"), rows);                                                 // (T, H*Dh)
}

void step_queries(Recorder& r, const MlaDims& d, const MlaWeights& w, const MlaNaive& n, const Labels& rows) {
  if (d.Cq == 0) {
    r.step("queries", r.tr("Queries", "查询"),
           r.fmt("Q_C = X W_Q, [{}, {}]. (With --q-latent-dim the queries also go through a latent c_Q, as in "
                 "DeepSeek-V2/V3; that saves activation memory in training, not KV cache.)",
                 "Q_C = X W_Q，[{}, {}]。（加 --q-latent-dim 时查询也先经过潜向量 c_Q，和 DeepSeek-V2/V3 一样；"
                 "这省的是训练时的激活内存，不是 KV 缓存。）",
                 d.T, d.H * d.Dh));
    r.tensor("W_Q", w.W_Q, r.tr("query weights", "查询权重"));  // (D, H*Dh)
  } else {
    r.step("queries", r.tr("Queries through a query latent", "查询也经过潜向量"),
           r.fmt("c_Q = X W_DQ compresses to d_c' = {}, then Q_C = c_Q W_UQ. Queries are never cached, so this "
                 "saves activation memory in training, not KV cache.",
                 "c_Q = X W_DQ 压到 d_c' = {} 维，再 Q_C = c_Q W_UQ。查询不会被缓存，所以这省的是训练时的激活内存，"
                 "不是 KV 缓存。",
                 d.Cq));
    r.tensor("W_DQ", w.W_DQ, r.tr("down-projection to the query latent", "到查询潜空间的下投影"));  // (D, Cq)
    r.tensor("c_Q", n.c_Q, r.tr("query latent (not cached)", "查询潜向量（不缓存）"), rows);         // (T, Cq)
    r.tensor("W_UQ", w.W_UQ, r.tr("up-projection to queries", "到查询的上投影"));                    // (Cq, H*Dh)
  }
  r.tensor("Q_C", n.Q_C, r.tr("compressed-path queries, all heads", "压缩路径的查询，所有头"), rows);  // (T, H*Dh)
}

void step_rope(Recorder& r, const MlaDims& d, const MlaWeights& w, const MlaNaive& n, const Labels& rows) {
  r.step("rope", r.tr("Decoupled RoPE: Q_R per head, one shared K_R", "解耦 RoPE：每头一个 Q_R，共享一个 K_R"),
         r.fmt("Position enters through a separate, small part: Q_R = RoPE({0} W_QR), [{1}, h·d_R] = [{1}, {2}], one "
               "per head, and a single K_R = RoPE(X W_KR), [{1}, {3}], shared by all heads and cached next to c_KV. "
               "RoPE here rotates consecutive pairs (x_2i, x_2i+1) of row t by t·θ_i, θ_i = 10000^(−2i/d_R), as "
               "LLaMA and DeepSeek-V3's reference code do; the first token (t = 0) is not rotated.",
               "位置信息走一条单独的小通道：Q_R = RoPE({0} W_QR)，[{1}, h·d_R] = [{1}, {2}]，每头一份；再加一个 "
               "K_R = RoPE(X W_KR)，[{1}, {3}]，所有头共用，和 c_KV 一起缓存。这里的 RoPE 把第 t 行相邻的一对数 "
               "(x_2i, x_2i+1) 旋转 t·θ_i，θ_i = 10000^(−2i/d_R)，与 LLaMA 和 DeepSeek-V3 参考代码一致；第一个词（t = 0）"
               "不旋转。",
               d.Cq == 0 ? "X" : "c_Q", d.T, d.H * d.R, d.R));
  r.tensor("rope_theta", rope_theta(d.R), r.tr("θ_i = 10000^(−2i/d_R), one per pair", "θ_i = 10000^(−2i/d_R)，每对一个"));  // (R/2)
  r.tensor("W_QR", w.W_QR, r.tr("RoPE query weights, one d_R block per head", "RoPE 查询权重，每头一个 d_R 块"));  // (D|Cq, H*R)
  r.tensor("W_KR", w.W_KR, r.tr("RoPE key weights, shared", "RoPE 键权重，共享"));                                // (D, R)
  r.tensor("K_R_raw", n.K_R_raw, r.tr("X W_KR before the rotation", "旋转前的 X W_KR"), rows);                   // (T, R)
  r.tensor("Q_R", n.Q_R, r.tr("rotated RoPE queries, all heads", "旋转后的 RoPE 查询，所有头"), rows);            // (T, H*R)
  r.tensor("K_R", n.K_R, r.tr("rotated shared RoPE key: cached", "旋转后的共享 RoPE 键：被缓存"), rows);          // (T, R)
}

void step_attend(Recorder& r, const MlaDims& d, const MlaWeights& w, const MlaNaive& n,
                 const std::vector<std::string>& tokens) {
  r.step("attention", r.tr("Attention, the naive way", "注意力：朴素算法"),
         d.R > 0 ? r.fmt("Per head: scores_i = (Q_C,i K_C,iᵀ + Q_R,i K_Rᵀ) / √(d_h + d_R) = … / √{}; softmax; "
                         "head_i = weights_i V_C,i; concat; output = concat W_O. This is plain MHA on the "
                         "decompressed keys and values.",
                         "每个头：scores_i = (Q_C,i K_C,iᵀ + Q_R,i K_Rᵀ) / √(d_h + d_R) = … / √{}；softmax；"
                         "head_i = weights_i V_C,i；拼接；output = concat W_O。这就是在解压出的键和值上做普通 MHA。",
                         d.Dh + d.R)
                 : r.fmt("Per head: scores_i = Q_C,i K_C,iᵀ / √d_h = … / √{}; softmax; head_i = weights_i V_C,i; "
                         "concat; output = concat W_O: plain MHA on the decompressed keys and values.",
                         "每个头：scores_i = Q_C,i K_C,iᵀ / √d_h = … / √{}；softmax；head_i = weights_i V_C,i；拼接；"
                         "output = concat W_O：在解压出的键和值上做普通 MHA。",
                         d.Dh));
  Labels square{.rows = tokens, .cols = tokens, .block = head_word(r.lang())};
  r.tensor("scores", n.scores, r.tr("per-head scores", "每个头的分数"), square);  // (H, T, T)
  square.heatmap = true;
  r.tensor("weights", n.weights, r.tr("attention weights, rows sum to 1", "注意力权重，每行和为 1"), square);  // (H, T, T)
  r.tensor("heads", n.heads, r.tr("head_i = weights_i V_C,i", "head_i = weights_i V_C,i"),
           Labels{.rows = tokens, .block = head_word(r.lang())});                                                // (H, T, Dh)
  r.tensor("concat", n.concat, r.tr("the heads side by side", "各头并排拼接"), Labels{.rows = tokens});          // (T, H*Dh)
  r.tensor("W_O", w.W_O, r.tr("output projection", "输出投影"));                                                  // (H*Dh, D)
  r.tensor("output", n.output, r.tr("concat W_O: the layer's output", "concat W_O：这一层的输出"), Labels{.rows = tokens});  // (T, D)
}

void step_absorb(Recorder& r, const MlaDims& d, const MlaNaive& n, const MlaAbsorbed& a,
                 const std::vector<std::string>& tokens) {
  r.step("absorb", r.tr("Matrix absorption: attend to the cache directly", "矩阵吸收：直接在缓存上做注意力"),
         r.fmt("Q_C,i K_C,iᵀ = Q_C,i (c_KV W_UK,i)ᵀ = (Q_C,i W_UK,iᵀ) c_KVᵀ. So fold W_UK,i into the query: "
               "q_absorbed_i = Q_C,i W_UK,iᵀ is {0} wide and scores the latent c_KV directly. Likewise "
               "head_i W_O,i = weights_i c_KV (W_UV,i W_O,i): fold W_UV,i into W_O,i once. K_C and V_C are never "
               "formed; only the cache (c_KV, K_R) is read.",
               "Q_C,i K_C,iᵀ = Q_C,i (c_KV W_UK,i)ᵀ = (Q_C,i W_UK,iᵀ) c_KVᵀ。于是把 W_UK,i 并进查询："
               "q_absorbed_i = Q_C,i W_UK,iᵀ 宽 {0}，直接和潜向量 c_KV 打分。同理 head_i W_O,i = weights_i c_KV "
               "(W_UV,i W_O,i)：把 W_UV,i 一次性并进 W_O,i。K_C、V_C 从不生成，只读缓存（c_KV、K_R）。",
               d.C));
  Labels latent{.rows = tokens, .block = head_word(r.lang())};
  Labels square{.rows = tokens, .cols = tokens, .block = head_word(r.lang())};
  r.tensor("q_absorbed", a.q_absorbed, r.tr("Q_C,i W_UK,iᵀ: queries in latent space", "Q_C,i W_UK,iᵀ：潜空间里的查询"), latent);  // (H, T, C)
  r.tensor("scores_absorbed", a.scores_absorbed, r.tr("scores from the cache alone", "只用缓存算出的分数"), square);            // (H, T, T)
  r.tensor("W_UVO", a.W_UVO, r.tr("W_UV,i W_O,i, folded once per head", "W_UV,i W_O,i，每个头折叠一次"),
           Labels{.block = head_word(r.lang())});                                                                             // (H, C, D)
  r.tensor("context_latent", a.context_latent, r.tr("weights_i c_KV: attention over the latent", "weights_i c_KV：在潜向量上加权"), latent);  // (H, T, C)
  r.tensor("output_absorbed", a.output_absorbed, r.tr("Σ_i context_latent_i W_UVO_i", "Σ_i context_latent_i W_UVO_i"), Labels{.rows = tokens});  // (T, D)
  double ds = max_abs_diff(a.scores_absorbed, n.scores), dout = max_abs_diff(a.output_absorbed, n.output);
  r.value("absorb_scores_diff", ds, r.tr("max |scores_absorbed − scores|", "最大 |scores_absorbed − scores|"));
  r.value("absorb_output_diff", dout, r.tr("max |output_absorbed − output|", "最大 |output_absorbed − output|"));
  r.note(r.fmt("Same scores and same output up to rounding ({} and {}): absorption is an exact rewrite, not an "
               "approximation.",
               "分数和输出在舍入误差内完全相同（{} 和 {}）：吸收是精确的改写，不是近似。",
               fmt::format("{:.2e}", ds), fmt::format("{:.2e}", dout)));
}

void step_decode_cost(Recorder& r, const MlaDims& d) {
  r.step("decode_cost", r.tr("What absorption saves and costs per decoded token", "吸收在每个解码词上省了什么、花了什么"),
         r.tr("Generating one token attends to L cached tokens. Numbers read from the cache, and multiply-adds of the "
              "attention core, per layer (the query and latent projections are the same on every path). Without "
              "absorption a latent cache would have to be decompressed again at every step.",
              "生成一个词要对 L 个已缓存的词做注意力。下表是每层从缓存读出的数，以及注意力核心的乘加次数（查询和潜向量"
              "的投影在各条路径上都一样，不计入）。不做吸收的话，潜向量缓存每一步都得重新解压。"));
  auto names = [&](const std::string& id) -> std::string {
    if (id == "kv_cache") return r.tr("naive: cache K_C, V_C (and K_R)", "朴素：缓存 K_C、V_C（和 K_R）");
    if (id == "latent_reexpand") return r.tr("cache c_KV, K_R; decompress every step", "缓存 c_KV、K_R；每步重新解压");
    if (id == "absorbed_fold_wo") return r.tr("absorbed: W_UK into q, W_UV into W_O", "吸收：W_UK 并入 q，W_UV 并入 W_O");
    return r.tr("absorbed: W_UK into q, W_UV after attention", "吸收：W_UK 并入 q，注意力后再乘 W_UV");
  };
  auto table = [&](const MlaDims& dims, std::uint64_t L) {
    std::vector<DecodeCost> costs = mla_decode_costs(dims, L);
    Table t{{r.tr("path", "路径"), r.tr("cache read", "读缓存"), r.tr("multiply-adds", "乘加"),
             r.tr("read vs naive", "读取/朴素"), r.tr("MACs vs naive", "乘加/朴素")}, {}};
    for (const DecodeCost& c : costs)
      t.rows.push_back({names(c.id), static_cast<std::int64_t>(c.cache_read), static_cast<std::int64_t>(c.macs),
                        static_cast<double>(c.cache_read) / static_cast<double>(costs[0].cache_read),
                        static_cast<double>(c.macs) / static_cast<double>(costs[0].macs)});
    r.table(t);
    return costs;
  };
  r.value("context_run", I(d.T), r.tr("L for this run (its tokens)", "本次运行的 L（词数）"));
  table(d, d.T);
  DeepSeekCacheFacts f = deepseek_cache_facts();
  MlaDims v3{0, f.v3_d_model, f.v3_heads, f.v3_head_dim, f.v3_d_c, f.v3_d_cq, f.v3_d_R};
  r.value("context_v3", static_cast<std::int64_t>(kV3Context),
          r.fmt("L for DeepSeek-V3 (d {}, {} heads of {}, d_c {}, d_R {})", "DeepSeek-V3 的 L（d {}，{} 个 {} 维头，d_c {}，d_R {}）",
                v3.D, v3.H, v3.Dh, v3.C, v3.R));
  std::vector<DecodeCost> c = table(v3, kV3Context);
  r.note(r.fmt("At DeepSeek-V3's size the absorbed path reads {}× less from the cache than the naive one and does "
               "{}× its multiply-adds (each head now scores {} numbers per cached token instead of {}). Decoding is "
               "limited by memory reads, so that is a good trade; decompressing every step instead would cost {}×. "
               "Folding W_UV into W_O is exact but costs more when d_c > d_h (H·d_c·d — last two rows), which is why "
               "DeepSeek-V3's inference code applies W_UV after attention.",
               "在 DeepSeek-V3 的规模上，吸收路径从缓存读出的数据是朴素路径的 1/{}，乘加次数是它的 {} 倍（每个头对每个"
               "缓存词要算 {} 个数的点积，而不是 {} 个）。解码受限于显存读取，这笔交换很划算；若每步重新解压，乘加则是 "
               "{} 倍。把 W_UV 并入 W_O 是精确的，但在 d_c > d_h 时更贵（H·d_c·d，见最后两行），所以 DeepSeek-V3 的推理"
               "代码是在注意力之后再乘 W_UV。",
               fixed(static_cast<double>(c[0].cache_read) / static_cast<double>(c[3].cache_read), 1),
               fixed(static_cast<double>(c[3].macs) / static_cast<double>(c[0].macs), 2), f.v3_d_c + f.v3_d_R,
               f.v3_head_dim + f.v3_d_R, fixed(static_cast<double>(c[1].macs) / static_cast<double>(c[0].macs), 1)));
}

void step_rope_on_latent(Recorder& r, const MlaDims& d, const MlaWeights& w, const MlaNaive& n, bool causal,
                         const std::vector<std::string>& tokens) {
  r.step("rope_on_latent", r.tr("Why RoPE cannot rotate the compressed keys", "为什么 RoPE 不能旋转压缩的键"),
         r.tr("Suppose RoPE rotated K_C itself: key n becomes c_KV,n W_UK,i R_n and query m becomes Q_C,m R_m. "
              "Their product is Q_C,m R_m R_nᵀ W_UK,iᵀ c_KV,nᵀ: the rotation of key n sits between W_UK,i and the "
              "cache and is different for every position, so no single matrix can be folded into the query. "
              "Below: the scores RoPE on K_C means, and what the absorbed path computes with its one W_UK,i.",
              "假设 RoPE 直接旋转 K_C：第 n 个键变成 c_KV,n W_UK,i R_n，第 m 个查询变成 Q_C,m R_m。两者的乘积是 "
              "Q_C,m R_m R_nᵀ W_UK,iᵀ c_KV,nᵀ：第 n 个键的旋转夹在 W_UK,i 和缓存之间，而且每个位置都不同，所以没有哪一个"
              "固定矩阵能并进查询。下面是：RoPE 作用在 K_C 上本该得到的分数，以及吸收路径用它唯一的 W_UK,i 算出的分数。"));
  if (d.Dh % 2 != 0) {
    r.note(r.fmt("Skipped: d_h = {} is odd and RoPE rotates pairs; use an even --head-dim to see it.",
                 "跳过：d_h = {} 是奇数，而 RoPE 旋转的是一对对数；用偶数的 --head-dim 才能看到。", d.Dh));
    return;
  }
  RopeOnLatent rl = mla_rope_on_latent(n.c_KV, n.Q_C, n.K_C, w.W_UK, d, causal);
  Labels square{.rows = tokens, .cols = tokens, .block = head_word(r.lang())};
  r.tensor("scores_rope_on_latent", rl.scores, r.tr("RoPE(Q_C,i) RoPE(K_C,i)ᵀ / √d_h: RoPE on the compressed keys", "RoPE(Q_C,i) RoPE(K_C,i)ᵀ / √d_h：RoPE 作用在压缩的键上"), square);  // (H, T, T)
  r.tensor("scores_rope_on_latent_absorbed", rl.scores_absorbed, r.tr("(RoPE(Q_C,i) W_UK,iᵀ) c_KVᵀ / √d_h: the absorbed attempt", "(RoPE(Q_C,i) W_UK,iᵀ) c_KVᵀ / √d_h：吸收路径的尝试"), square);  // (H, T, T)
  const Tensor& by_key = r.tensor("rope_on_latent_mismatch_by_key", mismatch_by_key(rl.scores, rl.scores_absorbed),
                                  r.tr("max mismatch per key position (column)", "每个键位置（列）的最大差异"), Labels{.cols = tokens});  // (T)
  double mismatch = max_abs_diff(rl.scores, rl.scores_absorbed);
  r.value("rope_on_latent_mismatch", mismatch, r.tr("max |RoPE on K_C − its absorbed attempt|", "最大 |RoPE 作用于 K_C − 吸收尝试|"));
  r.value("rope_on_latent_first_key", by_key.data[0], r.tr("… in the first key column (position 0, not rotated)", "……第一列键（位置 0，不旋转）"));
  if (d.R > 0)
    r.value("decoupled_absorb_diff", max_abs_diff(r.get("scores_absorbed"), n.scores),
            r.tr("decoupled RoPE: max |scores_absorbed − scores|", "解耦 RoPE：最大 |scores_absorbed − scores|"));
  if (d.T == 1) {  // one token: the only key sits at position 0, whose rotation is the identity
    r.note(r.tr("With a single token there is only position 0, which RoPE does not rotate, so both scores agree. "
                "Run with --seq-len 2 or more to see the absorbed attempt break.",
                "只有一个词时只有位置 0，RoPE 不旋转它，所以两组分数一致。用 --seq-len 2 或更多才能看到吸收路径的尝试失败。"));
    return;
  }
  r.note(r.fmt("The absorbed path is off by up to {} — only the first key, whose rotation is the identity, still "
               "matches. Decoupled RoPE avoids this: K_R is cached already rotated and never goes through W_UK, so "
               "the content part absorbs exactly and the RoPE part is a plain product with the cache.",
               "吸收路径最多差了 {}——只有第一个键（旋转是恒等变换）还对得上。解耦 RoPE 绕开了这个问题：K_R 缓存时已经"
               "旋转好，也不经过 W_UK，所以内容部分可以精确吸收，RoPE 部分就是和缓存直接相乘。",
               fixed(mismatch, 4)));
}

void step_cache(Recorder& r, const MlaDims& d) {
  DeepSeekCacheFacts f = deepseek_cache_facts();
  r.step("cache", r.tr("Cache per token per layer", "每个词每层的缓存"),
         r.tr("MLA caches d_c + d_R numbers per token per layer (the latent and the shared RoPE key); an MHA with the "
              "same heads caches 2·h·d_h (a key and a value per head).",
              "MLA 每个词每层缓存 d_c + d_R 个数（潜向量和共享的 RoPE 键）；同样头数的 MHA 要缓存 2·h·d_h 个（每个头一个键、"
              "一个值）。"));
  auto u = [](std::uint64_t x) { return static_cast<std::int64_t>(x); };
  auto row = [&](const std::string& what, std::uint64_t mla, std::uint64_t base) -> std::vector<Scalar> {
    double q = static_cast<double>(mla) / static_cast<double>(base);
    return {what, u(mla), u(base), pct(q), "1/" + fixed(1.0 / q, 1)};
  };
  std::uint64_t run_mla = d.C + d.R, run_mha = 2 * d.H * d.Dh;
  r.value("cache_mla_run", u(run_mla), r.tr("this run: d_c + d_R", "本次运行：d_c + d_R"));
  r.value("cache_mha_run", u(run_mha), r.tr("this run: 2·h·d_h", "本次运行：2·h·d_h"));
  r.value("cache_mla_v3", u(f.v3_mla), r.tr("DeepSeek-V3: 512 + 64", "DeepSeek-V3：512 + 64"));
  r.value("cache_mha_v3", u(f.v3_mha), r.tr("MHA with V3's heads: 2·128·128", "V3 同样头数的 MHA：2·128·128"));
  r.table(Table{{r.tr("per token per layer", "每词每层"), "d_c + d_R", "2·h·d_h", r.tr("MLA / MHA", "MLA / MHA"), ""},
                {row(r.fmt("this run ({} + {} vs 2·{}·{})", "本次运行（{} + {} 对 2·{}·{}）", d.C, d.R, d.H, d.Dh), run_mla, run_mha),
                 row(r.fmt("DeepSeek-V3 ({} + {} vs 2·{}·{})", "DeepSeek-V3（{} + {} 对 2·{}·{}）", f.v3_d_c, f.v3_d_R, f.v3_heads, f.v3_head_dim),
                     f.v3_mla, f.v3_mha)}});
  if (run_mla >= run_mha)
    r.note(r.tr("This run's latent is not smaller than the heads' keys and values: choose --latent-dim well below 2·h·d_h.",
                "本次运行的潜向量并不比各头的键和值小：请把 --latent-dim 取得远小于 2·h·d_h。"));
  Table claims{{r.tr("compared against", "比较对象"), "MLA", r.tr("baseline", "基准"), r.tr("ratio", "比例"), ""}, {}};
  claims.rows.push_back(row(r.tr("MHA, same heads (V3, per layer, elements)", "同头数 MHA（V3，每层，元素）"), f.v3_mla, f.v3_mha));
  claims.rows.push_back(row(r.tr("GQA with 8 KV heads of 128 (per layer)", "8 个 128 维 KV 头的 GQA（每层）"), f.v3_mla, f.v3_gqa8));
  claims.rows.push_back(row(r.tr("V2 vs DeepSeek 67B, per token, both BF16 (bytes)", "V2 对 DeepSeek 67B，每词，都用 BF16（字节）"), f.v2_bytes_bf16, f.b67_bytes_bf16));
  claims.rows.push_back(row(r.tr("V2 at ~6 bits vs 67B in BF16 (bytes): the paper's 93.3%", "V2 约 6 bit 对 67B BF16（字节）：论文的 93.3%"), f.v2_bytes_6bit, f.b67_bytes_bf16));
  r.table(claims);
  double v3 = static_cast<double>(f.v3_mla) / static_cast<double>(f.v3_mha);
  double paper = static_cast<double>(f.v2_bytes_6bit) / static_cast<double>(f.b67_bytes_bf16);
  double same = static_cast<double>(f.v2_bytes_bf16) / static_cast<double>(f.b67_bytes_bf16);
  r.note(r.fmt("\"~7%\" (the conversation's table, against MHA = 100%) is DeepSeek-V2's reported \"93.3% less KV "
               "cache\" — measured against DeepSeek 67B, a GQA model, with V2's cache quantized to ~6 bits: {} kept. "
               "It does not hold against MHA: with the same heads MLA keeps {}, far less than 7%.",
               "“约 7%”（对话里那张表，以 MHA 为 100%）其实是 DeepSeek-V2 报告的“KV 缓存减少 93.3%”——比较对象是 "
               "DeepSeek 67B（一个 GQA 模型），并且 V2 的缓存量化到约 6 bit：剩 {}。拿 MHA 比就不成立了：同样头数下 MLA "
               "只剩 {}，远小于 7%。",
               pct(paper), pct(v3)));
  r.note(r.fmt("\"About 1/10\" matches no single comparison: 1/{} of an MHA cache, 1/{} of DeepSeek 67B at equal "
               "precision, 1/{} with the quantized cache, and against a modern 8-KV-head GQA only 1/{}.",
               "“约 1/10”对不上任何一个具体比较：是 MHA 缓存的 1/{}，同精度下 DeepSeek 67B 的 1/{}，量化缓存时的 1/{}，"
               "而对现代 8 个 KV 头的 GQA 只有 1/{}。",
               fixed(1.0 / v3, 1), fixed(1.0 / same, 1), fixed(1.0 / paper, 1),
               fixed(static_cast<double>(f.v3_gqa8) / static_cast<double>(f.v3_mla), 1)));
}

Trace run(const LessonConfig& c) {
  Recorder r("mla", c.lang);
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  MlaDims d = resolve_dims(c, tokens.size());
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("head_dim", I(d.Dh));
  r.config("latent_dim", I(d.C));
  r.config("q_latent_dim", I(d.Cq));
  r.config("rope_dim", I(d.R));

  Rng rng(static_cast<std::uint64_t>(c.seed));
  Tensor X = randn(rng, {d.T, d.D});       // (T, D)
  MlaWeights w = init_mla_weights(rng, d);
  MlaNaive n = mla_naive(X, w, d, c.causal);
  MlaAbsorbed a = mla_absorbed(n.c_KV, n.K_R, n.Q_C, n.Q_R, w, d, c.causal);

  Labels rows{.rows = tokens};
  r.step("input", r.tr("The input X", "输入 X"),
         r.fmt("MLA's idea (DeepSeek-V2/V3): do not cache every head's K and V ({} numbers per token per layer "
               "here); cache one small latent per token and decompress when needed. d_model {}, {} heads of d_h {}, "
               "d_c {}, d_R {}{}.",
               "MLA 的思路（DeepSeek-V2/V3）：不缓存每个头的 K 和 V（这里每个词每层 {} 个数），而是每个词只缓存一个小的潜"
               "向量，用时再解压。d_model {}，{} 个头、每头 d_h {}，d_c {}，d_R {}{}。",
               2 * d.H * d.Dh, d.D, d.H, d.Dh, d.C, d.R,
               d.Cq ? r.fmt(", d_c' {}", "，d_c' {}", d.Cq) : std::string()));
  r.tensor("X", X, r.tr("one row per token", "每个词一行"), rows);
  step_compress(r, d, w, n, rows);
  step_queries(r, d, w, n, rows);
  if (d.R > 0) step_rope(r, d, w, n, rows);
  step_attend(r, d, w, n, tokens);
  step_absorb(r, d, n, a, tokens);
  step_decode_cost(r, d);
  step_rope_on_latent(r, d, w, n, c.causal, tokens);
  step_cache(r, d);
  return r.finish();
}

}  // namespace

extern const LessonInfo mla_lesson = {
    "mla", {"--tokens", "--seq-len", "--d-model", "--heads", "--head-dim", "--latent-dim", "--q-latent-dim", "--rope-dim",
     "--causal"},
    run};

}  // namespace attn
