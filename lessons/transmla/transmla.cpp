// Lesson `transmla`: a GQA layer is an MLA layer (TransMLA, Meng et al., arXiv:2502.07864), then
// compressed. The GQA layer; the same layer rewritten as MLA (latent [K | V], copy up-projections)
// with the same output and the same cache; the SVD of the joint K/V projection; the layer at a
// smaller latent r; output error against cache size over every r; what absorption buys at decode;
// how TransMLA and MHA2MLA (Ji et al., arXiv:2502.14837) deal with RoPE.
// Legend: T tokens, D = d_model, H heads, G KV heads, Dh = d_h, C = d_c = 2·G·Dh, r the
// compressed latent, K = min(D, C). Math: src/math/transmla.h, svd.h, mla.h, decode.h. Words:
// lessons/transmla/LANG.cat. Real sizes run (Llama 3 8B's: D 4096, H 32, G 8, Dh 128, C 2048): the
// SVD is svd()'s Gram method there, the rank-r up-projections are gathered (compress_gqa_latent),
// and the sweep takes a few ranks (--ranks) instead of all K.
#include <algorithm>

#include "attention.h"
#include "decode.h"
#include "decode/gpu_reference.h"
#include "errors.h"
#include "lesson.h"
#include "mla.h"
#include "models.h"
#include "random.h"
#include "svd.h"
#include "transmla.h"

namespace attn {

namespace {

constexpr std::uint64_t kContext = 8192;  // decode costs at an 8K context (TransMLA's speed-up is quoted there)
constexpr std::size_t kTransMlaLatent = 512, kTransMlaRope = 64;  // TransMLA's suggested kv-lora-rank and qk-mqa-dim
// MHA2MLA's "92.19% smaller" for Llama2-7B: its low-rank cache keeps this share of the numbers, each
// quantized from 16 to 4 bits (1 − 0.3125 · 4/16 = 0.921875).
constexpr double kMha2MlaKept = 0.3125;
constexpr int kMha2MlaBits = 4, kBf16Bits = 16;
// The sweep's ranks without --ranks: every r = 1 … K up to this K (the chapter-size runs), else
// K/8, K/4, K/2 and K (a forward of the layer each; every rank at Llama 3 8B's K = 2048 would be
// 2048 forwards). Stated in --help (transmla.opt.ranks) and in the sweep step.
constexpr std::size_t kSweepEveryRankMax = 64;
// A number streamed from memory (read by a product of a few rows, or copied) costs about this many
// multiply-adds' time: a rank of the sweep at Llama 3 8B's sizes reads W_Q, W_O and its own factors
// and up-projections, about 62 million numbers, in 0.19 s of CPU on the 2-core machine.
constexpr double kStreamMadds = 32;

struct TransMlaOptions : RunContext {
  std::optional<std::string> tokens;          // --tokens
  std::optional<std::int64_t> seq_len;        // --seq-len
  std::optional<std::int64_t> d_model;        // --d-model
  std::optional<std::int64_t> heads;          // --heads
  std::optional<std::int64_t> kv_heads;       // --kv-heads
  std::optional<std::int64_t> head_dim;       // --head-dim
  std::optional<std::int64_t> latent_dim;     // --latent-dim: the compressed r shown in detail
  std::optional<std::int64_t> bytes_per_number;  // --bytes-per-number: 2 = bf16
  std::optional<std::string> ranks;           // --ranks: the sweep's ranks, comma-separated
  bool causal = false;                        // --causal
};

void bind(OptionBinder& b, TransMlaOptions& o) {
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.integer("--kv-heads", o.kv_heads);
  b.integer("--head-dim", o.head_dim);
  b.integer("--latent-dim", o.latent_dim);
  b.integer("--bytes-per-number", o.bytes_per_number);
  b.text("--ranks", o.ranks);
  b.toggle("--causal", o.causal);
}

struct Settings {
  TransMlaDims d;
  std::size_t K;      // min(D, C): the most singular values
  std::size_t r;      // the compressed latent shown in detail
  std::size_t bytes;  // per cached number
  std::vector<std::size_t> ranks;  // the sweep's, ascending
};

// The sweep's ranks: --ranks "r1,r2,…" (whole numbers 1 … K, each once, any order; sorted here), or
// the default above.
std::vector<std::size_t> sweep_ranks(const std::optional<std::string>& text, std::size_t K) {
  std::vector<std::size_t> out;
  if (!text) {
    if (K <= kSweepEveryRankMax)
      for (std::size_t k = 1; k <= K; ++k) out.push_back(k);
    else
      out = {K / 8, K / 4, K / 2, K};
    return out;
  }
  const std::string& spec = *text;
  for (std::size_t start = 0; start <= spec.size();) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    std::string item = spec.substr(start, comma - start);
    const std::size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? std::string() : item.substr(b, e - b + 1);
    if (item.empty()) throw UsageError("transmla.err.ranks_empty", {{"flag", "--ranks"}, {"value", spec}, {"max", K}});
    if (item.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError("transmla.err.ranks_not_whole", {{"flag", "--ranks"}, {"value", item}, {"max", K}});
    const std::size_t digits = item.find_first_not_of('0');
    const std::size_t value = digits == std::string::npos ? 0 : item.size() - digits > 18 ? K + 1 : std::stoull(item);
    if (value < 1 || value > K) throw UsageError("transmla.err.ranks_range", {{"flag", "--ranks"}, {"value", item}, {"max", K}});
    out.push_back(value);
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  for (std::size_t k = 1; k < out.size(); ++k)
    if (out[k] == out[k - 1]) throw UsageError("transmla.err.ranks_twice", {{"flag", "--ranks"}, {"value", out[k]}});
  return out;
}

// The sizes, checked; then the run's work in four parts, each named in a refusal with the flags
// that shrink it (`rec` gives their words). Multiply-adds as the code does them: the SVD (Jacobi:
// about 10 sweeps of K²/2 column pairs, 5 passes of max(D, C) each; Gram: W's Gram matrix, the
// eigen-decomposition and U = W V, about 1.5·M'·K² + 4.2·K³, M' = max(D, C)), a forward of the layer
// per rank of the sweep, the four forwards shown, the fold of the absorbed path (H·r·Dh·D) and
// the reconstruction check (D·K·C), and the numbers shown.
Settings resolve(const TransMlaOptions& c, std::size_t T, const LessonRecorder& rec) {
  Settings s{};
  TransMlaDims& d = s.d;
  d.T = T;
  d.D = positive(c.d_model, 16, "--d-model");
  if (d.D < 2)  // K = min(D, 2·g·d_h) must leave a rank to drop, and the sweep two points to chart
    throw UsageError("transmla.err.d_model_min", {{"flag", "--d-model"}, {"value", d.D}});
  d.H = positive(c.heads, 8, "--heads");
  d.G = positive(c.kv_heads, 2, "--kv-heads");
  require_divisible(d.H, "--heads", d.G, "--kv-heads");
  std::string hd = "--heads, --kv-heads or --head-dim";
  d.Dh = positive(c.head_dim, std::max<std::size_t>(1, d.D / d.H), "--head-dim");
  require_fits({T, d.D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({d.D, d.H, d.Dh}, "W_Q", "--d-model, " + hd);
  require_fits({d.D, 2, d.G, d.Dh}, "W_DKV", "--d-model, " + hd);
  require_fits({2, d.G, d.Dh, d.H, d.Dh}, "W_UK", hd);
  require_fits({d.H, T, T}, "the scores", "--seq-len/--tokens or --heads");
  require_fits({T, d.H, d.Dh}, "K_C", "--seq-len/--tokens, " + hd);
  s.K = std::min(d.D, d.C());
  s.r = positive(c.latent_dim, std::max<std::size_t>(1, s.K / 2), "--latent-dim");
  if (s.r > s.K)
    throw UsageError("transmla.err.latent_dim", {{"flag", "--latent-dim"}, {"value", s.r}, {"max", s.K}});
  require_fits({d.H, s.r, d.D}, "W_UVO", "--latent-dim, --heads or --d-model");
  s.bytes = positive(c.bytes_per_number, 2, "--bytes-per-number");
  if (s.bytes > 8) throw UsageError("transmla.err.too_many", {{"flag", "--bytes-per-number"}, {"max", 8}});
  s.ranks = sweep_ranks(c.ranks, s.K);

  const double D = static_cast<double>(d.D), C = static_cast<double>(d.C()), K = static_cast<double>(s.K);
  const double HDh = static_cast<double>(d.H * d.Dh), H = static_cast<double>(d.H), GDh = static_cast<double>(d.G * d.Dh);
  const double r = static_cast<double>(s.r), M = std::max(D, C), n = static_cast<double>(s.ranks.size());
  double ranks_sum = 0;
  for (std::size_t k : s.ranks) ranks_sum += static_cast<double>(k);
  const bool jacobi = s.K <= kJacobiMaxRank;
  const WorkPart svd_part{rec.t("work.svd", {{"rows", d.D}, {"cols", d.C()}}),
                          jacobi ? 10 * K * K / 2 * M * 5 : 1.5 * M * K * K + 4.2 * K * K * K, 0,
                          "--d-model, --kv-heads, --head-dim", jacobi ? M * K + K * K : 5 * K * K + 3 * M * K};
  const std::string sweep_what = rec.t("work.sweep", {{"n", s.ranks.size()}});
  const std::string layers_what = rec.t("work.layers", {{"heads", d.H}, {"r", s.r}, {"d_model", d.D}});
  const std::string shown_what = rec.t("work.shown");
  require_work([&](double Tn) {
    // One forward of the layer at latent width w: Q, the latent, K_C and V_C, the scores and sums, W_O.
    auto forward = [&](double w) { return Tn * D * HDh + Tn * D * w + 2 * Tn * w * HDh + 2 * Tn * Tn * HDh + Tn * HDh * D; };
    // The weights of a rank-w layer: its factors, its up-projections, and W_Q and W_O.
    auto weights = [&](double w) { return D * w + w * C + 2 * w * HDh + 2 * D * HDh; };
    // The sweep: a forward per rank, which streams W_Q, W_O and the rank's factors and
    // up-projections (written, then read).
    WorkPart sweep{sweep_what,
                   n * forward(0) + ranks_sum * (Tn * D + 2 * Tn * HDh) +
                       kStreamMadds * (n * 2 * D * HDh + 2 * ranks_sum * (D + C + 2 * HDh)),
                   0, "--ranks, --seq-len/--tokens", weights(static_cast<double>(s.ranks.back())) + H * Tn * Tn * 4};
    // The GQA layer, its MLA rewrite, the rank-r layer and its absorbed path (with the fold), the
    // reconstruction check; held: the fold, the rank-r layer's copy of W_Q and W_O, the full-rank factors and product.
    WorkPart layers{layers_what,
                    Tn * D * (HDh + 2 * GDh) + 2 * Tn * Tn * HDh + Tn * HDh * D + forward(C) + forward(r) + H * r * d.Dh * D +
                        Tn * HDh * r + 2 * Tn * Tn * H * r + Tn * H * r * D + D * K * C + kStreamMadds * 4 * D * HDh,
                    0, "--latent-dim, --seq-len/--tokens, --heads, --head-dim",
                    H * r * D + 2 * D * HDh + D * K + K * C + D * C + H * Tn * Tn * 12};
    WorkPart shown{shown_what, 0,
                   Tn * (6 * D + 2 * C + 2 * HDh + r) + 2 * D * HDh + 2 * D * GDh + D * C + 2 * C * HDh + K + D * r +
                       2 * r * HDh + 4 * n,
                   "--d-model, --heads, --kv-heads, --head-dim"};
    return Work({svd_part, sweep, layers, shown});
  }, T, "--seq-len/--tokens", "--seq-len/--tokens, --d-model, " + hd + ", --ranks");
  return s;
}

// Everything the lesson shows, computed before any narration.
struct TransMla {
  Tensor X, W_Q, W_K, W_V, W_O;   // (T, D), (D, H*Dh), (D, G*Dh) ×2, (H*Dh, D); W_Q and W_O let go once in `exact`
  AttentionPass gqa;              // the GQA layer
  MlaWeights exact;               // the same layer as MLA: W_DKV (D, C), W_UK, W_UV (C, H*Dh)
  MlaNaive mla;                   // its forward
  Svd svd;                        // of W_DKV: U (D, K), S (K), V (C, K)
  double svd_reconstruction = 0;  // max |U diag(S) Vᵀ − W_DKV|
  MlaWeights low;                 // rank r
  MlaNaive mla_r;                 // its forward
  MlaAbsorbed absorbed_r;         // the absorbed path on the rank-r cache
  RankSweep sweep;                // every rank
  std::vector<VariantCost> run_exact, run_r;       // per decoded token at kContext, this run's dims
  std::vector<VariantCost> llama_exact, llama_r;   // Llama 3 8B: C = 2·g·d_h, and TransMLA's 512 + 64
  ModelConfig llama;
};

TransMla compute(const Settings& s, std::uint64_t seed, bool causal) {
  const TransMlaDims& d = s.d;
  Rng rng(seed);
  TransMla m;
  m.X = randn(rng, {d.T, d.D});
  m.W_Q = init_weight(rng, d.D, d.H * d.Dh);
  m.W_K = init_weight(rng, d.D, d.G * d.Dh);
  m.W_V = init_weight(rng, d.D, d.G * d.Dh);
  m.W_O = init_weight(rng, d.H * d.Dh, d.D);
  m.gqa = grouped_attention(m.X, m.W_Q, m.W_K, m.W_V, m.W_O, d.H, d.G, causal);
  m.exact = gqa_as_mla(m.W_Q, m.W_K, m.W_V, m.W_O, d.H, d.G);
  m.W_Q = m.W_O = Tensor();  // exact.W_Q and exact.W_O are the same numbers, shown in step gqa
  m.mla = mla_naive(m.X, m.exact, transmla_mla_dims(d, d.C()), causal);
  m.svd = svd(m.exact.W_DKV);  // Jacobi at the chapter's sizes, the Gram method at real ones (svd.h)
  {
    LowRank full = truncate_svd(m.svd, s.K);
    m.svd_reconstruction = max_abs_diff(matmul(full.left, full.right), m.exact.W_DKV);
  }
  m.low = compress_gqa_latent(m.exact, m.svd, s.r, d.H, d.G);
  MlaDims dr = transmla_mla_dims(d, s.r);
  m.mla_r = mla_naive(m.X, m.low, dr, causal);
  m.absorbed_r = mla_absorbed(m.mla_r.c_KV, Tensor(), m.mla_r.Q_C, Tensor(), m.low, dr, causal);
  // What the narration does not show is let go as soon as it is used: at Llama 3 8B's sizes the
  // fold is 1 GiB, and W_Q and W_O 268 MB a copy.
  m.absorbed_r.W_UVO = Tensor();
  m.low.W_Q = m.low.W_O = Tensor();
  m.sweep = latent_rank_sweep(m.X, m.exact, m.svd, d, m.gqa.output, causal, s.ranks);
  m.svd.U = m.svd.V = Tensor();
  m.run_exact = decode_variant_costs(VariantDims{d.H, d.G, d.Dh, d.C(), 0}, kContext);
  m.run_r = decode_variant_costs(VariantDims{d.H, d.G, d.Dh, s.r, 0}, kContext);
  m.llama = load_preset("llama-3-8b");
  std::size_t lh = m.llama.n_h, lg = m.llama.n_g, ldh = m.llama.d_h;
  m.llama_exact = decode_variant_costs(VariantDims{lh, lg, ldh, 2 * lg * ldh, 0}, kContext);
  m.llama_r = decode_variant_costs(VariantDims{lh, lg, ldh, kTransMlaLatent, kTransMlaRope}, kContext);
  return m;
}

// The steps move the weights into the trace (no step reads them after showing them), so a run at
// real sizes holds one copy of them.
void step_gqa(LessonRecorder& r, const Settings& s, TransMla& m, const Labels& rows) {
  const TransMlaDims& d = s.d;
  r.step("gqa", {{"heads", d.H}, {"kv_heads", d.G}, {"d_h", d.Dh}, {"per_group", d.H / d.G}, {"cache", d.C()}});
  r.tensor("X", m.X, rows);            // (T, D)
  r.tensor("W_Q", std::move(m.exact.W_Q));  // (D, H*Dh), the GQA layer's (gqa_as_mla keeps it as it is)
  r.tensor("W_K", std::move(m.W_K));        // (D, G*Dh)
  r.tensor("W_V", std::move(m.W_V));        // (D, G*Dh)
  r.tensor("W_O", std::move(m.exact.W_O));  // (H*Dh, D)
  r.tensor("output_gqa", m.gqa.output, rows);  // (T, D)
}

void step_rewrite(LessonRecorder& r, const Settings& s, TransMla& m, const Labels& rows) {
  const TransMlaDims& d = s.d;
  r.step("rewrite", {{"d_c", d.C()}, {"kv_heads", d.G}, {"d_h", d.Dh}, {"heads", d.H}});
  r.tensor("W_DKV", std::move(m.exact.W_DKV));  // (D, C)
  r.tensor("W_UK", std::move(m.exact.W_UK));    // (C, H*Dh)
  r.tensor("W_UV", std::move(m.exact.W_UV));    // (C, H*Dh)
  r.tensor("c_KV", m.mla.c_KV, rows);  // (T, C)
  r.tensor("K_C", m.mla.K_C, rows);    // (T, H*Dh)
  r.tensor("output_mla", m.mla.output, rows);  // (T, D)
  double diff = max_abs_diff(m.mla.output, m.gqa.output);
  double kdiff = max_abs_diff(m.mla.K_C, merge_heads(m.gqa.K_expanded));
  r.value("rewrite_output_diff", diff);
  r.value("rewrite_keys_diff", kdiff);
  r.value("cache_gqa", I(d.C()));
  r.value("cache_mla", I(m.mla.c_KV.dim(1)));
  r.note("rewrite.note", {{"diff", diff}, {"d_c", d.C()}, {"mha", 2 * d.H * d.Dh}});
}

void step_svd(LessonRecorder& r, const Settings& s, const TransMla& m) {
  const bool jacobi = m.svd.method == SvdMethod::Jacobi;
  r.step("svd", {{"d_model", s.d.D}, {"d_c", s.d.C()}, {"K", s.K}, {"method", jacobi ? "jacobi" : "gram"},
                 {"jacobi_max", kJacobiMaxRank}});
  r.tensor("singular_values", m.svd.S);  // (K)
  if (jacobi) r.value("svd_sweeps", static_cast<std::int64_t>(m.svd.sweeps));
  else r.value("svd_qr_steps", static_cast<std::int64_t>(m.svd.qr_steps));
  r.value("svd_reconstruction", m.svd_reconstruction);
  r.note("svd.note", {{"r", s.r}, {"share", 100.0 * singular_value_energy(m.svd.S, s.r)}, {"diff", m.svd_reconstruction}});
}

void step_compress(LessonRecorder& r, const Settings& s, TransMla& m, const Labels& rows) {
  r.step("compress", {{"r", s.r}, {"d_c", s.d.C()}});
  r.tensor("W_DKV_r", std::move(m.low.W_DKV));  // (D, r)
  r.tensor("W_UK_r", std::move(m.low.W_UK));    // (r, H*Dh)
  r.tensor("W_UV_r", std::move(m.low.W_UV));    // (r, H*Dh)
  r.tensor("c_KV_r", m.mla_r.c_KV, rows);  // (T, r)
  r.tensor("output_r", m.mla_r.output, rows);  // (T, D)
  double err = max_abs_diff(m.mla_r.output, m.gqa.output);
  double rel = relative_frobenius_error(m.mla_r.output, m.gqa.output);
  r.value("error_r", err);
  r.value("rel_error_r", rel);
  r.note("compress.note", {{"r", s.r}, {"d_c", s.d.C()}, {"percent", 100.0 * static_cast<double>(s.r) / static_cast<double>(s.d.C())},
                           {"rel", 100.0 * rel}});
}

void step_sweep(LessonRecorder& r, const Settings& s, const TransMla& m) {
  const std::size_t n = s.ranks.size();
  const bool every = n == s.K, has_full = s.ranks.back() == s.K;
  std::vector<std::string> ranks;  // "256, 512, 1024 and 2048" in English; each language lists its own way
  for (std::size_t k = 0; k < n; ++k) ranks.push_back(std::to_string(s.ranks[k]));
  const std::string list = r.list(ranks);
  r.step("sweep", {{"K", s.K}, {"d_c", s.d.C()}, {"every", every}, {"n", n}, {"list", list}, {"has_full", has_full},
                   {"every_max", kSweepEveryRankMax}});
  Table t{{r.t("sweep.col.r"), r.t("sweep.col.cache"), r.t("sweep.col.share"), r.t("sweep.col.max_error"),
           r.t("sweep.col.rel_error")},
          {}};
  for (std::size_t k = 0; k < n; ++k)
    t.rows.push_back({I(s.ranks[k]), I(s.ranks[k] * s.bytes), m.sweep.cache_share.data[k], m.sweep.max_error.data[k],
                      m.sweep.rel_error.data[k]});
  r.table(t);
  r.tensor("rank", m.sweep.rank);               // (n)
  r.tensor("cache_share", m.sweep.cache_share); // (n)
  r.tensor("rel_error", m.sweep.rel_error);     // (n)
  r.tensor("max_error", m.sweep.max_error);     // (n)
  r.chart(Chart{r.t("sweep.chart"), "rank", {"rel_error", "cache_share"}});
  const double s_max = m.svd.S.data.front(), s_min = m.svd.S.data.back();
  r.note("sweep.note", {{"K", s.K}, {"has_full", has_full}, {"full_error", m.sweep.max_error.data.back()}, {"s_max", s_max},
                        {"s_min", s_min}, {"spread", s_min > 0.0 ? s_max / s_min : 0.0}});
}

void cost_rows(LessonRecorder& r, Table& t, const std::string& model, const std::vector<VariantCost>& exact,
               const std::vector<VariantCost>& low, std::size_t r_label, std::size_t rope, std::size_t c_label, std::size_t bytes) {
  const VariantCost& base = exact[1];  // gqa
  auto row = [&](const std::string& what, const VariantCost& v) {
    t.rows.push_back({model, what, static_cast<std::int64_t>(v.per_token), static_cast<std::int64_t>(v.cache_read * bytes),
                      static_cast<std::int64_t>(v.macs), static_cast<double>(v.cache_read) / static_cast<double>(base.cache_read),
                      static_cast<double>(v.macs) / static_cast<double>(base.macs)});
  };
  row(r.t("absorb.row.gqa"), exact[1]);
  row(r.t("absorb.row.naive"), exact[3]);
  row(r.t("absorb.row.absorbed", {{"c", c_label}, {"has_rope", false}, {"rope", 0}}), exact[4]);
  row(r.t("absorb.row.absorbed", {{"c", r_label}, {"has_rope", rope > 0}, {"rope", rope}}), low[4]);
}

void step_absorb(LessonRecorder& r, const Settings& s, const TransMla& m, const Labels& rows) {
  r.step("absorb", {{"r", s.r}, {"context", kContext}, {"bytes", s.bytes}});
  r.tensor("output_absorbed_r", m.absorbed_r.output_absorbed, rows);  // (T, D)
  double diff = max_abs_diff(m.absorbed_r.output_absorbed, m.mla_r.output);
  r.value("absorb_diff", diff);
  Table t{{r.t("absorb.col.model"), r.t("absorb.col.path"), r.t("absorb.col.per_token"), r.t("absorb.col.bytes"),
           r.t("absorb.col.macs"), r.t("absorb.col.read_ratio"), r.t("absorb.col.macs_ratio")},
          {}};
  cost_rows(r, t, r.t("absorb.model.run"), m.run_exact, m.run_r, s.r, 0, s.d.C(), s.bytes);
  std::size_t lc = 2 * m.llama.n_g * m.llama.d_h;
  cost_rows(r, t, r.t("absorb.model.llama", {{"heads", m.llama.n_h}, {"kv_heads", m.llama.n_g}, {"d_h", m.llama.d_h}}), m.llama_exact, m.llama_r, kTransMlaLatent, kTransMlaRope, lc, s.bytes);
  r.table(t);
  const VariantCost &g = m.llama_exact[1], &ex = m.llama_exact[4], &lo = m.llama_r[4];
  r.note("absorb.note", {{"diff", diff}, {"exact_macs", static_cast<double>(ex.macs) / static_cast<double>(g.macs)},
                         {"heads", m.llama.n_h}, {"d_c", lc}, {"latent", kTransMlaLatent}, {"rope", kTransMlaRope},
                         {"read", static_cast<double>(g.cache_read) / static_cast<double>(lo.cache_read)},
                         {"macs", static_cast<double>(lo.macs) / static_cast<double>(g.macs)}});
  // Where trading multiply-adds for bytes pays: the absorbed path's FLOP per byte against a GPU's balance point.
  const double intensity = 2.0 * static_cast<double>(lo.macs) / static_cast<double>(lo.cache_read * s.bytes);
  r.value("absorbed_flop_per_byte", intensity);
  r.note("absorb.note_bound", {{"gpu", kGpuName}, {"gpu_balance", kGpuBalance}, {"intensity", intensity}, {"bytes", s.bytes},
                               {"below", intensity < kGpuBalance}});
}

void step_rope(LessonRecorder& r) {
  r.step("rope");
  r.note("rope.note_transmla");
  const double kept = kMha2MlaKept * kMha2MlaBits / kBf16Bits;
  r.note("rope.note_mha2mla", {{"pct", 100.0 * (1.0 - kept)}, {"share", 100.0 * kMha2MlaKept}, {"share_frac", kMha2MlaKept},
                               {"bits", kMha2MlaBits}, {"full_bits", kBf16Bits}, {"lowrank", 100.0 * (1.0 - kMha2MlaKept)}});
}

Trace run(const TransMlaOptions& c) {
  LessonRecorder r("transmla", c.lang, {"transmla"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  Settings s = resolve(c, token_count(c, defaults), r);  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_common_config(r, c, tokens);
  r.config("d_model", I(s.d.D));
  r.config("n_heads", I(s.d.H));
  r.config("n_kv_heads", I(s.d.G));
  r.config("head_dim", I(s.d.Dh));
  r.config("latent_dim", I(s.r));
  r.config("bytes_per_number", I(s.bytes));
  TransMla m = compute(s, static_cast<std::uint64_t>(c.seed), c.causal);

  Labels rows{.rows = tokens};
  step_gqa(r, s, m, rows);
  step_rewrite(r, s, m, rows);
  step_svd(r, s, m);
  step_compress(r, s, m, rows);
  step_sweep(r, s, m);
  step_absorb(r, s, m, rows);
  step_rope(r);
  return r.finish();
}

}  // namespace

extern const LessonInfo transmla_lesson = lesson_info<TransMlaOptions>("transmla", bind, run);

}  // namespace attn
