// Lesson `tradeoffs`: the quality side of the chapter's trade-offs, measured. The chapter says GQA
// and MQA are "slightly worse" than MHA and that SwiGLU "works better" than a GELU FFN; the
// conversation says MLA keeps MHA's quality with a far smaller cache. Here every variant is
// trained on the same text, at the same parameter count, on the same characters with the same
// schedule, over several seeds (src/train/tradeoffs_study.h), and every verdict is computed from
// the held-out losses: a difference inside the seeds' spread is called so.
// The shipped results (data/tradeoffs/results.json) are read by default; --retrain trains one
// variant at every seed now and sets it beside them.
// Legend: S seeds, K variants, E evaluation points. Words: lessons/tradeoffs/LANG.cat.
#include <algorithm>
#include <cmath>

#include "errors.h"
#include "libm.h"
#include "corpus.h"
#include "lesson.h"
#include "tradeoffs_study.h"

namespace attn {

namespace {

constexpr double kBytesPerNumber = 2;  // a bf16 cache, as served

struct TradeoffsOptions : RunContext {
  bool retrain = false;                // --retrain: train --variant at every seed now
  std::optional<std::string> variant;  // which variant --retrain trains (default mha)
};

void bind(OptionBinder& b, TradeoffsOptions& o) {
  b.toggle("--retrain", o.retrain);
  b.text("--variant", o.variant);
}

// Everything the lesson shows: the study's results, with the retrained variant's runs in place.
struct Tradeoffs {
  train::StudyResults results;
  std::string retrained;           // the variant trained now ("" if none)
  double retrain_max_diff = 0.0;   // largest |held-out loss now − shipped| over its seeds
  std::vector<std::vector<double>> losses;  // (K, S) held-out loss per character
  std::vector<train::SeedSpread> spread;    // (K)
};

const train::StudyVariant& variant_named(const train::StudyResults& r, const std::string& id) {
  return *std::find_if(r.variants.begin(), r.variants.end(), [&](const train::StudyVariant& v) { return v.id == id; });
}

Tradeoffs compute(const TradeoffsOptions& c) {
  Tradeoffs s;
  s.results = train::bundled_study_results();
  if (c.variant && !c.retrain) throw UsageError("tradeoffs.err.variant_alone", {{"flag", "--variant"}});
  if (c.retrain) {
    s.retrained = c.variant.value_or("mha");
    const bool known = std::any_of(s.results.variants.begin(), s.results.variants.end(),
                                   [&](const train::StudyVariant& v) { return v.id == s.retrained; });
    std::string ids;
    for (const train::StudyVariant& v : s.results.variants) ids += (ids.empty() ? "" : ", ") + v.id;
    if (!known) throw UsageError("tradeoffs.err.variant", {{"flag", "--variant"}, {"value", s.retrained}, {"variants", ids}});
    const train::StudyVariant& v = variant_named(s.results, s.retrained);
    require_retrain_fits(train::variant_step_flops(train::study_run(v.model, 1, nullptr)) *
                         static_cast<double>(train::study_run(v.model, 1, nullptr).steps));
    const CorpusSplit split = split_corpus(bundled_corpus(s.results.corpus),
                                           train::kStudyMinCount, train::kStudyKeep);
    const train::TextData data{split.train_ids, split.heldout_ids, split.vocab.tokens.size()};
    for (train::StudyRunResult& run : s.results.runs) {
      if (run.variant != s.retrained) continue;
      const train::VariantResult fresh = train::train_variant(train::study_run(v.model, run.seed, &data));
      s.retrain_max_diff = std::max(s.retrain_max_diff, std::fabs(fresh.heldout_loss - run.heldout_loss));
      run.heldout_loss = fresh.heldout_loss, run.heldout_targets = fresh.heldout_targets, run.evals = fresh.evals;
    }
  }
  for (const train::StudyVariant& v : s.results.variants) {
    std::vector<double> l;
    for (const train::StudyRunResult& run : s.results.runs)
      if (run.variant == v.id) l.push_back(run.heldout_loss);
    s.spread.push_back(train::seed_spread(l));
    s.losses.push_back(std::move(l));
  }
  return s;
}

Tensor vec(const std::vector<double>& v) { return Tensor({v.size()}, v); }  // (n)

// The attention kind as the catalog names it (the variant's label: "GQA, 2 KV heads", …).
std::string label(const LessonRecorder& r, const train::StudyVariant& v) {
  return r.t("variant." + v.id, {{"groups", v.model.kv_heads()}, {"latent", v.model.kv_lora_rank}, {"rope", v.model.rope_dim}});
}

double cache_bytes(const train::StudyVariant& v) {  // per token, every layer, bf16
  return static_cast<double>(v.model.cache_per_token() * v.model.n_layer) * kBytesPerNumber;
}

void step_question(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  const train::StudyVariant& base = res.variants.front();
  const train::VariantRun run = train::study_run(base.model, 1, nullptr);
  r.step("question", {{"variants", res.variants.size()}, {"seeds", std::size(train::kStudySeeds)}, {"corpus", res.corpus},
                      {"chars", res.characters}, {"heldout", res.heldout_characters}, {"vocab", res.vocab},
                      {"layers", base.model.n_layer}, {"d_model", base.model.d_model}, {"heads", base.model.n_head},
                      {"head_dim", base.model.hs()}, {"seq_len", base.model.n_positions}, {"batch", run.batch},
                      {"steps", run.steps}, {"seen", run.batch * run.steps * base.model.n_positions}, {"lr", run.lr},
                      {"warmup", run.warmup}});
  Table t{{r.t("question.col.variant"), r.t("question.col.ffn"), r.t("question.col.d_ff"), r.t("question.col.params"),
           r.t("question.col.cache"), r.t("question.col.bytes")}, {}};
  std::vector<double> params, cache;
  for (const train::StudyVariant& v : res.variants) {
    const double p = decoder::decoder_param_count(v.model);
    params.push_back(p);
    cache.push_back(static_cast<double>(v.model.cache_per_token()));
    t.rows.push_back({label(r, v), v.model.ffn == decoder::Ffn::Swiglu ? std::string("SwiGLU") : std::string("GELU"),
                      I(v.model.F()), I(static_cast<std::size_t>(p)), I(v.model.cache_per_token()),
                      I(static_cast<std::size_t>(cache_bytes(v)))});
  }
  r.tensor("params", vec(params));                 // (K)
  r.tensor("cache_per_token_layer", vec(cache));   // (K)
  r.table(t);
  const auto [lo, hi] = std::minmax_element(params.begin(), params.end());
  r.note("question.note_matched", {{"lo", static_cast<std::size_t>(*lo)}, {"hi", static_cast<std::size_t>(*hi)},
                                   {"diff", static_cast<std::size_t>(*hi - *lo)}, {"share", 100 * (*hi - *lo) / *lo}});
}

void step_results(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  const std::size_t S = std::size(train::kStudySeeds), K = res.variants.size();
  r.step("results", {{"seeds", S}, {"heldout", res.runs.front().heldout_targets}});
  std::vector<std::string> header{r.t("results.col.variant")};
  for (std::uint64_t seed : train::kStudySeeds) header.push_back(r.t("results.col.seed", {{"seed", seed}}));
  for (const char* k : {"results.col.median", "results.col.bpc", "results.col.range", "results.col.seconds"})
    header.push_back(r.t(k));
  Table t{header, {}};
  Tensor losses({K, S});  // (K, S)
  std::vector<double> medians;
  const double ln2 = libm::log(2.0);
  static_assert(std::size(train::kStudySeeds) == 3, "the table has a column per seed");
  for (std::size_t k = 0; k < K; ++k) {
    const std::vector<double>& l = s.losses[k];  // (S)
    for (std::size_t i = 0; i < S; ++i) losses(k, i) = l.at(i);
    std::vector<double> secs;
    for (const train::StudyRunResult& run : res.runs)
      if (run.variant == res.variants[k].id) secs.push_back(run.seconds);
    const train::SeedSpread& sp = s.spread[k];
    t.rows.push_back({label(r, res.variants[k]), l[0], l[1], l[2], sp.median, sp.median / ln2, sp.range(),
                      I(static_cast<std::size_t>(std::lround(train::seed_spread(secs).median)))});
    medians.push_back(sp.median);
  }
  std::vector<std::string> ids, seeds;
  for (const train::StudyVariant& v : res.variants) ids.push_back(v.id);
  for (std::uint64_t seed : train::kStudySeeds) seeds.push_back(r.t("results.col.seed", {{"seed", seed}}));
  r.tensor("heldout_loss", losses, {.rows = ids, .cols = seeds, .axes = {"variant", "seed"}});
  r.tensor("median_loss", vec(medians));
  r.table(t);
  r.note("results.note_time", {{"threads", res.threads}});
  if (!s.retrained.empty())
    r.note("results.note_retrained", {{"variant", s.retrained}, {"diff", s.retrain_max_diff}, {"same", s.retrain_max_diff == 0.0}});
}

void step_curves(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  const train::StudyRunResult& first = res.runs.front();
  r.step("curves", {{"every", first.evals.size() > 1 ? first.evals[1].step : 0}, {"windows", train::study_run({}, 1, nullptr).eval_batch}});
  std::vector<double> steps;
  for (const train::VariantEval& e : first.evals) steps.push_back(static_cast<double>(e.step));
  r.tensor("eval_step", vec(steps));  // (E)
  std::vector<std::string> series;
  for (const train::StudyVariant& v : res.variants) {
    std::vector<double> curve;  // (E): the median over the seeds at each evaluation
    for (std::size_t e = 0; e < steps.size(); ++e) {
      std::vector<double> at;
      for (const train::StudyRunResult& run : res.runs)
        if (run.variant == v.id && e < run.evals.size()) at.push_back(run.evals[e].loss);
      curve.push_back(train::seed_spread(at).median);
    }
    const std::string name = "curve_" + v.id;
    r.tensor(name, vec(curve), {}, {{"variant", label(r, v)}});
    series.push_back(name);
  }
  r.chart({r.t("curves.chart"), "eval_step", series});
}

void step_cache(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  // The attention variants (SwiGLU FFN), by cache size: the loss each buys with its bytes.
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < res.variants.size(); ++k)
    if (res.variants[k].model.ffn == decoder::Ffn::Swiglu) order.push_back(k);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cache_bytes(res.variants[a]) < cache_bytes(res.variants[b]);
  });
  r.step("cache", {{"layers", res.variants.front().model.n_layer}});
  std::vector<double> bytes, loss;
  Table t{{r.t("cache.col.variant"), r.t("cache.col.bytes"), r.t("cache.col.ratio"), r.t("cache.col.median"),
           r.t("cache.col.range")}, {}};
  const double mha = cache_bytes(res.variants.front());
  for (std::size_t k : order) {
    bytes.push_back(cache_bytes(res.variants[k]));
    loss.push_back(s.spread[k].median);
    t.rows.push_back({label(r, res.variants[k]), I(static_cast<std::size_t>(bytes.back())), mha / bytes.back(),
                      s.spread[k].median, s.spread[k].range()});
  }
  r.tensor("cache_bytes", vec(bytes));          // (4) ascending
  r.tensor("loss_by_cache", vec(loss));         // (4)
  r.chart({r.t("cache.chart"), "cache_bytes", {"loss_by_cache"}});
  r.table(t);
}

// One verdict: `other` against `base`, in words computed from the two seed spreads.
void verdict(LessonRecorder& r, Table& t, const Tradeoffs& s, std::size_t base, std::size_t other, const std::string& key) {
  const train::Comparison c = train::compare_spreads(s.spread[base], s.spread[other]);
  // the FFN claim is named by its FFNs (both models have MHA); the attention claims by their variants
  const bool ffn = key == "swiglu";
  const std::string a = ffn ? r.t("verdicts.swiglu") : label(r, s.results.variants[other]),
                    b = ffn ? r.t("verdicts.gelu") : label(r, s.results.variants[base]);
  const std::size_t S = std::size(train::kStudySeeds);
  t.rows.push_back({r.t("verdicts.pair." + key), c.diff, c.spread,
                    r.t("verdicts.short", {{"within", c.within}, {"lower", c.diff < 0}, {"ratio", c.ratio}})});
  r.note("verdicts.sentence", {{"a", a}, {"b", b}, {"within", c.within}, {"lower", c.diff < 0}, {"seeds", S},
                               {"a_loss", s.spread[other].median}, {"b_loss", s.spread[base].median},
                               {"diff", std::fabs(c.diff)}, {"spread", c.spread}, {"ratio", c.ratio}});
}

void step_verdicts(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  auto index = [&](const std::string& id) {
    return static_cast<std::size_t>(std::find_if(res.variants.begin(), res.variants.end(),
                                                 [&](const train::StudyVariant& v) { return v.id == id; }) -
                                    res.variants.begin());
  };
  r.step("verdicts", {{"seeds", std::size(train::kStudySeeds)}});
  Table t{{r.t("verdicts.col.pair"), r.t("verdicts.col.diff"), r.t("verdicts.col.spread"), r.t("verdicts.col.verdict")}, {}};
  verdict(r, t, s, index("mha"), index("gqa-2"), "gqa");
  verdict(r, t, s, index("mha"), index("mqa"), "mqa");
  verdict(r, t, s, index("mha"), index("mla-32"), "mla");
  verdict(r, t, s, index("mha-gelu"), index("mha"), "swiglu");
  r.table(t);
}

Trace run(const TradeoffsOptions& c) {
  LessonRecorder r("tradeoffs", c.lang, {"tradeoffs"});
  const Tradeoffs s = compute(c);
  r.config("retrain", Bool{c.retrain});
  if (!s.retrained.empty()) r.config("variant", s.retrained);
  r.config("corpus", s.results.corpus);
  std::vector<std::string> ids;
  for (const train::StudyVariant& v : s.results.variants) ids.push_back(v.id);
  r.config("variants", ids);
  step_question(r, s);
  step_results(r, s);
  step_curves(r, s);
  step_cache(r, s);
  step_verdicts(r, s);
  r.step("scale");
  return r.finish();
}

}  // namespace

extern const LessonInfo tradeoffs_lesson = lesson_info<TradeoffsOptions>("tradeoffs", bind, run);

}  // namespace attn
