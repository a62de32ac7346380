// Lesson `attention`: one attention head, the previous chapter's prerequisite.
//   X -> Q, K, V -> scores = Q Kᵀ / √d_k -> (causal mask) -> softmax -> weights -> output = weights V
// Legend: T tokens, D = d_model, Dk = d_k (the head's width). Words: lessons/attention/LANG.cat.
#include <cmath>

#include "attention.h"
#include "lesson.h"
#include "random.h"

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
};

void bind(OptionBinder& b, AttentionOptions& o) {
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
  h.scores = attention_scores(h.Q, h.K);
  if (causal) h.scores = causal_mask(h.scores);
  h.weights = softmax_rows(h.scores);
  h.output = matmul(h.weights, h.V);
  return h;
}

Trace run(const AttentionOptions& c) {
  LessonRecorder r("attention", c.lang, {"attention"});
  std::vector<std::string> tokens = resolve_tokens(c, chapter_tokens(c.lang, 4));
  Dims d = resolve_dims(c, tokens.size());
  record_common_config(r, c, tokens);
  r.config("d_model", I(d.D));
  r.config("d_k", I(d.Dk));
  Head h = compute(d, static_cast<std::uint64_t>(c.seed), c.causal);
  Labels rows{.rows = tokens};

  r.step("input");
  r.tensor("X", h.X, rows);

  r.step("project");
  r.tensor("W_Q", h.W_Q);
  r.tensor("W_K", h.W_K);
  r.tensor("W_V", h.W_V);
  r.tensor("Q", h.Q, rows);
  r.tensor("K", h.K, rows);
  r.tensor("V", h.V, rows);

  r.step("scores");
  r.tensor("scores", h.scores, {.rows = tokens, .cols = tokens}, {{"causal", c.causal}});
  r.value("d_k", I(d.Dk));
  r.value("sqrt_d_k", std::sqrt(static_cast<double>(d.Dk)));
  if (c.causal) r.note("scores.note_causal");

  r.step("softmax");
  r.tensor("weights", h.weights, {.rows = tokens, .cols = tokens, .heatmap = true});
  r.value("max_row_sum_error", max_row_sum_error(h.weights));
  for (std::size_t i = 0; i < d.T; ++i) {
    std::size_t j = strongest_column(h.weights, 0, i);
    r.note("softmax.note_strongest", {{"query", tokens[i]}, {"key", tokens[j]}, {"weight", h.weights(i, j)}});
  }

  r.step("output");
  r.show("V");
  r.tensor("output", h.output, rows);
  return r.finish();
}

}  // namespace

extern const LessonInfo attention_lesson = lesson_info<AttentionOptions>("attention", bind, run);

}  // namespace attn
