// The gqa / mqa engine (kv_sharing.h): group map, projections for G KV heads only, the expanded
// view, per-head attention, the equivalences with MHA, the KV cache and the parameters.
// Words: lessons/kv_sharing/LANG.cat (mqa overrides some in lessons/mqa/LANG.cat).
#include "locate.h"
#include "kv_sharing/kv_sharing.h"

#include <fmt/format.h>

#include "errors.h"
#include "models.h"
#include "random.h"
#include "real_weights.h"
#include "rope_half.h"
#include "row_stats.h"

namespace attn {

namespace {

// "n/d", or "0" when nothing is saved.
std::string fraction_str(Fraction f) { return f.num == 0 ? std::string("0") : fmt::format("{}/{}", f.num, f.den); }

}  // namespace

void preset_cache_table(LessonRecorder& r, const std::vector<std::string>& presets) {
  Table t{{r.t("presets.col.model"), r.t("presets.col.query_heads"), r.t("presets.col.kv_heads"), "d_k",
           r.t("presets.col.vectors"), r.t("presets.col.mha"), r.t("presets.col.less")},
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

KvDims resolve_dims(const KvOptions& c, std::size_t T, bool mqa) {
  std::size_t H = positive(c.heads, 4, "--heads");
  std::size_t G = mqa ? 1 : positive(c.kv_heads, H % 2 == 0 ? H / 2 : 1, "--kv-heads");
  require_divisible(H, "--heads", G, "--kv-heads");
  // Without --d-model: the smallest multiple of H that is at least 8 and gives d_k >= 2.
  std::size_t D = d_model_or_derived(c.d_model, H);
  require_divisible(D, "--d-model", H, "--heads");
  {
    // scores, weights and the equivalence checks keep about eight (H, T, T) tensors at once
    double dm = static_cast<double>(D), h = static_cast<double>(H);
    require_work([&](double t) { return Work{4.0 * t * dm * dm + 2.0 * t * t * dm, 8.0 * t * dm + 4.0 * dm * dm + 8.0 * h * t * t}; },
                 T, "--seq-len/--tokens", "--seq-len/--tokens, --d-model, --heads");
  }
  require_fits({D, D}, "W_Q", c.d_model ? "--d-model" : "--heads (d_model defaults to a multiple of it)");
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({H, T, T}, "the scores", "--seq-len/--tokens or --heads");
  require_total(8, {H, T, T}, "the attention tensors", "--seq-len/--tokens or --heads");
  return {T, D, H, G, D / H, !c.d_model && D != 8};
}

// Draw every weight (the only RNG use), then compute the layer and its two equivalent forms.
KvRun compute(const KvDims& d, std::uint64_t seed, bool causal) {
  Rng rng(seed);
  KvRun k;
  k.X = randn(rng, {d.T, d.D});
  k.W_Q = init_weight(rng, d.D, d.H * d.Dk);
  k.W_K = init_weight(rng, d.D, d.G * d.Dk);
  k.W_V = init_weight(rng, d.D, d.G * d.Dk);
  k.W_O = init_weight(rng, d.H * d.Dk, d.D);
  k.p = grouped_attention(k.X, k.W_Q, k.W_K, k.W_V, k.W_O, d.H, d.G, causal);
  k.W_K_copied = expand_kv_weights(k.W_K, d.H, d.G);
  k.W_V_copied = expand_kv_weights(k.W_V, d.H, d.G);
  k.mha_copied = grouped_attention(k.X, k.W_Q, k.W_K_copied, k.W_V_copied, k.W_O, d.H, d.H, causal);
  k.by_group = gqa_by_group(k.X, k.W_Q, k.W_K, k.W_V, k.W_O, d.H, d.G, causal);
  k.by_group_h = gqa_by_group(k.X, k.W_Q, k.W_K_copied, k.W_V_copied, k.W_O, d.H, d.H, causal);
  return k;
}

void step_input(LessonRecorder& r, const KvDims& d, const KvRun& k, const std::vector<std::string>& tokens) {
  r.tensor("X", k.X, {.rows = tokens});  // (T, D)
  note_d_model_derived(r, d.d_model_derived, d.D, d.H);  // under the config line, as mha has it
}

// Heads and groups count from 1, as the chapter does (on a checkpoint too: `real` adds the note
// that the tensor names count from 0).
void step_group_map(LessonRecorder& r, const KvDims& d, bool real = false) {
  std::size_t per = d.H / d.G;
  r.step("group_map", {{"heads", d.H}, {"groups", d.G}, {"per", per}});
  r.tensor("group_of_head", group_of_head(d.H, d.G));
  r.value("heads_per_group", I(per));
  Table map{{r.t("group_map.col.group"), r.t("group_map.col.heads")}, {}};
  for (std::size_t j = 0; j < d.G; ++j)
    map.rows.push_back({I(j + 1), r.t("group_map.row.heads", {{"single", per == 1}, {"first", j * per + 1}, {"last", (j + 1) * per}})});
  r.table(map);
  if (real) r.note("group_map.note_real");
}

void step_project(LessonRecorder& r, const KvDims& d, const KvRun& k, const std::vector<std::string>& tokens) {
  r.step("project", {{"d_model", d.D}, {"heads", d.H}, {"d_k", d.Dk}, {"groups", d.G}, {"kv_width", d.G * d.Dk}});
  Labels rows{.rows = tokens};
  r.tensor("W_Q", k.W_Q);          // (D, H*Dk)
  r.tensor("W_K", k.W_K);          // (D, G*Dk)
  r.tensor("W_V", k.W_V);          // (D, G*Dk)
  r.tensor("Q", k.p.Q, rows);      // (T, H*Dk)
  r.tensor("K", k.p.K, rows);      // (T, G*Dk)
  r.tensor("V", k.p.V, rows);      // (T, G*Dk)
}

void step_split(LessonRecorder& r, const KvDims& d, const KvRun& k, const std::vector<std::string>& tokens) {
  r.step("split_heads", {{"heads", d.H}, {"groups", d.G}, {"per", d.H / d.G}});
  Labels heads{.rows = tokens};
  Labels groups{.rows = tokens, .block = "group"};
  r.tensor("Q_heads", k.p.Q_heads, heads);        // (H, T, Dk)
  r.tensor("K_heads", k.p.K_heads, groups);       // (G, T, Dk)
  r.tensor("V_heads", k.p.V_heads, groups);       // (G, T, Dk)
  r.tensor("K_expanded", k.p.K_expanded, heads);  // (H, T, Dk)
  r.tensor("V_expanded", k.p.V_expanded, heads);  // (H, T, Dk)
}

void step_attend(LessonRecorder& r, const KvDims& d, const KvRun& k, const std::vector<std::string>& tokens,
                 bool causal) {
  r.step("scores", {{"d_k", d.Dk}});
  Labels square{.rows = tokens, .cols = tokens};
  r.tensor("scores", k.p.scores, square, {{"causal", causal}});  // (H, T, T)
  square.heatmap = true;
  const Tensor& W = r.tensor("weights", k.p.weights, square);     // (H, T, T)
  r.value("max_row_sum_error", max_row_sum_error(W));
  if (d.H / d.G >= 2) r.value("same_group_difference", slices_max_abs_diff(W, 0, 1));
  std::size_t last = d.T - 1;
  for (std::size_t h = 0; h < std::min<std::size_t>(d.H, 8); ++h) {
    std::size_t j = strongest_column(W, h, last);
    r.note("scores.note_head", {{"head", h + 1}, {"group", h / (d.H / d.G) + 1}, {"query", tokens[last]},
                                {"key", tokens[j]}, {"weight", W(h, last, j)}});
  }
}

void step_output(LessonRecorder& r, const KvDims& d, const KvRun& k, const std::vector<std::string>& tokens) {
  r.step("output", {{"heads", d.H}, {"T", d.T}, {"d_model", d.D}});
  r.tensor("heads", k.p.heads, {.rows = tokens});    // (H, T, Dk)
  r.tensor("concat", k.p.concat, {.rows = tokens});  // (T, D)
  r.tensor("W_O", k.W_O);                            // (H*Dk, D)
  r.tensor("output", k.p.output, {.rows = tokens});  // (T, D)
}

void step_equivalence(LessonRecorder& r, const KvDims& d, const KvRun& k, const std::vector<std::string>& tokens) {
  r.step("equivalence", {{"d_model", d.D}, {"width", d.H * d.Dk}, {"heads", d.H}, {"groups", d.G}, {"per", d.H / d.G}});
  r.tensor("W_K_copied", k.W_K_copied);                              // (D, H*Dk)
  r.tensor("output_mha_copied", k.mha_copied.output, {.rows = tokens});  // (T, D)
  r.tensor("output_by_group", k.by_group.output, {.rows = tokens});      // (T, D)
  r.value("gqa_vs_mha_copied", max_abs_diff(k.mha_copied.output, k.p.output));
  r.value("gqa_vs_by_group", max_abs_diff(k.by_group.output, k.p.output));
  r.value("g_equals_h_vs_mha", max_abs_diff(k.by_group_h.output, k.mha_copied.output));
  r.value("weights_vs_mha_copied", max_abs_diff(k.mha_copied.weights, k.p.weights));
  r.note("equivalence.note");
}

void step_cache(LessonRecorder& r, const KvDims& d, bool mqa) {
  auto H = static_cast<std::int64_t>(d.H), G = static_cast<std::int64_t>(d.G), Dk = static_cast<std::int64_t>(d.Dk);
  r.step("kv_cache");
  auto row = [&](const char* kind, std::int64_t h, std::int64_t g, std::int64_t dk) -> std::vector<Scalar> {
    return {std::string(kind), g, kv_cache_vectors(g), kv_cache_elements(g, dk), fraction_str(cache_reduction(h, g))};
  };
  std::vector<std::string> header = {r.t("kv_cache.col.run"), r.t("kv_cache.col.kv_heads"), r.t("kv_cache.col.vectors"),
                                     r.t("kv_cache.col.numbers"), r.t("kv_cache.col.less")};
  Table run{header, {row("MHA", H, H, Dk)}};
  if (!mqa && G != 1 && G != H) run.rows.push_back(row("GQA", H, G, Dk));
  run.rows.push_back(row("MQA", H, 1, Dk));
  r.value("kv_vectors_mha", kv_cache_vectors(H));
  r.value("kv_vectors_run", kv_cache_vectors(G));
  if (!mqa) r.value("kv_vectors_mqa", kv_cache_vectors(1));
  r.value("cache_saved", fraction_str(cache_reduction(H, G)));
  r.table(run);
  header[0] = r.t("kv_cache.col.chapter");
  r.table(Table{header, {row("MHA", 12, 12, 64), row("GQA", 12, 4, 64), row("MQA", 12, 1, 64)}});
  Fraction ch = cache_reduction(12, 4);
  r.note("kv_cache.note", {{"mha", kv_cache_vectors(12)}, {"gqa", kv_cache_vectors(4)}, {"mqa", kv_cache_vectors(1)},
                           {"num", ch.num}, {"den", ch.den}});
}

void step_params(LessonRecorder& r, const KvDims& d) {
  auto D = static_cast<std::int64_t>(d.D), H = static_cast<std::int64_t>(d.H), G = static_cast<std::int64_t>(d.G);
  auto Dk = static_cast<std::int64_t>(d.Dk);
  r.step("params");
  auto row = [&](const char* kind, std::int64_t d_, std::int64_t h, std::int64_t g, std::int64_t dk) -> std::vector<Scalar> {
    std::int64_t n = attention_param_count(d_, h, g, dk), mha = attention_param_count(d_, h, h, dk);
    return {std::string(kind), d_, g, fmt::format("2·{0}·{0} + 2·{0}·{1}·{2}", d_, g, dk), n,
            static_cast<double>(n) / static_cast<double>(mha)};
  };
  std::vector<std::string> header = {r.t("params.col.run"), "d", "g", "2·d·d + 2·d·g·d_k", r.t("params.col.parameters"),
                                     r.t("params.col.share")};
  Table run{header, {row("MHA", D, H, H, Dk)}};
  if (G != 1 && G != H) run.rows.push_back(row("GQA", D, H, G, Dk));
  run.rows.push_back(row("MQA", D, H, 1, Dk));
  r.table(run);
  header[0] = r.t("params.col.chapter");
  r.table(Table{header, {row("MHA", 768, 12, 12, 64), row("GQA", 768, 12, 4, 64), row("MQA", 768, 12, 1, 64)}});
  r.value("params_run", attention_param_count(D, H, G, Dk));
  r.value("params_mha_run", attention_param_count(D, H, H, Dk));
  r.note("params.note", {{"gqa", attention_param_count(768, 12, 4, 64)}, {"mqa", attention_param_count(768, 12, 1, 64)},
                         {"mha", attention_param_count(768, 12, 12, 64)}});
}

// ---- --weights: a real Llama-family layer ---------------------------------------------------

// Tokens a real run may show (its (H, T, T) heatmaps stay readable).
constexpr std::size_t kRealMaxTokens = 64;

// The real layer, laid out as the engine shows it: X is the input RMSNorm of the residual stream;
// p.Q_heads and p.K_heads are the rotated heads (RoPE), which the scores use. The equivalence is
// worked out again on the real layer: MHA whose W_K, W_V (and biases) are each group's block copied
// to its query heads, rotated the same way, gives the same weights and output.
struct KvReal {
  KvRun k;
  Tensor Q_unrotated;  // (H, T, Dh)
  Tensor inv_freq;     // (Dh/2)
};

KvReal compute_real(const RealInput& in, std::size_t layer) {
  const ModelConfig& mc = in.config();
  std::size_t H = mc.n_h, G = mc.n_g;
  LlamaLayerWeights w;
  LlamaLayerPass pass = llama_layer_pass(*in.llama, in.ids, layer, &w);
  KvReal out;
  KvRun& k = out.k;
  k.X = std::move(pass.norm1.out);
  k.W_Q = std::move(w.W_Q);
  k.W_K = std::move(w.W_K);
  k.W_V = std::move(w.W_V);
  k.W_O = std::move(w.W_O);
  k.p = std::move(pass.attn);
  out.Q_unrotated = std::move(k.p.Q_heads);
  k.p.Q_heads = pass.Q_rot;  // (H, T, Dh)
  k.p.K_heads = pass.K_rot;  // (G, T, Dh)
  out.inv_freq = in.llama->inv_freq();
  // MHA on copied weights: every query head gets its own K, V projection (a copy of its group's)
  k.W_K_copied = expand_kv_weights(k.W_K, H, G);  // (D, H·Dh)
  k.W_V_copied = expand_kv_weights(k.W_V, H, G);  // (D, H·Dh)
  Tensor b_K = expand_kv_weights(Tensor({1, w.b_K.numel()}, w.b_K.data), H, G);  // (1, H·Dh)
  Tensor b_V = expand_kv_weights(Tensor({1, w.b_V.numel()}, w.b_V.data), H, G);
  Tensor K_c = add_bias(matmul(k.X, k.W_K_copied), Tensor({b_K.numel()}, b_K.data));  // (T, H·Dh)
  Tensor V_c = add_bias(matmul(k.X, k.W_V_copied), Tensor({b_V.numel()}, b_V.data));  // (T, H·Dh)
  Tensor K_c_rot = apply_rope_half(split_heads(K_c, H), out.inv_freq);                  // (H, T, Dh)
  HeadsAttention h = multi_head_attention(pass.Q_rot, K_c_rot, split_heads(V_c, H), true);
  k.mha_copied.weights = std::move(h.weights);
  k.mha_copied.output = add_bias(matmul(merge_heads(h.heads), k.W_O), w.b_O);  // (T, D)
  return out;
}

void step_rope_real(LessonRecorder& r, const RealInput& in, const KvReal& x, const std::vector<std::string>& tokens) {
  const LlamaSettings& s = in.llama->settings();
  const ModelConfig& mc = in.config();
  r.step("rope", {{"d_k", mc.d_h}, {"half", mc.d_h / 2}, {"theta", s.rope_theta},
                  {"scaling", s.rope_type.empty() ? "none" : s.rope_type}, {"per", mc.n_h / mc.n_g}});
  r.tensor("inv_freq", x.inv_freq);
  r.tensor("Q_unrotated", x.Q_unrotated, {.rows = tokens});
  r.note("rope.note_gqa", {{"groups", mc.n_g}, {"heads", mc.n_h}});
}

void step_equivalence_real(LessonRecorder& r, const KvDims& d, const KvRun& k, const std::vector<std::string>& tokens) {
  r.step("equivalence_real", {{"d_model", d.D}, {"width", d.H * d.Dk}, {"heads", d.H}, {"groups", d.G}});
  r.tensor("W_K_copied", k.W_K_copied);                                  // (D, H*Dh)
  r.tensor("output_mha_copied", k.mha_copied.output, {.rows = tokens});  // (T, D)
  r.value("gqa_vs_mha_copied", max_abs_diff(k.mha_copied.output, k.p.output));
  r.value("weights_vs_mha_copied", max_abs_diff(k.mha_copied.weights, k.p.weights));
}

// The whole model's cache per token: every layer, in the checkpoint's own dtype, against MHA.
void step_model_cache(LessonRecorder& r, const RealInput& in) {
  const ModelConfig& mc = in.config();
  u64 per_layer = kv_elements_per_layer(mc), mha_layer = mul(2 * mc.n_h, mc.d_h, "kv");
  u64 bytes = 2;  // bf16, as these models are served; the table's last column
  r.step("model_cache", {{"layers", mc.l}, {"heads", mc.n_h}, {"groups", mc.n_g}, {"d_k", mc.d_h}});
  Table t{{r.t("model_cache.col.kind"), r.t("model_cache.col.per_layer"), r.t("model_cache.col.per_token"),
           r.t("model_cache.col.bytes"), r.t("model_cache.col.tokens_4k")},
          {}};
  auto row = [&](const std::string& kind, u64 layer_n) -> std::vector<Scalar> {
    u64 tok = mul(layer_n, mc.l, "kv");
    return {kind, static_cast<std::int64_t>(layer_n), static_cast<std::int64_t>(tok), static_cast<std::int64_t>(mul(tok, bytes, "kv")),
            fmt::format("{:.1f} MiB", static_cast<double>(mul(mul(tok, bytes, "kv"), 4096, "kv")) / (1024.0 * 1024.0))};
  };
  t.rows.push_back(row(r.t("model_cache.row.this", {{"groups", mc.n_g}}), per_layer));
  t.rows.push_back(row(r.t("model_cache.row.mha", {{"heads", mc.n_h}}), mha_layer));
  r.table(t);
  Fraction f = cache_reduction(static_cast<std::int64_t>(mc.n_h), static_cast<std::int64_t>(mc.n_g));
  r.value("model_cache_per_token", static_cast<std::int64_t>(mul(per_layer, mc.l, "kv")));
  r.note("model_cache.note", {{"num", f.num}, {"den", f.den}, {"per", mc.n_h / mc.n_g}});
}

Trace run_kv_sharing_real(const KvOptions& given, const KvStory& story) {
  for (auto [set, flag] : {std::pair{given.tokens.has_value(), "--tokens"}, {given.seq_len.has_value(), "--seq-len"},
                           {given.d_model.has_value(), "--d-model"}, {given.heads.has_value(), "--heads"},
                           {given.kv_heads.has_value(), "--kv-heads"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  KvOptions c = given;
  c.causal = true;  // the checkpoint's attention is causal, whatever --causal says
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens);
  if (!in.llama) throw UsageError("llama.err.gqa_gpt2", {{"folder", in.folder}});
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  LessonRecorder r(story.lesson, c.lang, {story.lesson, "kv_sharing", "llama"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  const std::vector<std::string>& tokens = in.labels;
  KvDims d{tokens.size(), as_size(mc.d), as_size(mc.n_h), as_size(mc.n_g), as_size(mc.d_h), false};
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("n_kv_heads", I(d.G));
  r.config("d_k", I(d.Dk));
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  KvReal x = compute_real(in, li);
  const KvRun& k = x.k;

  r.step("real_gqa", {{"folder", weights_label(in.folder)}, {"type", mc.model_type}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"heads", mc.n_h},
                      {"groups", mc.n_g}, {"per", mc.n_h / mc.n_g}, {"d_k", mc.d_h}, {"d_model", mc.d}, {"bias", mc.qkv_bias}});
  if (mc.n_h * mc.d_h != mc.d) r.note("real_llama.note_width", {{"heads", mc.n_h}, {"d_k", mc.d_h}, {"width", mc.n_h * mc.d_h}, {"d_model", mc.d}});
  r.tensor("X", k.X, {.rows = tokens});
  step_group_map(r, d, true);
  step_project(r, d, k, tokens);
  step_rope_real(r, in, x, tokens);
  step_split(r, d, k, tokens);
  step_attend(r, d, k, tokens, true);
  step_output(r, d, k, tokens);
  step_equivalence_real(r, d, k, tokens);
  step_cache(r, d, false);
  step_model_cache(r, in);
  step_params(r, d);
  return r.finish();
}

}  // namespace

Trace run_kv_sharing(const KvOptions& c, const KvStory& story) {
  if (c.weights) return run_kv_sharing_real(c, story);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r(story.lesson, c.lang, {story.lesson, "kv_sharing"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  KvDims d = resolve_dims(c, token_count(c, defaults), story.mqa);  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("n_heads", I(d.H));
  r.config("n_kv_heads", I(d.G));
  r.config("d_k", I(d.Dk));
  KvRun k = compute(d, static_cast<std::uint64_t>(c.seed), c.causal);

  story.intro(r, d);
  step_input(r, d, k, tokens);
  step_group_map(r, d);
  step_project(r, d, k, tokens);
  step_split(r, d, k, tokens);
  step_attend(r, d, k, tokens, c.causal);
  step_output(r, d, k, tokens);
  step_equivalence(r, d, k, tokens);
  step_cache(r, d, story.mqa);
  step_params(r, d);
  story.closing(r, d, k);
  return r.finish();
}

}  // namespace attn
