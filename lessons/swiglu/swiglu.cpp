// Lesson `swiglu`: section 4 of the chapter — the gated FFN of LLaMA and GLM.
//   gate_pre = x W_gate, gate = SiLU(gate_pre), up = x W_up, hidden = gate ⊙ up, y = hidden W_down
// beside the standard FFN y = GELU(x W_1) W_2 on the same x, and the 8d/3 hidden-size rule.
// Legend: D = d_model, F = SwiGLU hidden width (⌊8D/3⌋ by default), 4D = the standard FFN's width.
// Words: lessons/swiglu/LANG.cat.
#include <cmath>
#include <utility>

#include "locate.h"
#include "errors.h"
#include "ffn.h"
#include "ffn_common/ffn_common.h"
#include "real_weights.h"

namespace attn {

namespace {

constexpr std::int64_t kLlamaMultipleOf = 256;  // LLaMA's multiple_of, used for the real widths

// Everything the lesson shows, computed before any narration.
struct Swiglu {
  Tensor x;                       // (D)
  Tensor W_gate, W_up, W_down;    // (D, F), (D, F), (F, D)
  SwigluPass p;                   // gate_pre, gate, up, hidden (F); y (D)
  Tensor gate_fraction;           // (F): σ(gate_pre), a factor inside gate
  Tensor ffn_W_1, ffn_W_2;        // (D, 4D), (4D, D): the standard FFN beside it
  FfnPass f;                      // its z, h (4D) and y (D)
};

Swiglu compute(const FfnInput& in, std::size_t F, std::uint64_t seed) {
  Rng rng(seed);
  Swiglu s;
  std::size_t D = in.D, F4 = 4 * D;
  s.x = input_tensor(in, rng);
  s.W_gate = init_weight(rng, D, F);
  s.W_up = init_weight(rng, D, F);
  s.W_down = init_weight(rng, F, D);
  s.ffn_W_1 = init_weight(rng, D, F4);
  s.ffn_W_2 = init_weight(rng, F4, D);
  s.p = swiglu_forward(s.x, s.W_gate, s.W_up, s.W_down);
  s.gate_fraction = apply(s.p.gate_pre, sigmoid);
  // No biases, as in the chapter's section 4 formula.
  s.f = ffn_forward(s.x, s.ffn_W_1, Tensor({F4}), s.ffn_W_2, Tensor({D}), Activation::Gelu);
  return s;
}

// mode: how this run's F was set: "rule" (⌊8D/3⌋, unrounded), "multiple" (--multiple-of), "d_ff".
void step_input(LessonRecorder& r, const Swiglu& s, std::size_t F, std::int64_t run_multiple, const char* mode) {
  std::int64_t rule = swiglu_hidden(I(s.x.numel()), 1);  // ⌊8D/3⌋
  r.step("input", {{"d_model", s.x.numel()},
                   {"rule", rule},
                   {"hidden", F},
                   {"mode", mode},
                   {"multiple_of", run_multiple},
                   {"llama_multiple_of", kLlamaMultipleOf}});
  r.tensor("x", s.x);  // (D)
  r.value("hidden_width", I(F));
}

// The weights are moved into the trace (each is recorded once and read back from there), so a
// 4096 × 11008 run holds one copy of its 2 GiB of weights, not two.
void step_gate_up(LessonRecorder& r, Swiglu& s) {
  std::size_t D = s.W_gate.dim(0), F = s.W_gate.dim(1);
  r.step("gate", {{"d_model", D}, {"hidden", F}});
  r.tensor("W_gate", std::move(s.W_gate));     // (D, F)
  r.tensor("gate_pre", s.p.gate_pre);          // (F)
  r.tensor("gate_fraction", s.gate_fraction);  // (F)
  r.tensor("gate", s.p.gate);                  // (F)

  r.step("up");
  r.tensor("W_up", std::move(s.W_up));  // (D, F)
  r.tensor("up", s.p.up);    // (F)
}

void step_hidden(LessonRecorder& r, Swiglu& s, bool trained = false) {
  const SwigluPass& p = s.p;
  std::size_t F = p.hidden.numel();
  r.step("hidden");
  r.tensor("hidden", p.hidden);  // (F)
  std::size_t positive_gates = count_above(p.gate_pre, 0.0);  // gate > 0 exactly when σ(gate_pre) > 0.5
  if (F <= 32) {
    Table t{{r.t("hidden.col.unit"), "gate_pre", "σ", "gate", "up", "hidden", "|gate|"}, {}};
    for (std::size_t j = 0; j < F; ++j)
      t.rows.push_back({I(j + 1), p.gate_pre.data[j], s.gate_fraction.data[j], p.gate.data[j], p.up.data[j],
                        p.hidden.data[j], std::fabs(p.gate.data[j])});
    r.table(t);
  }
  r.value("gates_open", I(positive_gates));
  r.value("gates_closed", I(F - positive_gates));
  Tensor abs_gate = apply(p.gate, [](double v) { return std::fabs(v); });  // (F)
  std::size_t widest = top_k_indices(abs_gate, 1)[0];
  std::size_t biggest_up = top_k_indices(apply(p.up, [](double v) { return std::fabs(v); }), 1)[0];
  r.note("hidden.note_widest", {{"unit", widest + 1},
                                {"gate", p.gate.data[widest]},
                                {"up", p.up.data[widest]},
                                {"hidden", p.hidden.data[widest]}});
  if (p.gate_pre.data[biggest_up] <= 0.0)
    r.note("hidden.note_negative", {{"unit", biggest_up + 1},
                                    {"up", p.up.data[biggest_up]},
                                    {"gate_pre", p.gate_pre.data[biggest_up]},
                                    {"gate", p.gate.data[biggest_up]},
                                    {"hidden", p.hidden.data[biggest_up]},
                                    {"share", 100.0 * std::fabs(p.gate.data[biggest_up])}});
  // A negative gate that scales `up` more than a positive one: the most negative gate against the
  // smallest positive one.
  std::size_t most_negative = index_of_min(p.gate);
  std::optional<std::size_t> smallest_positive = smallest_above(p.gate, 0.0);
  if (p.gate.data[most_negative] < 0.0 && smallest_positive &&
      -p.gate.data[most_negative] > p.gate.data[*smallest_positive])
    r.note("hidden.note_compare", {{"neg_unit", most_negative + 1},
                                   {"neg_gate", p.gate.data[most_negative]},
                                   {"neg_sigma", s.gate_fraction.data[most_negative]},
                                   {"pos_unit", *smallest_positive + 1},
                                   {"pos_gate", p.gate.data[*smallest_positive]},
                                   {"pos_sigma", s.gate_fraction.data[*smallest_positive]}});
  if (trained)
    r.note("hidden.note_trained", {{"max_abs_gate", abs_gate.data[widest]}, {"open", positive_gates}, {"units", F},
                                   {"silent", count_above(apply(p.gate, [](double v) { return 0.01 - std::fabs(v); }), 0.0)}});
  else
    r.note("hidden.note_training", {{"max_abs_gate", abs_gate.data[widest]}});

  r.step("down", {{"hidden", F}, {"d_model", s.W_down.dim(1)}});
  r.tensor("W_down", std::move(s.W_down));  // (F, D)
  r.tensor("y", p.y);            // (D)
}

// The standard FFN of section 3 (no biases, as in section 4's formula) on the same x.
void step_compare(LessonRecorder& r, Swiglu& s) {
  std::size_t D = s.x.numel(), F4 = 4 * D, F = s.p.hidden.numel();
  r.step("compare", {{"d_ff", F4}});
  r.tensor("ffn_W_1", std::move(s.ffn_W_1));  // (D, 4D)
  r.tensor("ffn_W_2", std::move(s.ffn_W_2));  // (4D, D)
  r.tensor("ffn_h", s.f.h);        // (4D)
  r.tensor("ffn_y", s.f.y);        // (D)
  std::size_t passing = count_above(s.f.z, 0.0), positive_gates = count_above(s.p.gate_pre, 0.0);
  auto d = static_cast<std::int64_t>(D);
  FfnParams standard = ffn_param_count(d, I(F4));
  std::int64_t params_standard = standard.W_1 + standard.W_2;  // no biases here
  Table t{{"", r.t("compare.col.standard"), "SwiGLU"}, {}};
  t.rows.push_back({r.t("compare.row.matrices"), std::string("W_1, W_2"), std::string("W_gate, W_up, W_down")});
  t.rows.push_back({r.t("compare.row.hidden"), I(F4), I(F)});
  t.rows.push_back({r.t("compare.row.params"), params_standard, swiglu_param_count(d, I(F))});
  t.rows.push_back({r.t("compare.row.positive"), I(passing), I(positive_gates)});
  t.rows.push_back({r.t("compare.row.decides"), r.t("compare.cell.own"), r.t("compare.cell.gate")});
  r.table(t);
  r.value("params_standard", params_standard);
  r.value("params_swiglu", swiglu_param_count(d, I(F)));
}

void step_rule(LessonRecorder& r, std::size_t D, std::size_t F, std::int64_t M) {
  r.step("rule", {{"multiple_of", M}});
  Table t{{"", "d", "8d²", "⌊8d/3⌋", "F", "3·d·F", r.t("rule.col.vs")}, {}};
  auto row = [&](const std::string& name, std::int64_t d, std::int64_t hidden) {
    std::int64_t std8 = 8 * d * d, sw = swiglu_param_count(d, hidden);
    t.rows.push_back({name, d, std8, swiglu_hidden(d, 1), hidden, sw,
                      r.t("rule.change", {{"p", 100.0 * static_cast<double>(sw - std8) / static_cast<double>(std8)}})});
  };
  row(r.t("rule.row.run"), I(D), I(F));
  row(r.t("rule.row.gpt2"), 768, swiglu_hidden(768, M));
  row("LLaMA-7B", 4096, swiglu_hidden(4096, M));
  row("LLaMA-13B", 5120, swiglu_hidden(5120, M));
  row("LLaMA-65B", 8192, swiglu_hidden(8192, M));
  r.table(t);
  r.value("hidden_4096", swiglu_hidden(4096, M), {{"multiple_of", M}});
  r.value("params_4096", swiglu_param_count(4096, swiglu_hidden(4096, M)));
  r.value("params_4096_8d2", std::int64_t{8} * 4096 * 4096);
  if (M == kLlamaMultipleOf)
    r.note("rule.note", {{"floor", swiglu_hidden(4096, 1)}, {"rounded", swiglu_hidden(4096, M)}});
}

// The lesson's options (lang and seed come with every run).
struct SwigluOptions : RunContext {
  std::optional<std::string> x;  // --x
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> d_ff;  // --d-ff
  std::optional<std::int64_t> multiple_of;  // --multiple-of
  std::optional<std::string> weights, text, token_ids;  // a real Llama-family checkpoint and the learner's sentence
  std::optional<std::int64_t> layer;
};

// ---- --weights: a real layer's MLP, on the last token ----------------------------------------

constexpr std::size_t kRealMaxTokens = 256;  // the forward below the layer is the only work

// x is the last token's residual after the layer's attention, through post_attention_layernorm;
// W_gate, W_up, W_down are the layer's own. The layer's own forward gives the y to check against.
struct SwigluReal {
  Swiglu s;
  Tensor y_forward;  // (D): the forward's MLP output for the last token
};

SwigluReal compute_real(const RealInput& in, std::size_t layer) {
  LlamaLayerWeights w;
  LlamaLayerPass pass = llama_layer_pass(*in.llama, in.ids, layer, &w);
  std::size_t last = in.ids.size() - 1;
  SwigluReal out;
  Swiglu& s = out.s;
  s.x = row_block(pass.norm2.out, last, 1);  // (1, D)
  s.x = Tensor({s.x.numel()}, s.x.data);      // (D)
  s.W_gate = std::move(w.W_gate);
  s.W_up = std::move(w.W_up);
  s.W_down = std::move(w.W_down);
  s.p = swiglu_forward(s.x, s.W_gate, s.W_up, s.W_down);
  s.gate_fraction = apply(s.p.gate_pre, sigmoid);
  Tensor y = row_block(pass.mlp.y, last, 1);
  out.y_forward = Tensor({y.numel()}, y.data);
  return out;
}

Trace run_real(const SwigluOptions& c) {
  for (auto [set, flag] : {std::pair{c.x.has_value(), "--x"}, {c.d_model.has_value(), "--d-model"}, {c.d_ff.has_value(), "--d-ff"},
                           {c.multiple_of.has_value(), "--multiple-of"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens);
  if (!in.llama) throw UsageError("llama.err.swiglu_gpt2", {{"folder", in.folder}});
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  // llama first: its words for the real matrices replace the random ones' (tensor.W_gate, …)
  LessonRecorder r("swiglu", c.lang, {"llama", "swiglu", "ffn_common"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  r.config("d_model", I(mc.d));
  r.config("hidden", I(mc.d_ff));
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  SwigluReal x = compute_real(in, li);
  Swiglu& s = x.s;
  r.step("real_swiglu", {{"folder", weights_label(in.folder)}, {"type", mc.model_type}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"d_model", mc.d},
                         {"hidden", mc.d_ff}, {"token", in.labels.back()}, {"n", in.ids.size()},
                         {"ratio", static_cast<double>(mc.d_ff) / static_cast<double>(mc.d)}});
  r.tensor("x", s.x);  // (D)
  r.value("hidden_width", I(mc.d_ff));
  step_gate_up(r, s);
  step_hidden(r, s, true);
  r.value("mlp_check", max_abs_diff(s.p.y, x.y_forward));
  step_rule(r, mc.d, mc.d_ff, kLlamaMultipleOf);
  return r.finish();
}

void bind(OptionBinder& b, SwigluOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--x", o.x);
  b.integer("--d-model", o.d_model);
  b.integer("--d-ff", o.d_ff);
  b.integer("--multiple-of", o.multiple_of);
}

Trace run(const SwigluOptions& c) {
  if (c.weights) return run_real(c);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r("swiglu", c.lang, {"swiglu", "ffn_common"});
  FfnInput in = resolve_ffn_input(c);
  std::int64_t M = c.multiple_of ? I(positive(c.multiple_of, 1, "--multiple-of")) : kLlamaMultipleOf;
  std::int64_t run_multiple = c.multiple_of ? M : 1;  // no rounding at a toy width unless asked
  {
    // W_gate, W_up, W_down (3·D·F) beside the standard FFN it is compared with (W_1, W_2: 8·D²).
    double f = c.d_ff ? static_cast<double>(positive(c.d_ff, 0, "--d-ff")) : 0.0;
    auto hidden = [&](double D) { return c.d_ff ? f : D * 8.0 / 3.0 + static_cast<double>(run_multiple); };
    require_work([&](double D) { return Work{3.0 * D * hidden(D) + 8.0 * D * D, (3.0 * D + 8.0) * hidden(D) + 8.0 * D * D + 8.0 * D,
                                               std::max(D * hidden(D), 4.0 * D * D)}; },
                 in.D, c.x ? "--x" : "--d-model", "--d-model, --d-ff, --multiple-of, --x");
  }
  require_fits({in.D, 4 * in.D}, "the standard FFN's W_1", "--d-model");
  std::size_t F = c.d_ff ? positive(c.d_ff, 0, "--d-ff")
                         : static_cast<std::size_t>(swiglu_hidden(I(in.D), run_multiple));
  require_fits({in.D, F}, "W_gate", "--d-model, --d-ff or --multiple-of");
  r.config("seed", c.seed);
  r.config("d_model", I(in.D));
  r.config("hidden", I(F));
  // The rounding this run's F used (1: none); the real widths of the last step use M.
  r.config("multiple_of", c.d_ff ? std::int64_t{1} : run_multiple);
  Swiglu s = compute(in, F, static_cast<std::uint64_t>(c.seed));

  step_input(r, s, F, run_multiple, c.d_ff ? "d_ff" : c.multiple_of ? "multiple" : "rule");
  step_gate_up(r, s);
  step_hidden(r, s);
  step_compare(r, s);
  step_rule(r, in.D, F, M);
  return r.finish();
}

}  // namespace

extern const LessonInfo swiglu_lesson = lesson_info<SwigluOptions>("swiglu", bind, run);

}  // namespace attn
