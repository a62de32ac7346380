// Lesson `attention`: one attention head, the previous chapter's prerequisite.
//   X -> Q, K, V -> scores = Q Kᵀ / √d_k -> (causal mask) -> softmax -> weights -> output = weights V
// Legend: T tokens, D = d_model, Dk = d_k (the head's width). Words: lessons/attention/LANG.cat.
#include <cmath>

#include "locate.h"
#include "attention.h"
#include "errors.h"
#include "lesson.h"
#include "random.h"
#include "real_weights.h"
#include "rope_half.h"
#include "row_stats.h"

namespace attn {

namespace {

struct Dims {
  std::size_t T, D, Dk;
};

// The lesson's options (lang and seed come with every run).
struct AttentionOptions : RunContext {
  std::optional<std::string> tokens;  // --tokens
  std::optional<std::int64_t> seq_len;  // --seq-len
  std::optional<std::int64_t> d_model;  // --d-model
  std::optional<std::int64_t> head_dim;  // --head-dim
  bool causal = false;  // --causal
  std::optional<std::string> weights, text, token_ids;  // a real checkpoint and the learner's sentence
  std::optional<std::int64_t> layer, head;              // counting from 1
};

void bind(OptionBinder& b, AttentionOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.integer("--head", o.head);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--tokens", o.tokens);
  b.integer("--seq-len", o.seq_len);
  b.integer("--d-model", o.d_model);
  b.integer("--head-dim", o.head_dim);
  b.toggle("--causal", o.causal);
}

Dims resolve_dims(const AttentionOptions& c, std::size_t T) {
  std::size_t D = positive(c.d_model, 8, "--d-model");
  std::size_t Dk = positive(c.head_dim, 4, "--head-dim");
  double dm = static_cast<double>(D), dk = static_cast<double>(Dk);
  require_work([&](double t) { return Work{3.0 * t * dm * dk + 2.0 * t * t * dk, t * dm + 3.0 * dm * dk + 4.0 * t * dk + 4.0 * t * t}; },
               T, "--seq-len/--tokens", "--seq-len/--tokens, --d-model, --head-dim");
  require_fits({T, D}, "X", "--seq-len/--tokens or --d-model");
  require_fits({D, Dk}, "W_Q", "--d-model or --head-dim");
  require_fits({T, T}, "the scores", "--seq-len/--tokens");
  return {T, D, Dk};
}

// Everything the lesson shows, computed before any narration.
struct Head {
  Tensor X, W_Q, W_K, W_V;  // (T, D), (D, Dk) × 3
  Tensor Q, K, V;           // (T, Dk) each
  Tensor scores;            // (T, T): Q Kᵀ / √d_k, masked entries -inf when causal
  Tensor weights;           // (T, T): row softmax of scores
  Tensor output;            // (T, Dk): weights V
};

void attend_head(Head& h, bool causal);

Head compute(const Dims& d, std::uint64_t seed, bool causal) {
  Rng rng(seed);
  Head h;
  h.X = randn(rng, {d.T, d.D});
  h.W_Q = init_weight(rng, d.D, d.Dk);
  h.W_K = init_weight(rng, d.D, d.Dk);
  h.W_V = init_weight(rng, d.D, d.Dk);
  h.Q = matmul(h.X, h.W_Q);
  h.K = matmul(h.X, h.W_K);
  h.V = matmul(h.X, h.W_V);
  attend_head(h, causal);
  return h;
}

// Q, K, V, scores, weights and output from X and one head's weights, as the chapter writes them.
void attend_head(Head& h, bool causal) {
  h.scores = attention_scores(h.Q, h.K);
  if (causal) h.scores = causal_mask(h.scores);
  h.weights = softmax_rows(h.scores);
  h.output = matmul(h.weights, h.V);
}

void narrate(LessonRecorder& r, const Head& h, const std::vector<std::string>& tokens, bool causal, bool real) {
  Labels rows{.rows = tokens};
  std::size_t T = tokens.size(), Dk = h.Q.dim(1);
  r.step(real ? "input_real" : "input");
  r.tensor("X", h.X, rows);

  r.step("project");
  r.tensor("W_Q", h.W_Q);
  r.tensor("W_K", h.W_K);
  r.tensor("W_V", h.W_V);
  r.tensor("Q", h.Q, rows);
  r.tensor("K", h.K, rows);
  r.tensor("V", h.V, rows);

  r.step("scores");
  r.tensor("scores", h.scores, {.rows = tokens, .cols = tokens}, {{"causal", causal}});
  r.value("d_k", I(Dk));
  r.value("sqrt_d_k", std::sqrt(static_cast<double>(Dk)));
  if (causal) r.note("scores.note_causal");

  r.step("softmax");
  r.tensor("weights", h.weights, {.rows = tokens, .cols = tokens, .heatmap = true});
  r.value("max_row_sum_error", max_row_sum_error(h.weights));
  for (std::size_t i = 0; i < T; ++i) {
    std::size_t j = strongest_column(h.weights, 0, i);
    r.note("softmax.note_strongest", {{"query", tokens[i]}, {"key", tokens[j]}, {"weight", h.weights(i, j)}});
  }

  r.step("output");
  r.show("V");
  r.tensor("output", h.output, rows);
}

// ---- --weights: one head of a real layer -------------------------------------------------------

constexpr std::size_t kRealMaxTokens = 64;  // the (T, T) heatmap stays readable

struct RealHead {
  Head h;
  Tensor forward_weights;  // (T, T): the same head's weights inside the layer's full forward
  std::size_t kv_head = 0; // the KV head it reads (GPT-2: itself)
};

Tensor bias_block(const Tensor& b, std::size_t i, std::size_t width) {  // (width): entries i·width …
  return Tensor({width}, std::vector<double>(b.data.begin() + static_cast<std::ptrdiff_t>(i * width),
                                             b.data.begin() + static_cast<std::ptrdiff_t>((i + 1) * width)));
}

// (T, Dh) rotated for positions 0 … T−1 with the model's RoPE frequencies.
Tensor rotate(const Tensor& x, const Tensor& inv_freq) {
  Tensor r = apply_rope_half(Tensor({1, x.dim(0), x.dim(1)}, x.data), inv_freq);  // (1, T, Dh)
  return Tensor({x.dim(0), x.dim(1)}, r.data);
}

// X is the attention input of the layer (GPT-2's ln_1, a Llama's input RMSNorm) on the residual
// stream entering it; W_Q, W_K, W_V are head `head`'s column blocks (a Llama's K and V those of its
// KV head), each with its bias; a Llama's q and k are rotated (RoPE) before the scores. Causal.
// Head `head`'s column blocks of the fused W_Q and of W_K, W_V at its KV head, each with its bias.
void project_head(Head& h, const Tensor& W_Q, const Tensor& W_K, const Tensor& W_V, const Tensor& b_Q, const Tensor& b_K,
                  const Tensor& b_V, std::size_t head, std::size_t kv_head, std::size_t Dh) {
  h.W_Q = col_block(W_Q, head, Dh);     // (D, Dh)
  h.W_K = col_block(W_K, kv_head, Dh);  // (D, Dh)
  h.W_V = col_block(W_V, kv_head, Dh);  // (D, Dh)
  h.Q = add_bias(matmul(h.X, h.W_Q), bias_block(b_Q, head, Dh));     // (T, Dh)
  h.K = add_bias(matmul(h.X, h.W_K), bias_block(b_K, kv_head, Dh));  // (T, Dh)
  h.V = add_bias(matmul(h.X, h.W_V), bias_block(b_V, kv_head, Dh));  // (T, Dh)
}

RealHead compute_real(const RealInput& in, std::size_t layer, std::size_t head) {
  const ModelConfig& mc = in.config();
  RealHead out;
  Head& h = out.h;
  if (in.llama) {
    LlamaLayerWeights w;
    LlamaLayerPass pass = llama_layer_pass(*in.llama, in.ids, layer, &w);
    out.kv_head = head / (mc.n_h / mc.n_g);
    h.X = std::move(pass.norm1.out);  // (T, D)
    project_head(h, w.W_Q, w.W_K, w.W_V, w.b_Q, w.b_K, w.b_V, head, out.kv_head, mc.d_h);
    h.Q = rotate(h.Q, in.llama->inv_freq());
    h.K = rotate(h.K, in.llama->inv_freq());
    out.forward_weights = slice0(pass.attn.weights, head);  // (T, T)
  } else {
    Gpt2LayerWeights w;
    Gpt2LayerPass pass = gpt2_layer_pass(*in.model, in.ids, layer, &w);
    out.kv_head = head;
    h.X = std::move(pass.ln1.out);  // (T, D)
    project_head(h, w.W_Q, w.W_K, w.W_V, w.b_Q, w.b_K, w.b_V, head, head, mc.d_h);
    out.forward_weights = slice0(pass.attn.weights, head);  // (T, T)
  }
  attend_head(h, true);
  return out;
}

Trace run_real(const AttentionOptions& c) {
  for (auto [set, flag] : {std::pair{c.tokens.has_value(), "--tokens"}, {c.seq_len.has_value(), "--seq-len"},
                           {c.d_model.has_value(), "--d-model"}, {c.head_dim.has_value(), "--head-dim"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens);
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  const std::size_t hi = checkpoint_head(c.head, mc.n_h);
  const std::int64_t head = static_cast<std::int64_t>(hi) + 1;
  AttentionOptions run = c;
  run.causal = true;  // the checkpoint's attention is causal, whatever --causal says
  LessonRecorder r("attention", c.lang, {"attention"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  RealHead x = compute_real(in, li, hi);
  record_common_config(r, run, in.labels);
  r.config("d_model", I(mc.d));
  r.config("d_k", I(mc.d_h));
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  r.config("head", head);
  r.step("real_model", {{"folder", weights_label(in.folder)}, {"from_text", in.from_text}, {"type", mc.model_type}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"head", head}, {"h0", static_cast<std::int64_t>(hi)},
                        {"heads", mc.n_h}, {"d_k", mc.d_h}, {"d_model", mc.d}, {"from", static_cast<std::int64_t>(hi * mc.d_h)},
                        {"to", static_cast<std::int64_t>((hi + 1) * mc.d_h) - 1}, {"llama", in.llama != nullptr},
                        {"kv_head", x.kv_head + 1}, {"asked_causal", c.causal}});
  narrate(r, x.h, in.labels, true, true);
  r.value("forward_check", max_abs_diff(x.h.weights, x.forward_weights));
  r.note("output.note_real", {{"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"head", head}, {"h0", static_cast<std::int64_t>(hi)}});
  return r.finish();
}

Trace run(const AttentionOptions& c) {
  if (c.weights) return run_real(c);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}, {c.head.has_value(), "--head"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r("attention", c.lang, {"attention"});
  const std::vector<std::string> defaults = chapter_tokens(c.lang, 4);
  Dims d = resolve_dims(c, token_count(c, defaults));  // sizes checked: nothing per token yet
  std::vector<std::string> tokens = resolve_tokens(c, defaults);
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("d_k", I(d.Dk));
  Head h = compute(d, static_cast<std::uint64_t>(c.seed), c.causal);
  narrate(r, h, tokens, c.causal, false);
  return r.finish();
}

}  // namespace

extern const LessonInfo attention_lesson = lesson_info<AttentionOptions>("attention", bind, run);

}  // namespace attn
