// Lesson `kv-memory`: section 3.4 of the chapter — the FFN as a key-value memory (Geva et al. 2021).
//   key j = column j of W_1 (with b_1[j]), value j = row j of W_2
//   y = Σ_j act(x·k_j + b_1[j]) · v_j + b_2
// with one memory planted by hand (data/kv_memory/paris.json, read by src/models/chapter_data):
// "capital of France" -> "Paris". Words: lessons/kv_memory/LANG.cat (features: feature.ID, inputs:
// input.ID). Legend: D = features of the toy vectors (6), F = d_ff, K = --top-k.
#include "locate.h"
#include "errors.h"
#include "ffn.h"
#include "ffn_common/ffn_common.h"
#include "real_weights.h"

namespace attn {

namespace {

constexpr double kBiasStd = 0.1;

struct Layer {
  Tensor W_1, b_1, W_2, b_2;  // (D, F), (F), (F, D), (D)
};

// One input read from the memory.
struct Read {
  Tensor x;           // (D)
  MemoryRead m;       // match, activation (F); contribution (F, D); y (D); top_keys (K)
  Tensor norms;       // (F): |contribution_j|
  FfnPass direct;     // the same layer as a plain FFN, for the sum check
  std::size_t top_feature;  // the strongest feature of y
};

// Everything the lesson shows, computed before any narration.
struct KvMemory {
  Layer L;
  Read a, b;  // a: the matching input (or --x), b: the other input
};

// Random keys and values from the seed, then the planted memory written into slot `m.slot`.
Layer build_layer(const PlantedMemory& m, std::size_t F, Rng& rng) {
  std::size_t D = m.key.size();
  Layer L{init_weight(rng, D, F), randn(rng, {F}, kBiasStd), init_weight(rng, F, D), randn(rng, {D}, kBiasStd)};
  for (std::size_t i = 0; i < D; ++i) {
    L.W_1(i, m.slot) = m.key[i];    // key: a column of W_1
    L.W_2(m.slot, i) = m.value[i];  // value: a row of W_2
  }
  L.b_1.data[m.slot] = m.bias;
  return L;
}

Read read(const Layer& L, const std::vector<double>& x, Activation act, std::size_t K) {
  Read r;
  r.x = Tensor({x.size()}, x);
  r.m = ffn_as_memory(r.x, L.W_1, L.b_1, L.W_2, L.b_2, act, K);
  r.norms = row_norms(r.m.contribution);
  r.direct = ffn_forward(r.x, L.W_1, L.b_1, L.W_2, L.b_2, act);
  r.top_feature = top_k_indices(r.m.y, 1)[0];
  return r;
}

KvMemory compute(const PlantedMemory& m, std::size_t F, std::size_t K, Activation act,
                 const std::optional<std::vector<double>>& custom, std::uint64_t seed) {
  Rng rng(seed);
  KvMemory k;
  k.L = build_layer(m, F, rng);
  k.a = read(k.L, custom ? *custom : m.inputs[0].x, act, K);
  k.b = read(k.L, m.inputs[1].x, act, K);
  return k;
}

void step_convention(LessonRecorder& r, const Layer& L, const Labels& keys, const Labels& values, std::size_t F) {
  r.step("convention", {{"keys", F}});
  Labels k = keys, v = values;
  k.axes = {"dim", "key"}, v.axes = {"key", "dim"};
  r.tensor("W_1", L.W_1, k);                             // (D, F)
  r.tensor("b_1", L.b_1, Labels{.cols = keys.cols});     // (F)
  r.tensor("W_2", L.W_2, v);                             // (F, D)
  r.tensor("b_2", L.b_2, Labels{.cols = values.cols});   // (D)
}

void step_planted(LessonRecorder& r, const PlantedMemory& m, const Labels& feats) {
  r.step("planted", {{"features", m.key.size()},
                     {"key", m.slot + 1},
                     {"feature_a", feats.cols[m.feature_a]},
                     {"feature_b", feats.cols[m.feature_b]},
                     {"bias", m.bias},
                     {"answer", feats.cols[m.answer]}});
  r.tensor("planted_key", Tensor({m.key.size()}, m.key), feats, {{"key", m.slot + 1}});
  r.tensor("planted_value", Tensor({m.value.size()}, m.value), feats, {{"key", m.slot + 1}});
  r.value("planted_bias", m.bias, {{"key", m.slot + 1}});
}

// Read the memory with one input: match, activation, top keys, contributions, output.
// Tensor names get `suffix` ("" for the main input, "_other" for the contrast).
void step_read(LessonRecorder& r, const Read& rd, const std::string& suffix, const std::string& what, Activation act,
               std::size_t top_k, const PlantedMemory& m, const Labels& feats, const Labels& keys) {
  const MemoryRead& mr = rd.m;
  r.step("match" + suffix, {{"what", what}, {"act", activation_name(act)}});
  r.tensor("x" + suffix, rd.x, feats, {{"what", what}});             // (D)
  r.tensor("match" + suffix, mr.match, Labels{.cols = keys.cols});           // (F)
  r.tensor("activation" + suffix, mr.activation, Labels{.cols = keys.cols});  // (F)
  r.tensor("top_keys" + suffix, mr.top_keys);                                 // (K)
  Table t{{r.t("match.col.rank"), r.t("match.col.key"), r.t("match.col.match"), r.t("match.col.activation"),
           r.t("match.col.contribution"), ""}, {}};
  for (std::size_t k = 0; k < top_k; ++k) {
    auto j = static_cast<std::size_t>(mr.top_keys.data[k]);
    t.rows.push_back({I(k + 1), I(j + 1), mr.match.data[j], mr.activation.data[j], rd.norms.data[j],
                      j == m.slot ? r.t("match.planted") : std::string("")});
  }
  r.table(t);
  if (mr.activation.data[static_cast<std::size_t>(mr.top_keys.data[0])] <= 0.0) r.note("match.note_none");
  r.value("planted_activation" + suffix, mr.activation.data[m.slot], {{"key", m.slot + 1}});

  r.step("write" + suffix, {{"what", what}});
  r.tensor("contribution" + suffix, mr.contribution, Labels{.rows = keys.cols, .cols = feats.cols, .axes = {"key", "dim"}});  // (F, D)
  r.tensor("y" + suffix, mr.y, feats);                                                             // (D)
  r.value("sum_check" + suffix, max_abs_diff(rd.direct.y, mr.y));
  r.value("planted_share" + suffix, fraction_of_total(rd.norms, m.slot), {{"key", m.slot + 1}});
  r.value("top_feature" + suffix, feats.cols[rd.top_feature]);
}

// The lesson's options (lang and seed come with every run).
struct KvMemoryOptions : RunContext {
  std::optional<std::string> x;  // --x
  std::optional<std::int64_t> d_ff;  // --d-ff
  std::optional<std::int64_t> top_k;  // --top-k
  std::optional<std::string> activation;  // --activation
  std::optional<std::string> weights, text, token_ids;  // a real GPT-2 checkpoint and the learner's sentence
  std::optional<std::int64_t> layer;                    // counting from 1
};

void bind(OptionBinder& b, KvMemoryOptions& o) {
  b.text("--weights", o.weights);
  b.integer("--layer", o.layer);
  b.text("--text", o.text);
  b.text("--token-ids", o.token_ids);
  b.text("--x", o.x);
  b.integer("--d-ff", o.d_ff);
  b.integer("--top-k", o.top_k);
  b.text("--activation", o.activation);
}

// ---- --weights: a real GPT-2 layer's MLP read as a memory --------------------------------------

constexpr std::size_t kRealMaxTokens = 256;

// x is the last token's residual after the layer's attention, through ln_2 (what the MLP reads);
// keys are the columns of the layer's real W_1 (mlp.c_fc), values the rows of its W_2 (mlp.c_proj).
struct RealMemory {
  Layer L;
  Read rd;
  Tensor top_contributions;  // (K, D): the rows of rd.m.contribution of the K strongest keys
  Tensor y_forward;          // (D): the forward's MLP output for the last token
  Activation act;
};

RealMemory compute_real(const RealInput& in, std::size_t layer, std::size_t K) {
  Gpt2LayerWeights w;
  Gpt2LayerPass pass = gpt2_layer_pass(*in.model, in.ids, layer, &w);
  std::size_t last = in.ids.size() - 1;
  RealMemory out;
  out.act = in.model->activation();
  out.L = {std::move(w.W_1), std::move(w.b_1), std::move(w.W_2), std::move(w.b_2)};
  Tensor x = row_block(pass.ln2.out, last, 1);  // (1, D)
  out.rd = read(out.L, x.data, out.act, K);
  std::vector<Tensor> rows;  // K of (1, D)
  for (double j : out.rd.m.top_keys.data) rows.push_back(row_block(out.rd.m.contribution, static_cast<std::size_t>(j), 1));
  out.top_contributions = Tensor({K, x.numel()}, stack0(rows).data);  // (K, D)
  Tensor y = row_block(pass.ffn.y, last, 1);
  out.y_forward = Tensor({y.numel()}, y.data);
  return out;
}

void step_real_read(LessonRecorder& r, const RealMemory& x, std::size_t K, const std::string& token) {
  const MemoryRead& mr = x.rd.m;
  r.step("real_match", {{"token", token}, {"act", activation_name(x.act)}, {"keys", mr.match.numel()}});
  r.tensor("x", x.rd.x, {}, {{"what", r.t("real_match.what", {{"token", token}})}});
  r.tensor("match", mr.match);
  r.tensor("activation", mr.activation);
  r.tensor("real_top_keys", mr.top_keys);  // (K)
  Table t{{r.t("match.col.rank"), r.t("real_match.col.key"), r.t("match.col.match"), r.t("match.col.activation"),
           r.t("match.col.contribution")}, {}};
  for (std::size_t k = 0; k < K; ++k) {
    auto j = static_cast<std::size_t>(mr.top_keys.data[k]);
    t.rows.push_back({I(k + 1), I(j), mr.match.data[j], mr.activation.data[j], x.rd.norms.data[j]});
  }
  r.table(t);
  std::size_t fired = count_above(mr.activation, 0.0);
  r.value("keys_fired", I(fired));
  r.step("real_write", {{"k", K}});
  r.tensor("top_contributions", x.top_contributions, Labels{.rows = numbered(K, "#"), .axes = {"rank", "dim"}});  // (K, D)
  r.tensor("y", mr.y);
  r.value("sum_check", max_abs_diff(x.rd.direct.y, mr.y));
  r.value("forward_check", max_abs_diff(mr.y, x.y_forward));
  double top_share = 0;
  for (double j : mr.top_keys.data) top_share += fraction_of_total(x.rd.norms, static_cast<std::size_t>(j));
  r.value("top_share", top_share);
  r.note("real_write.note", {{"k", K}, {"share", 100.0 * top_share}, {"fired", fired}, {"keys", mr.match.numel()}});
}

Trace run_real(const KvMemoryOptions& c) {
  for (auto [set, flag] : {std::pair{c.x.has_value(), "--x"}, {c.d_ff.has_value(), "--d-ff"}, {c.activation.has_value(), "--activation"}})
    if (set) throw UsageError("checkpoint.err.with_weights", {{"flag", flag}});
  RealInput in = load_real_input(*c.weights, c.text, c.token_ids, kRealMaxTokens);
  if (!in.model) throw UsageError("llama.err.ffn_llama", {{"folder", in.folder}});
  if (in.model->attention_only()) throw UsageError("checkpoint.err.attention_only", {{"folder", in.folder}});
  const ModelConfig& mc = in.config();
  // --layer counts from 1 (what the learner reads); li is the tensor index, h.li.… / model.layers.li.…
  const std::size_t li = checkpoint_layer(c.layer, mc.l);
  const std::int64_t layer = static_cast<std::int64_t>(li) + 1;
  std::size_t K = positive(c.top_k, 5, "--top-k");
  if (K > mc.d_ff) throw UsageError("kv_memory.err.top_k", {{"top_k", K}, {"d_ff", mc.d_ff}});
  LessonRecorder r("kv-memory", c.lang, {"kv_memory", "ffn_common"});
  note_sample_text(r, in);  // no --text on a shipped model: its own sentence, said so
  RealMemory x = compute_real(in, li, K);
  r.config("d_model", I(mc.d));
  r.config("d_ff", I(mc.d_ff));
  r.config("top_k", I(K));
  r.config("activation", std::string(activation_name(x.act)));
  r.config("weights", weights_label(in.folder));
  r.config("layer", layer);
  r.config("tokens", in.labels);
  r.step("real_model", {{"folder", weights_label(in.folder)}, {"layer", layer}, {"l0", static_cast<std::int64_t>(li)}, {"layers", mc.l}, {"d_model", mc.d}, {"keys", mc.d_ff},
                        {"token", in.labels.back()}, {"n", in.ids.size()}});
  r.tensor("W_1", x.L.W_1, {.axes = {"dim", "key"}});  // (D, F): column j is key j
  r.tensor("b_1", x.L.b_1);  // (F)
  r.tensor("W_2", x.L.W_2, {.axes = {"key", "dim"}});  // (F, D): row j is value j
  r.tensor("b_2", x.L.b_2);  // (D)
  step_real_read(r, x, K, in.labels.back());
  return r.finish();
}

Trace run(const KvMemoryOptions& c) {
  if (c.weights) return run_real(c);
  for (auto [set, flag] : {std::pair{c.text.has_value(), "--text"}, {c.token_ids.has_value(), "--token-ids"},
                           {c.layer.has_value(), "--layer"}})
    if (set) throw UsageError("checkpoint.err.needs_weights", {{"flag", flag}});
  LessonRecorder r("kv-memory", c.lang, {"kv_memory", "ffn_common"});
  const PlantedMemory& m = planted_memory();
  std::size_t D = m.key.size();
  std::size_t F = positive(c.d_ff, 8, "--d-ff");
  if (F <= m.slot) throw UsageError("kv_memory.err.d_ff_small", {{"d_ff", F}, {"key", m.slot + 1}});
  std::size_t K = positive(c.top_k, 3, "--top-k");
  if (K > F) throw UsageError("kv_memory.err.top_k", {{"top_k", K}, {"d_ff", F}});
  Activation act = resolve_activation(c);
  // Every slot is scored, ranked and tabled: about a hundred numbers' worth of work each.
  double d = static_cast<double>(D);
  require_work([&](double f) { return Work{2.0 * f * d, f * (d + 100.0)}; }, F, "--d-ff", "--d-ff");
  require_fits({F, D}, "W_2", "--d-ff");
  std::optional<std::vector<double>> custom;
  if (c.x) {
    custom = parse_numbers(*c.x, "--x");
    if (custom->size() != D) throw UsageError("kv_memory.err.x_size", {{"count", custom->size()}, {"features", D}});
  }
  r.config("seed", c.seed);
  r.config("d_model", I(D));
  r.config("d_ff", I(F));
  r.config("top_k", I(K));
  r.config("activation", std::string(activation_name(act)));
  KvMemory k = compute(m, F, K, act, custom, static_cast<std::uint64_t>(c.seed));

  std::vector<std::string> feature_words;
  for (const std::string& f : m.features) feature_words.push_back(r.t("feature." + f));
  Labels feats{.cols = feature_words};
  Labels keys{.rows = feats.cols, .cols = numbered(F, "k")};
  Labels values{.rows = numbered(F, "v"), .cols = feats.cols};
  step_convention(r, k.L, keys, values, F);
  step_planted(r, m, feats);

  std::string what = custom ? r.t("input.custom") : r.t("input." + m.inputs[0].id);
  step_read(r, k.a, "", what, act, K, m, feats, keys);
  const MemoryRead& a = k.a.m;
  const MemoryRead& b = k.b.m;
  std::string answer = feats.cols[m.answer];
  bool recalled = a.top_keys.data[0] == static_cast<double>(m.slot) && k.a.top_feature == m.answer;
  r.note("write.note_recall", {{"recalled", recalled},
                               {"key", m.slot + 1},
                               {"activation", a.activation.data[m.slot]},
                               {"written", a.contribution(m.slot, m.answer)},
                               {"answer", answer},
                               {"share", 100.0 * fraction_of_total(k.a.norms, m.slot)},
                               {"output", a.y.data[m.answer]}});
  step_read(r, k.b, "_other", r.t("input." + m.inputs[1].id), act, K, m, feats, keys);
  std::size_t top_b = k.b.top_feature;
  r.note("write_other.note", {{"match", b.match.data[m.slot]},
                              {"activation", b.activation.data[m.slot]},
                              {"key", m.slot + 1},
                              {"written", b.contribution(m.slot, m.answer)},
                              {"answer", answer},
                              {"written_first", a.contribution(m.slot, m.answer)},
                              {"top", feats.cols[top_b]},
                              {"top_value", max_abs(b.y) == 0 ? 0.0 : b.y.data[top_b]}});
  return r.finish();
}

}  // namespace

extern const LessonInfo kv_memory_lesson = lesson_info<KvMemoryOptions>("kv-memory", bind, run);

}  // namespace attn
