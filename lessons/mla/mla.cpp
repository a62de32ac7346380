// Lesson `mla`: DeepSeek-V2/V3's Multi-head Latent Attention (the conversation's MLA half).
//   X -> c_KV (cached) -> K_C, V_C per head; queries (optionally through c_Q); decoupled RoPE
//   (Q_R per head, one shared K_R, cached); naive path vs absorbed path; why RoPE on K_C would
//   break absorption; the cache per token per layer, for this run and for DeepSeek-V3.
// Legend: T tokens, D = d_model, H heads, Dh = d_h, C = d_c, Cq = d_c', R = d_R. Math: src/math/mla.h.
// Words: lessons/mla/LANG.cat.
#include <fmt/format.h>

#include "attention.h"
#include "deepseek_facts.h"
#include "errors.h"
#include "lesson.h"
#include "locate.h"
#include "mla.h"
#include "random.h"
#include "real_weights.h"
#include "rope.h"

namespace attn {

namespace {

constexpr std::uint64_t kV3Context = 4096;  // the context length used for DeepSeek-V3's decode costs

// Table cells: a share as "1.76%" and its inverse as "1/56.9".
std::string pct(double x) { return fmt::format("{:.2f}%", 100.0 * x); }
std::string one_in(double q) { return fmt::format("1/{:.1f}", 1.0 / q); }
double ratio(std::uint64_t a, std::uint64_t b) { return static_cast<double>(a) / static_cast<double>(b); }

// The lesson's options (lang and seed come with every run).
struct MlaOptions : RunContext {
  std::optional<std::string> tokens;  // --tokens
  std::optional<std::int64_t> seq_len;  // --seq-len
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> heads;  // --heads
  std::optional<std::int64_t> head_dim;  // --head-dim
  std::optional<std::int64_t> latent_dim;  // --latent-dim
  std::optional<std::int64_t> q_latent_dim;  // --q-latent-dim
  std::optional<std::int64_t> rope_dim;  // --rope-dim
  bool causal = false;  // --causal
  std::optional<std::string> weights, text, token_ids;  // a trained MLA checkpoint and the learner's sentence
  std::optional<std::int64_t> layer;
};

void bind(OptionBinder& b, MlaOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.integer("--head-dim", o.head_dim);
  b.integer("--latent-dim", o.latent_dim);
  b.integer("--q-latent-dim", o.q_latent_dim);
  b.integer("--rope-dim", o.rope_dim);
  b.toggle("--causal", o.causal);
}

MlaDims resolve_dims(const MlaOptions& c, std::size_t T, const LessonRecorder& rec) {
  MlaDims d{T, positive(c.d_model, 8, "--d-model"), positive(c.heads, 2, "--heads"),
            positive(c.head_dim, 4, "--head-dim"), positive(c.latent_dim, 4, "--latent-dim")};
  if (c.q_latent_dim) d.Cq = positive(c.q_latent_dim, 0, "--q-latent-dim");
  if (c.rope_dim && *c.rope_dim < 0)
    throw UsageError("mla.err.rope_dim_negative", {{"flag", "--rope-dim"}, {"value", *c.rope_dim}});
  d.R = c.rope_dim ? (*c.rope_dim == 0 ? 0 : positive(c.rope_dim, 0, "--rope-dim")) : 2;
  if (d.R % 2 != 0)
    throw UsageError("mla.err.rope_dim_odd", {{"flag", "--rope-dim"}, {"value", d.R}, {"next", d.R + 1}});
  std::string hd = "--heads or --head-dim";
  {
    // The naive path (compress, decompress per head, plain MHA) and the absorbed one (attend to
    // the latent), RoPE on both, and the RoPE-on-latent demonstration: every (H, T, T) twice.
    double D = static_cast<double>(d.D), H = static_cast<double>(d.H), Dh = static_cast<double>(d.Dh);
    double C = static_cast<double>(d.C), Cq = static_cast<double>(d.Cq), R = static_cast<double>(d.R);
    // In three parts, each named in a refusal with the flags that shrink it: the absorbed path's
    // fold W_UV,i W_O,i (H, C, D), made and applied; the other weights and the projections through
    // them; the attention over the tokens.
    double weights = D * (C + R) + (Cq > 0 ? D * Cq + Cq * H * (Dh + R) : D * H * (Dh + R)) + 2.0 * C * H * Dh + H * Dh * D;
    const std::string fold_what = rec.t("work.fold", {{"heads", d.H}, {"d_c", d.C}, {"d_model", d.D}});
    const std::string weights_what = rec.t("work.weights");
    const std::string attention_what = rec.t("work.attention");
    require_work([&](double t) {
      return Work({WorkPart{fold_what, H * C * Dh * D + 2.0 * t * H * C * D, 2.0 * H * C * D, "--heads, --latent-dim, --d-model"},
                   WorkPart{weights_what, t * weights, weights, "--d-model, --heads, --head-dim, --q-latent-dim, --rope-dim"},
                   WorkPart{attention_what, t * C * H * Dh * 2.0 + t * t * H * (4.0 * Dh + 2.0 * C + 2.0 * R),
                            t * (D + C + R) + 8.0 * t * H * (Dh + R) + 2.0 * t * H * C + 10.0 * H * t * t,
                            "--seq-len/--tokens, --heads, --latent-dim"}});
    }, T, "--seq-len/--tokens", "--seq-len/--tokens, --d-model, --heads, --head-dim, --latent-dim, --q-latent-dim, --rope-dim");
  }
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

// Everything the lesson shows, computed before any narration.
struct Mla {
  Tensor X;                 // (T, D)
  MlaWeights w;             // drawn after X, in init_mla_weights' order
  MlaNaive n;               // the naive path: decompress, then plain MHA
  MlaAbsorbed a;            // the absorbed path: attend to the cache (c_KV, K_R) directly
  bool rope_on_latent;      // d_h even: RoPE on K_C can be shown
  RopeOnLatent rl;          // (H, T, T) × 2, when rope_on_latent
  Tensor mismatch_by_key;   // (T), when rope_on_latent
  std::vector<DecodeCost> costs_run, costs_v3;  // per decoded token, L = T and L = 4096
  MlaDims v3;               // DeepSeek-V3's sizes
};

// The absorbed path, the RoPE-on-latent demonstration and the decode costs, from m.X, m.w and m.n.
void derive(Mla& m, const MlaDims& d, bool causal) {
  m.a = mla_absorbed(m.n.c_KV, m.n.K_R, m.n.Q_C, m.n.Q_R, m.w, d, causal);
  m.rope_on_latent = d.Dh % 2 == 0;
  if (m.rope_on_latent) {
    m.rl = mla_rope_on_latent(m.n.c_KV, m.n.Q_C, m.n.K_C, m.w.W_UK, d, causal);
    m.mismatch_by_key = mismatch_by_key(m.rl.scores, m.rl.scores_absorbed);
  }
  DeepSeekCacheFacts f = deepseek_cache_facts();
  m.v3 = MlaDims{0, as_size(f.v3_d_model), as_size(f.v3_heads), as_size(f.v3_head_dim), as_size(f.v3_d_c), as_size(f.v3_d_cq), as_size(f.v3_d_R)};
  m.costs_run = mla_decode_costs(d, d.T);
  m.costs_v3 = mla_decode_costs(m.v3, kV3Context);
}

Mla compute(const MlaDims& d, std::uint64_t seed, bool causal) {
  Rng rng(seed);
  Mla m;
  m.X = randn(rng, {d.T, d.D});
  m.w = init_mla_weights(rng, d);
  m.n = mla_naive(m.X, m.w, d, causal);
  derive(m, d, causal);
  return m;
}

// A trained MLA checkpoint's layer: X is the input RMSNorm of the residual stream entering it (the
// real embeddings and the layers below), the weights are the layer's own, attention is causal.
Mla compute_real(const RealInput& in, std::size_t layer, const MlaDims& d) {
  MlaLayerWeights w;
  MlaLayerPass pass = mla_layer_pass(*in.mla, in.ids, layer, &w);
  Mla m;
  m.X = std::move(pass.norm1.out);
  m.w = std::move(w.w);
  m.n = std::move(pass.attn);
  derive(m, d, true);
  return m;
}

void step_input(LessonRecorder& r, const MlaDims& d, const Mla& m, const Labels& rows) {
  r.step("input", {{"mha", 2 * d.H * d.Dh}, {"d_model", d.D}, {"heads", d.H}, {"d_h", d.Dh}, {"d_c", d.C},
                   {"d_R", d.R}, {"has_q_latent", d.Cq > 0}, {"d_cq", d.Cq}});
  r.tensor("X", m.X, rows);
  r.note("input.note_seed");
}

void step_compress(LessonRecorder& r, const MlaDims& d, const Mla& m, const Labels& rows) {
  r.step("compress", {{"d_model", d.D}, {"d_c", d.C}, {"heads", d.H}, {"mha", 2 * d.H * d.Dh},
                      {"shape", d.C < d.D ? "narrower" : d.C == d.D ? "same" : "wider"}});
  r.tensor("W_DKV", m.w.W_DKV);        // (D, C)
  r.tensor("c_KV", m.n.c_KV, rows);    // (T, C)

  r.step("expand", {{"T", d.T}, {"width", d.H * d.Dh}, {"heads", d.H}, {"d_c", d.C}});
  r.tensor("W_UK", m.w.W_UK);          // (C, H*Dh)
  r.tensor("W_UV", m.w.W_UV);          // (C, H*Dh)
  r.tensor("K_C", m.n.K_C, rows);      // (T, H*Dh)
  r.tensor("V_C", m.n.V_C, rows);      // (T, H*Dh)
}

void step_queries(LessonRecorder& r, const MlaDims& d, const Mla& m, const Labels& rows) {
  r.step("queries", {{"q_latent", d.Cq > 0}, {"T", d.T}, {"width", d.H * d.Dh}, {"d_cq", d.Cq}});
  if (d.Cq == 0) {
    r.tensor("W_Q", m.w.W_Q);          // (D, H*Dh)
  } else {
    r.tensor("W_DQ", m.w.W_DQ);        // (D, Cq)
    r.tensor("c_Q", m.n.c_Q, rows);    // (T, Cq)
    r.tensor("W_UQ", m.w.W_UQ);        // (Cq, H*Dh)
  }
  r.tensor("Q_C", m.n.Q_C, rows);      // (T, H*Dh)
}

void step_rope(LessonRecorder& r, const MlaDims& d, const Mla& m, const Labels& rows) {
  r.step("rope", {{"from_q_latent", d.Cq > 0}, {"T", d.T}, {"width", d.H * d.R}, {"d_R", d.R}});
  r.tensor("rope_theta", rope_theta(d.R));   // (R/2)
  r.tensor("W_QR", m.w.W_QR);                // (D|Cq, H*R)
  r.tensor("W_KR", m.w.W_KR);                // (D, R)
  r.tensor("K_R_raw", m.n.K_R_raw, rows);    // (T, R)
  r.tensor("Q_R", m.n.Q_R, rows);            // (T, H*R)
  r.tensor("K_R", m.n.K_R, rows);            // (T, R)
}

void step_attend(LessonRecorder& r, const MlaDims& d, const Mla& m, const std::vector<std::string>& tokens) {
  r.step("attention", {{"has_rope", d.R > 0}, {"scale", d.Dh + d.R}});
  Labels square{.rows = tokens, .cols = tokens};
  r.tensor("scores", m.n.scores, square);                  // (H, T, T)
  square.heatmap = true;
  r.tensor("weights", m.n.weights, square);                // (H, T, T)
  r.tensor("heads", m.n.heads, {.rows = tokens});          // (H, T, Dh)
  r.tensor("concat", m.n.concat, {.rows = tokens});        // (T, H*Dh)
  r.tensor("W_O", m.w.W_O);                                // (H*Dh, D)
  r.tensor("output", m.n.output, {.rows = tokens});        // (T, D)
}

void step_absorb(LessonRecorder& r, const MlaDims& d, const Mla& m, const std::vector<std::string>& tokens) {
  r.step("absorb", {{"d_c", d.C}});
  Labels latent{.rows = tokens};
  Labels square{.rows = tokens, .cols = tokens};
  r.tensor("q_absorbed", m.a.q_absorbed, latent);               // (H, T, C)
  r.tensor("scores_absorbed", m.a.scores_absorbed, square);     // (H, T, T)
  r.tensor("W_UVO", m.a.W_UVO);                                 // (H, C, D)
  r.tensor("context_latent", m.a.context_latent, latent);       // (H, T, C)
  r.tensor("output_absorbed", m.a.output_absorbed, {.rows = tokens});  // (T, D)
  double ds = max_abs_diff(m.a.scores_absorbed, m.n.scores), dout = max_abs_diff(m.a.output_absorbed, m.n.output);
  r.value("absorb_scores_diff", ds);
  r.value("absorb_output_diff", dout);
  r.note("absorb.note", {{"scores_diff", ds}, {"output_diff", dout}});
  r.note("absorb.note_seed", {{"output_diff", dout}});
}

void cost_table(LessonRecorder& r, const std::vector<DecodeCost>& costs) {
  Table t{{r.t("decode_cost.col.path"), r.t("decode_cost.col.read"), r.t("decode_cost.col.macs"),
           r.t("decode_cost.col.read_ratio"), r.t("decode_cost.col.macs_ratio")}, {}};
  for (const DecodeCost& c : costs)
    t.rows.push_back({r.t("decode_cost.row." + c.id), static_cast<std::int64_t>(c.cache_read),
                      static_cast<std::int64_t>(c.macs), ratio(c.cache_read, costs[0].cache_read),
                      ratio(c.macs, costs[0].macs)});
  r.table(t);
}

void step_decode_cost(LessonRecorder& r, const MlaDims& d, const Mla& m) {
  r.step("decode_cost");
  r.value("context_run", I(d.T));
  cost_table(r, m.costs_run);
  const MlaDims& v3 = m.v3;
  r.value("context_v3", static_cast<std::int64_t>(kV3Context),
          {{"d_model", v3.D}, {"heads", v3.H}, {"d_h", v3.Dh}, {"d_c", v3.C}, {"d_R", v3.R}});
  cost_table(r, m.costs_v3);
  const std::vector<DecodeCost>& c = m.costs_v3;
  r.note("decode_cost.note", {{"read_less", ratio(c[0].cache_read, c[3].cache_read)}, {"macs_more", ratio(c[3].macs, c[0].macs)},
                              {"absorbed_width", v3.C + v3.R}, {"naive_width", v3.Dh + v3.R},
                              {"reexpand", ratio(c[1].macs, c[0].macs)}});
  r.note("decode_cost.note_seed", {{"read_less", ratio(c[0].cache_read, c[3].cache_read)},
                                   {"macs_more", ratio(c[3].macs, c[0].macs)}, {"cheaper", ratio(c[1].macs, c[3].macs)}});
}

void step_rope_on_latent(LessonRecorder& r, const MlaDims& d, const Mla& m, const std::vector<std::string>& tokens) {
  r.step("rope_on_latent");
  if (!m.rope_on_latent) {
    r.note("rope_on_latent.note_odd", {{"d_h", d.Dh}});
    return;
  }
  Labels square{.rows = tokens, .cols = tokens};
  r.tensor("scores_rope_on_latent", m.rl.scores, square);                    // (H, T, T)
  r.tensor("scores_rope_on_latent_absorbed", m.rl.scores_absorbed, square);  // (H, T, T)
  r.tensor("rope_on_latent_mismatch_by_key", m.mismatch_by_key, {.cols = tokens});  // (T)
  double mismatch = max_abs_diff(m.rl.scores, m.rl.scores_absorbed);
  r.value("rope_on_latent_mismatch", mismatch);
  r.value("rope_on_latent_first_key", m.mismatch_by_key.data[0]);
  if (d.R > 0) r.value("decoupled_absorb_diff", max_abs_diff(m.a.scores_absorbed, m.n.scores));
  // One token: the only key sits at position 0, whose rotation is the identity.
  r.note(d.T == 1 ? "rope_on_latent.note_one_token" : "rope_on_latent.note", {{"mismatch", mismatch}});
  r.note("rope_on_latent.note_seed", {{"several", d.T > 1}, {"mismatch", mismatch}});
}

void step_cache(LessonRecorder& r, const MlaDims& d) {
  DeepSeekCacheFacts f = deepseek_cache_facts();
  r.step("cache");
  auto u = [](std::uint64_t x) { return static_cast<std::int64_t>(x); };
  auto row = [&](const std::string& what, std::uint64_t mla, std::uint64_t base) -> std::vector<Scalar> {
    double q = ratio(mla, base);
    return {what, u(mla), u(base), pct(q), one_in(q)};
  };
  std::uint64_t run_mla = d.C + d.R, run_mha = 2 * d.H * d.Dh;
  r.value("cache_mla_run", u(run_mla));
  r.value("cache_mha_run", u(run_mha));
  r.value("cache_mla_v3", u(f.v3_mla));
  r.value("cache_mha_v3", u(f.v3_mha));
  r.table(Table{{r.t("cache.col.per_token"), "d_c + d_R", "2·h·d_h", r.t("cache.col.ratio"), ""},
                {row(r.t("cache.row.run", {{"d_c", d.C}, {"d_R", d.R}, {"heads", d.H}, {"d_h", d.Dh}}), run_mla, run_mha),
                 row(r.t("cache.row.v3", {{"d_c", f.v3_d_c}, {"d_R", f.v3_d_R}, {"heads", f.v3_heads}, {"d_h", f.v3_head_dim}}),
                     f.v3_mla, f.v3_mha)}});
  if (run_mla >= run_mha)
    r.note("cache.note_not_smaller", {{"larger", run_mla > run_mha}, {"mla", u(run_mla)}, {"mha", u(run_mha)},
                                      {"percent", 100.0 * ratio(run_mla, run_mha)}, {"times", ratio(run_mla, run_mha)},
                                      {"inv", ratio(run_mha, run_mla)}});
  Table claims{{r.t("cache.col.against"), "MLA", r.t("cache.col.baseline"), r.t("cache.col.share"), ""}, {}};
  claims.rows.push_back(row(r.t("cache.row.mha_v3"), f.v3_mla, f.v3_mha));
  claims.rows.push_back(row(r.t("cache.row.gqa8"), f.v3_mla, f.v3_gqa8));
  claims.rows.push_back(row(r.t("cache.row.v2_bf16"), f.v2_bytes_bf16, f.b67_bytes_bf16));
  claims.rows.push_back(row(r.t("cache.row.v2_6bit"), f.v2_bytes_6bit, f.b67_bytes_bf16));
  r.table(claims);
  double v3 = ratio(f.v3_mla, f.v3_mha), paper = ratio(f.v2_bytes_6bit, f.b67_bytes_bf16);
  double same = ratio(f.v2_bytes_bf16, f.b67_bytes_bf16);
  r.note("cache.note_seven_percent", {{"paper", 100.0 * paper}, {"v3", 100.0 * v3}});
  r.note("cache.note_one_tenth", {{"mha", 1.0 / v3}, {"same", 1.0 / same}, {"paper", 1.0 / paper},
                                  {"gqa8", ratio(f.v3_gqa8, f.v3_mla)}});
}

// Tokens a real run may show: its (H, T, T) heatmaps stay readable and small.
constexpr std::size_t kRealMaxTokens = 64;

Trace run_real(const MlaOptions& c) {
  for (auto [set, flag] : {std::pair{c.tokens.has_value(), "--tokens"}, {c.seq_len.has_value(), "--seq-len"},
                           {c.d_model.has_value(), "--d-model"}, {c.heads.has_value(), "--heads"},
                           {c.head_dim.has_value(), "--head-dim"}, {c.latent_dim.has_value(), "--latent-dim"},
                           {c.q_latent_dim.has_value(), "--q-latent-dim"}, {c.rope_dim.has_value(), "--rope-dim"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens, true);
  if (!in.mla) throw UsageError("mla.err.not_mla", {{"folder", in.folder}, {"type", in.config().model_type}});
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  const MlaDims d = in.mla->dims(in.ids.size());
  const std::vector<std::string>& tokens = in.labels;
  LessonRecorder r("mla", c.lang, {"mla"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  MlaOptions shown = c;
  shown.causal = true;  // a decoder's attention is causal, whatever --causal says
  record_common_config(r, shown, tokens);
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("head_dim", I(d.Dh));
  r.config("latent_dim", I(d.C));
  r.config("q_latent_dim", I(d.Cq));
  r.config("rope_dim", I(d.R));
  Mla m = compute_real(in, li, d);

  Labels rows{.rows = tokens};
  r.step("real", {{"folder", weights_label(in.folder)}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"heads", d.H}, {"d_h", d.Dh},
                  {"d_c", d.C}, {"d_R", d.R}, {"d_model", d.D}, {"mha", 2 * d.H * d.Dh}});
  r.tensor("X", m.X, rows);
  step_compress(r, d, m, rows);
  step_queries(r, d, m, rows);
  step_rope(r, d, m, rows);
  step_attend(r, d, m, tokens);
  step_absorb(r, d, m, tokens);
  step_decode_cost(r, d, m);
  step_rope_on_latent(r, d, m, tokens);
  step_cache(r, d);
  return r.finish();
}

Trace run(const MlaOptions& c) {
  if (c.weights) return run_real(c);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r("mla", c.lang, {"mla"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  MlaDims d = resolve_dims(c, token_count(c, defaults), r);  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("head_dim", I(d.Dh));
  r.config("latent_dim", I(d.C));
  r.config("q_latent_dim", I(d.Cq));
  r.config("rope_dim", I(d.R));
  Mla m = compute(d, static_cast<std::uint64_t>(c.seed), c.causal);

  Labels rows{.rows = tokens};
  step_input(r, d, m, rows);
  step_compress(r, d, m, rows);
  step_queries(r, d, m, rows);
  if (d.R > 0) step_rope(r, d, m, rows);
  step_attend(r, d, m, tokens);
  step_absorb(r, d, m, tokens);
  step_decode_cost(r, d, m);
  step_rope_on_latent(r, d, m, tokens);
  step_cache(r, d);
  return r.finish();
}

}  // namespace

extern const LessonInfo mla_lesson = lesson_info<MlaOptions>("mla", bind, run);

}  // namespace attn
