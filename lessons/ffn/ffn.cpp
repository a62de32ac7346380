// Lesson `ffn`: section 3 of the chapter — the two-layer feed-forward network.
//   x (D) -> z = x W_1 + b_1 (F, "expand") -> h = act(z) -> y = h W_2 + b_2 (D, "compress")
// Legend: D = d_model, F = d_ff (4·D by default, as in GPT-2). Words: lessons/ffn/LANG.cat.
#include "locate.h"
#include "attention.h"
#include "errors.h"
#include "ffn.h"
#include "ffn_common/ffn_common.h"
#include "models.h"
#include "real_weights.h"

namespace attn {

namespace {

constexpr double kBiasStd = 0.1;  // biases N(0, 0.1²): small, so the weights do the work

// Everything the lesson shows, computed before any narration.
struct Ffn {
  Tensor x;                   // (D)
  Tensor W_1, b_1, W_2, b_2;  // (D, F), (F), (F, D), (D)
  FfnPass p;                  // z (F), h (F), y (D)
};

Ffn compute(const FfnInput& in, std::size_t F, Activation act, std::uint64_t seed) {
  Rng rng(seed);
  Ffn f;
  f.x = input_tensor(in, rng);              // drawn first when --x and the chapter's x are absent
  f.W_1 = init_weight(rng, in.D, F);        // (D, F)
  f.b_1 = randn(rng, {F}, kBiasStd);        // (F)
  f.W_2 = init_weight(rng, F, in.D);        // (F, D)
  f.b_2 = randn(rng, {in.D}, kBiasStd);     // (D)
  f.p = ffn_forward(f.x, f.W_1, f.b_1, f.W_2, f.b_2, act);
  return f;
}

void step_input(LessonRecorder& r, const FfnInput& in, const Ffn& f, std::size_t F) {
  const ChapterFfn& ch = chapter_ffn();
  bool chapter_x = in.x && *in.x == ch.x;
  r.step("input", {{"d_model", in.D},
                   {"source", chapter_x ? "chapter" : in.x ? "given" : "random"},
                   {"chapter_d", ch.d_model},
                   {"chapter_d_ff", ch.d_ff},
                   {"bias_std", kBiasStd}});
  r.tensor("x", f.x);  // (D)
  r.value("d_model", I(in.D));
  r.value("d_ff", I(F));
}

// real: a checkpoint's layer (--weights), which the chapter's printed numbers are not compared with.
void step_expand(LessonRecorder& r, const Ffn& f, std::size_t D, std::size_t F, bool real = false) {
  r.step("expand", {{"d_model", D}, {"d_ff", F}});
  r.tensor("W_1", f.W_1);     // (D, F)
  r.tensor("b_1", f.b_1);     // (F)
  r.tensor("z", f.p.z);       // (F)
  if (real) return;
  const std::vector<double>& zc = chapter_ffn().z_printed;
  r.tensor("chapter_z", Tensor({zc.size()}, zc));
  r.note("expand.note");
}

void step_activate(LessonRecorder& r, const Ffn& f, Activation act, std::size_t F) {
  const Tensor& z = f.p.z;
  const Tensor& h = f.p.h;
  std::optional<std::size_t> small = smallest_above(z, 0.0);  // the smallest positive z_j
  r.step("activate", {{"act", activation_name(act)}, {"d_ff", F}});
  r.tensor("h", h, {}, {{"act", activation_name(act)}});  // (F)
  if (F <= 32) {
    Table t{{r.t("activate.col.unit"), "z", "h", "h − z", "h / z"}, {}};
    for (std::size_t j = 0; j < F; ++j)
      t.rows.push_back({I(j + 1), z.data[j], h.data[j], h.data[j] - z.data[j],
                        z.data[j] == 0.0 ? Scalar{std::string("")} : Scalar{h.data[j] / z.data[j]}});
    r.table(t);
  }
  std::size_t pos = count_above(z, 0.0);
  r.value("units_kept", I(pos));
  r.value("units_squashed", I(F - pos));
  r.value("max_abs_h_squashed", max_abs_where_nonpositive(z, h));
  if (small)
    r.note("activate.note_smallest", {{"act", activation_name(act)},
                                      {"unit", *small + 1},
                                      {"z", z.data[*small]},
                                      {"h", h.data[*small]},
                                      {"change", 100.0 * (h.data[*small] - z.data[*small]) / z.data[*small]}});
}

void step_compress(LessonRecorder& r, const Ffn& f, std::size_t D, std::size_t F, bool real = false) {
  const ChapterFfn& ch = chapter_ffn();
  r.step("compress", {{"d_model", D}, {"d_ff", F}});
  r.tensor("W_2", f.W_2);  // (F, D)
  r.tensor("b_2", f.b_2);  // (D)
  r.tensor("y", f.p.y);    // (D)
  if (real) return;
  r.tensor("chapter_output", Tensor({ch.output_printed.size()}, ch.output_printed));
  r.note("compress.note", {{"same_shape", D == ch.output_printed.size()},
                           {"d_model", D},
                           {"chapter_d", ch.output_printed.size()}});
}

// Parameters of the FFN at the run's width and at GPT-2's d = 768, then one layer's split and
// the whole model's.
void step_params(LessonRecorder& r, std::size_t D, std::size_t F) {
  r.step("params");
  auto d = static_cast<std::int64_t>(D), f = static_cast<std::int64_t>(F);
  FfnParams run = ffn_param_count(d, f), big = ffn_param_count(768, 3072);
  Table t{{"", r.t("params.col.run"), "", "d = 768", ""}, {}};
  t.rows.push_back({std::string("W_1"), shape_str({D, F}), run.W_1, std::string("[768, 3072]"), big.W_1});
  t.rows.push_back({std::string("b_1"), shape_str({F}), run.b_1, std::string("[3072]"), big.b_1});
  t.rows.push_back({std::string("W_2"), shape_str({F, D}), run.W_2, std::string("[3072, 768]"), big.W_2});
  t.rows.push_back({std::string("b_2"), shape_str({D}), run.b_2, std::string("[768]"), big.b_2});
  t.rows.push_back({r.t("params.row.total"), std::string(""), run.total, std::string(""), big.total});
  r.table(t);
  r.value("params_run", run.total);
  r.value("params_768", big.total);

  r.step("split");
  // One convention per column, both without LayerNorm: weights only (the chapter's 4d² : 8d²), and
  // the real GPT-2 small checkpoint's layer with its biases, from the `params` command's count.
  std::int64_t attn_run = attention_param_count(d, 1, 1, d), attn_768 = attention_param_count(768, 12, 12, 64);
  std::int64_t ffn_run = run.W_1 + run.W_2, ffn_768 = big.W_1 + big.W_2;
  ParamReport gpt2 = count_params(load_preset("gpt2"));
  auto attn_ckpt = static_cast<std::int64_t>(gpt2.layers.at(0).attention_total);
  auto ffn_ckpt = static_cast<std::int64_t>(gpt2.layers.at(0).ffn_total);
  auto share = [](std::int64_t part, std::int64_t other) { return static_cast<double>(part) / static_cast<double>(part + other); };
  auto pct = [&](double s) { return r.t("split.percent", {{"p", 100.0 * s}}); };
  Table s{{"", r.t("split.col.run"), r.t("split.col.share"), r.t("split.col.chapter"), r.t("split.col.share"),
           r.t("split.col.checkpoint"), r.t("split.col.share")}, {}};
  s.rows.push_back({r.t("split.row.attention"), attn_run, pct(share(attn_run, ffn_run)), attn_768, pct(share(attn_768, ffn_768)),
                    attn_ckpt, pct(share(attn_ckpt, ffn_ckpt))});
  s.rows.push_back({std::string("FFN"), ffn_run, pct(share(ffn_run, attn_run)), ffn_768, pct(share(ffn_768, attn_768)),
                    ffn_ckpt, pct(share(ffn_ckpt, attn_ckpt))});
  s.rows.push_back({r.t("split.row.layer"), attn_run + ffn_run, pct(1.0), attn_768 + ffn_768, pct(1.0), attn_ckpt + ffn_ckpt, pct(1.0)});
  r.table(s);
  r.value("attention_params_768", attn_768);
  r.value("ffn_share_768", share(ffn_768, attn_768));
  r.value("ffn_share_gpt2_layer", share(ffn_ckpt, attn_ckpt));
  r.value("ffn_over_attention_768", static_cast<double>(ffn_768) / static_cast<double>(attn_768));
  // The whole of GPT-2 small, from the `params` command's count of the gpt2 preset.
  std::uint64_t ffn_all = ffn_params_all_layers(gpt2);
  double model_share = static_cast<double>(ffn_all) / static_cast<double>(gpt2.total);
  r.value("gpt2_params", static_cast<std::int64_t>(gpt2.total));
  r.value("gpt2_ffn_params", static_cast<std::int64_t>(ffn_all));
  r.value("ffn_share_gpt2_model", model_share);
  r.note("split.note");
  r.note("split.note_model", {{"total", gpt2.total},
                              {"ffn", ffn_all},
                              {"share", 100.0 * model_share},
                              {"layers", gpt2.layers.at(0).layers},
                              {"embeddings", gpt2.embedding_total}});
}

// The lesson's options (lang and seed come with every run).
struct FfnOptions : RunContext {
  std::optional<std::string> x;  // --x
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> d_ff;  // --d-ff
  std::optional<std::string> activation;  // --activation
  std::optional<std::string> weights, text, token_ids;  // a real GPT-2 checkpoint and the learner's sentence
  std::optional<std::int64_t> layer;
};

// ---- --weights: a GPT-2 layer's MLP, on the last token ----------------------------------------

constexpr std::size_t kRealMaxTokens = 256;

// x is the last token's residual after the layer's attention, through ln_2; W_1, b_1, W_2, b_2 are
// mlp.c_fc and mlp.c_proj (Conv1D: already (in, out)); the activation is the model's own.
struct FfnReal {
  Ffn f;
  Activation act;
  Tensor y_forward;  // (D): the forward's MLP output for the last token
};

FfnReal compute_real(const RealInput& in, std::size_t layer) {
  Gpt2LayerWeights w;
  Gpt2LayerPass pass = gpt2_layer_pass(*in.model, in.ids, layer, &w);
  std::size_t last = in.ids.size() - 1;
  FfnReal out;
  out.act = in.model->activation();
  Tensor x = row_block(pass.ln2.out, last, 1);  // (1, D)
  out.f.x = Tensor({x.numel()}, x.data);         // (D)
  out.f.W_1 = std::move(w.W_1);
  out.f.b_1 = std::move(w.b_1);
  out.f.W_2 = std::move(w.W_2);
  out.f.b_2 = std::move(w.b_2);
  out.f.p = ffn_forward(out.f.x, out.f.W_1, out.f.b_1, out.f.W_2, out.f.b_2, out.act);
  Tensor y = row_block(pass.ffn.y, last, 1);
  out.y_forward = Tensor({y.numel()}, y.data);
  return out;
}

Trace run_real(const FfnOptions& c) {
  for (auto [set, flag] : {std::pair{c.x.has_value(), "--x"}, {c.d_model.has_value(), "--d-model"}, {c.d_ff.has_value(), "--d-ff"},
                           {c.activation.has_value(), "--activation"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens);
  if (!in.model) throw UsageError("llama.err.ffn_llama", {{"folder", in.folder}});
  if (in.model->attention_only()) throw UsageError("checkpoint.err.attention_only", {{"folder", in.folder}});
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  // llama first: its words for the real matrices (a GPT-2 layer's here) replace the random ones' (tensor.W_1, …)
  LessonRecorder r("ffn", c.lang, {"llama", "ffn", "ffn_common"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  FfnReal x = compute_real(in, li);
  r.config("d_model", I(mc.d));
  r.config("d_ff", I(mc.d_ff));
  r.config("activation", std::string(activation_name(x.act)));
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  r.step("real_ffn", {{"folder", weights_label(in.folder)}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"d_model", mc.d}, {"d_ff", mc.d_ff},
                      {"token", in.labels.back()}, {"n", in.ids.size()}, {"act", activation_name(x.act)}});
  r.tensor("x", x.f.x);  // (D)
  step_expand(r, x.f, mc.d, mc.d_ff, true);
  step_activate(r, x.f, x.act, mc.d_ff);
  step_compress(r, x.f, mc.d, mc.d_ff, true);
  r.value("mlp_check", max_abs_diff(x.f.p.y, x.y_forward));
  return r.finish();
}

void bind(OptionBinder& b, FfnOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--x", o.x);
  b.integer("--d-model", o.d_model);
  b.integer("--d-ff", o.d_ff);
  b.text("--activation", o.activation);
}

Trace run(const FfnOptions& c) {
  if (c.weights) return run_real(c);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r("ffn", c.lang, {"ffn", "ffn_common"});
  FfnInput in = resolve_ffn_input(c);
  std::size_t F = positive(c.d_ff, 4 * in.D, "--d-ff");
  Activation act = resolve_activation(c);
  // x W_1 and h W_2: 2·D·F multiply-adds; held and shown: W_1, W_2, and z, h per hidden unit.
  double given_f = static_cast<double>(F);
  auto hidden = [&](double D) { return c.d_ff ? given_f : 4.0 * D; };
  require_work([&](double D) { return Work{2.0 * D * hidden(D), (2.0 * D + 6.0) * hidden(D) + 4.0 * D, D * hidden(D)}; },
               in.D, c.x ? "--x" : "--d-model", "--d-model, --d-ff, --x");
  require_fits({in.D, F}, "W_1", "--d-model or --d-ff");
  r.config("seed", c.seed);
  r.config("d_model", I(in.D));
  r.config("d_ff", I(F));
  r.config("activation", std::string(activation_name(act)));
  Ffn f = compute(in, F, act, static_cast<std::uint64_t>(c.seed));

  step_input(r, in, f, F);
  step_expand(r, f, in.D, F);
  step_activate(r, f, act, F);
  step_compress(r, f, in.D, F);
  step_params(r, in.D, F);
  return r.finish();
}

}  // namespace

extern const LessonInfo ffn_lesson = lesson_info<FfnOptions>("ffn", bind, run);

}  // namespace attn
