// Lesson `tradeoffs`: the quality side of the chapter's trade-offs, measured. The chapter says GQA
// and MQA are "slightly worse" than MHA and that SwiGLU "works better" than a GELU FFN; the
// conversation says MLA keeps MHA's quality with a far smaller cache. Here every variant is
// trained on the same text, at the same parameter count, on the same characters with the same
// schedule, over several seeds (src/train/tradeoffs_study.h), and every verdict is computed from
// the held-out losses: the seed draws the windows, so the variants' runs at one seed are paired,
// and each claim is tested on its per-seed differences (a paired t-test and a sign test).
// The shipped results (data/tradeoffs/results.json) are read by default; --retrain trains one
// variant at every seed now and sets it beside them.
// Legend: S seeds, K variants, E evaluation points. Words: lessons/tradeoffs/LANG.cat.
#include <algorithm>
#include <cmath>
#include <stdexcept>

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
    std::vector<double> l;  // (S) in the order of kStudySeeds, so that losses[a][i] and losses[b][i] are paired
    for (std::uint64_t seed : train::kStudySeeds)
      for (const train::StudyRunResult& run : s.results.runs)
        if (run.variant == v.id && run.seed == seed) l.push_back(run.heldout_loss);
    if (l.size() != std::size(train::kStudySeeds)) throw std::logic_error("tradeoffs: " + v.id + " lacks a seed's run");
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
  // Attention parameters of one layer (layer 0's attn.* tensors), MHA's against MLA's: MLA adds W_QR
  // and W_KR to the latent's matrices, so its attention can be the larger and its FFN the narrower.
  auto attention_per_layer = [](const train::StudyVariant& v) {
    std::size_t n = 0;
    for (const gpt::ParamTensor& t : decoder::decoder_layout(v.model).tensors)
      if (t.name.rfind("layers.0.attn.", 0) == 0) n += t.size;
    return n;
  };
  const train::StudyVariant& mla = variant_named(res, "mla-32");
  const std::size_t mha_attn = attention_per_layer(base), mla_attn = attention_per_layer(mla);
  r.step("question", {{"variants", res.variants.size()}, {"seeds", std::size(train::kStudySeeds)}, {"corpus", res.corpus},
                      {"mha_attn", mha_attn}, {"mla_attn", mla_attn}, {"mla_more", mla_attn > mha_attn},
                      {"mha_ff", base.model.F()}, {"mla_ff", mla.model.F()},
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
  const std::size_t T = res.variants.front().model.n_positions, targets = res.runs.front().heldout_targets;
  // variant_text_loss: window w reads ids[w·T … w·T + T], so W windows use W·T + 1 characters
  r.step("results", {{"seeds", S}, {"targets", targets}, {"windows", targets / T}, {"seq_len", T},
                     {"heldout", res.heldout_characters}, {"rest", res.heldout_characters - targets - 1}});
  std::vector<std::string> header{r.t("results.col.variant")};
  for (std::uint64_t seed : train::kStudySeeds) header.push_back(r.t("results.col.seed", {{"seed", seed}}));
  for (const char* k : {"results.col.median", "results.col.bpc", "results.col.range", "results.col.seconds"})
    header.push_back(r.t(k));
  Table t{header, {}};
  Tensor losses({K, S});  // (K, S)
  std::vector<double> medians;
  const double ln2 = libm::log(2.0);
  for (std::size_t k = 0; k < K; ++k) {
    const std::vector<double>& l = s.losses[k];  // (S)
    for (std::size_t i = 0; i < S; ++i) losses(k, i) = l.at(i);
    std::vector<double> secs;
    for (const train::StudyRunResult& run : res.runs)
      if (run.variant == res.variants[k].id) secs.push_back(run.seconds);
    const train::SeedSpread& sp = s.spread[k];
    std::vector<Scalar> row(1 + S + 4);  // variant, a column per seed, median, bits/char, range, s/run
    row[0] = label(r, res.variants[k]);
    for (std::size_t i = 0; i < S; ++i) row[1 + i] = l[i];
    row[1 + S] = sp.median;
    row[2 + S] = sp.median / ln2;
    row[3 + S] = sp.range();
    row[4 + S] = I(static_cast<std::size_t>(std::lround(train::seed_spread(secs).median)));
    t.rows.push_back(std::move(row));
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

// The median over the seeds of each variant's loss at each evaluation: (K, E).
std::vector<std::vector<double>> median_curves(const train::StudyResults& res, std::size_t E) {
  std::vector<std::vector<double>> curves;
  for (const train::StudyVariant& v : res.variants) {
    std::vector<double> curve;  // (E)
    for (std::size_t e = 0; e < E; ++e) {
      std::vector<double> at;
      for (const train::StudyRunResult& run : res.runs)
        if (run.variant == v.id && e < run.evals.size()) at.push_back(run.evals[e].loss);
      curve.push_back(train::seed_spread(at).median);
    }
    curves.push_back(std::move(curve));
  }
  return curves;
}

void step_curves(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  const train::StudyRunResult& first = res.runs.front();
  r.step("curves", {{"every", first.evals.size() > 1 ? first.evals[1].step : 0}, {"windows", train::study_run({}, 1, nullptr).eval_batch}});
  std::vector<double> steps;
  for (const train::VariantEval& e : first.evals) steps.push_back(static_cast<double>(e.step));
  r.tensor("eval_step", vec(steps));  // (E)
  const std::vector<std::vector<double>> curves = median_curves(res, steps.size());  // (K, E)
  std::vector<std::string> series, diffs;
  for (std::size_t k = 0; k < res.variants.size(); ++k) {
    const train::StudyVariant& v = res.variants[k];
    const std::string name = "curve_" + v.id;
    r.tensor(name, vec(curves[k]), {}, {{"variant", label(r, v)}});
    series.push_back(name);
  }
  // The y axis starts near the lowest curve: from 0 the final gaps (under 0.1 nat) would be under a row.
  r.chart({r.t("curves.chart"), "eval_step", series, true});
  // The gaps themselves: each variant's median curve minus MHA's (above 0: a higher loss, worse).
  for (std::size_t k = 1; k < res.variants.size(); ++k) {
    std::vector<double> d(steps.size());  // (E)
    for (std::size_t e = 0; e < steps.size(); ++e) d[e] = curves[k][e] - curves[0][e];
    const std::string name = "diff_" + res.variants[k].id;
    r.tensor(name, vec(d), {}, {{"variant", label(r, res.variants[k])}});
    diffs.push_back(name);
  }
  r.chart({r.t("curves.chart_diff"), "eval_step", diffs});
  // MLA against MHA over time: its lead (the evaluation where it is furthest below MHA) and the
  // evaluation from which it stays above MHA to the end.
  const std::size_t mla = static_cast<std::size_t>(
      std::find_if(res.variants.begin(), res.variants.end(), [](const train::StudyVariant& v) { return v.id == "mla-32"; }) -
      res.variants.begin());
  const std::vector<double>& m = curves[mla];
  const std::vector<double>& h = curves[0];
  std::size_t from = steps.size();  // the first evaluation of the final run above MHA
  while (from > 0 && m[from - 1] > h[from - 1]) --from;
  std::size_t lead = steps.size();  // the evaluation (after step 0) before `from` where MLA is furthest below
  for (std::size_t e = 1; e < from; ++e)
    if (m[e] < h[e] && (lead == steps.size() || m[e] - h[e] < m[lead] - h[lead])) lead = e;
  const bool behind_at_end = from < steps.size();
  r.note("curves.note_mla", {{"ahead", lead < steps.size()}, {"behind", behind_at_end},
                             {"lead_step", lead < steps.size() ? steps[lead] : 0.0},
                             {"mla", lead < steps.size() ? m[lead] : 0.0}, {"mha", lead < steps.size() ? h[lead] : 0.0},
                             {"from_step", behind_at_end ? steps[from] : 0.0}});
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

// A median as the tables print it (4 decimals), so that the difference of two printed medians is
// the difference the table shows.
double as_printed(double x) { return std::round(x * 1e4) / 1e4; }

// How a claim comes out: every seed of one variant beyond every seed of the other, resolved by the
// paired t-test (p < 0.05) though the seeds overlap, or not resolved by these seeds.
enum class Outcome { Separated, Resolved, Open };

Outcome outcome_of(const train::SeedSpread& a, const train::SeedSpread& b, const train::PairedTest& p) {
  if (a.lo > b.hi || a.hi < b.lo) return Outcome::Separated;
  return p.p_t < 0.05 ? Outcome::Resolved : Outcome::Open;
}

// One verdict: `other` against `base`, in words computed from the paired per-seed differences.
void verdict(LessonRecorder& r, Table& t, Tensor& paired, std::size_t row, const Tradeoffs& s, std::size_t base,
             std::size_t other, const std::string& key) {
  const train::SeedSpread& a_sp = s.spread[other];
  const train::SeedSpread& b_sp = s.spread[base];
  const train::PairedTest p = train::paired_test(s.losses[base], s.losses[other]);
  for (std::size_t i = 0; i < p.n; ++i) paired(row, i) = s.losses[other][i] - s.losses[base][i];
  const bool higher = p.mean > 0;
  const Outcome o = outcome_of(a_sp, b_sp, p);
  const char* outcome = o == Outcome::Separated ? "separated" : o == Outcome::Resolved ? "resolved" : "open";
  // the FFN claim is named by its FFNs (both models have MHA); the attention claims by their variants
  const bool ffn = key == "swiglu";
  const std::string a = ffn ? r.t("verdicts.swiglu") : label(r, s.results.variants[other]),
                    b = ffn ? r.t("verdicts.gelu") : label(r, s.results.variants[base]);
  const std::size_t k = higher ? p.up : p.down;
  t.rows.push_back({r.t("verdicts.pair." + key), as_printed(a_sp.median) - as_printed(b_sp.median), p.mean,
                    r.t("verdicts.count", {{"k", k}, {"n", p.n}, {"higher", higher}}), p.p_t, p.p_sign,
                    r.t("verdicts.short", {{"outcome", outcome}, {"higher", higher}, {"n", p.n}})});
  r.note("verdicts.sentence", {{"a", a}, {"b", b}, {"higher", higher}, {"n", p.n}, {"k", k}, {"a_loss", a_sp.median},
                               {"b_loss", b_sp.median}, {"mean", std::fabs(p.mean)}});
  r.note("verdicts.test", {{"a", a}, {"b", b}, {"outcome", outcome}, {"higher", higher}, {"n", p.n}, {"t", std::fabs(p.t)},
                           {"df", p.df}, {"p", p.p_t}, {"small", p.p_t < 0.001}, {"p_sign", p.p_sign}});
}

std::size_t index_of(const train::StudyResults& res, const std::string& id) {
  return static_cast<std::size_t>(std::find_if(res.variants.begin(), res.variants.end(),
                                               [&](const train::StudyVariant& v) { return v.id == id; }) -
                                  res.variants.begin());
}

void step_verdicts(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  const std::size_t S = std::size(train::kStudySeeds);
  r.step("verdicts", {{"seeds", S}});
  Table t{{r.t("verdicts.col.pair"), r.t("verdicts.col.diff"), r.t("verdicts.col.mean"), r.t("verdicts.col.count"),
           r.t("verdicts.col.p_t"), r.t("verdicts.col.p_sign"), r.t("verdicts.col.verdict")}, {}};
  Tensor paired({5, S});  // (claims, S): other − base at each seed
  verdict(r, t, paired, 0, s, index_of(res, "mha"), index_of(res, "gqa-2"), "gqa");
  verdict(r, t, paired, 1, s, index_of(res, "mha"), index_of(res, "mqa"), "mqa");
  verdict(r, t, paired, 2, s, index_of(res, "mha"), index_of(res, "mla-32"), "mla");
  verdict(r, t, paired, 3, s, index_of(res, "mla-32"), index_of(res, "mla-64"), "mla_wide");
  verdict(r, t, paired, 4, s, index_of(res, "mha-gelu"), index_of(res, "mha"), "swiglu");
  std::vector<std::string> claims, seeds;
  for (const char* k : {"gqa", "mqa", "mla", "mla_wide", "swiglu"}) claims.push_back(r.t(std::string("verdicts.pair.") + k));
  for (std::uint64_t seed : train::kStudySeeds) seeds.push_back(r.t("results.col.seed", {{"seed", seed}}));
  r.tensor("paired_diff", paired, {.rows = claims, .cols = seeds, .axes = {"claim", "seed"}});
  r.table(t);
}

// What the DeepSeek-V2 paper measured at scale, against what this run is: its MLA result, this
// MLA's departures from DeepSeek's, and the limits of a run this small.
// `other` against `base` as the verdicts decide it: "worse" (higher loss) or "better" where every
// seed of one lies beyond every seed of the other or the paired t-test gives p < 0.05, else "open"
const char* direction(const Tradeoffs& s, std::size_t base, std::size_t other) {
  const train::PairedTest p = train::paired_test(s.losses[base], s.losses[other]);
  if (outcome_of(s.spread[other], s.spread[base], p) == Outcome::Open) return "open";
  return p.mean > 0 ? "worse" : "better";
}

void step_scale(LessonRecorder& r, const Tradeoffs& s) {
  const train::StudyResults& res = s.results;
  const std::size_t mha = index_of(res, "mha"), mla = index_of(res, "mla-32"), wide = index_of(res, "mla-64");
  const decoder::DecoderConfig& m = res.variants[mla].model;
  const train::VariantRun run = train::study_run(m, 1, nullptr);
  const double mha_cache = static_cast<double>(res.variants[mha].model.cache_per_token());
  // result: MLA against MHA (opposite to the paper where worse); the wider latent against this MLA
  // and against MHA: does DeepSeek's d_c = 4·d_h close the gap?
  r.step("scale", {{"result", direction(s, mha, mla)}, {"d_c", m.kv_lora_rank}, {"d_h", m.hs()},
                   {"ratio", static_cast<double>(m.kv_lora_rank) / static_cast<double>(m.hs())}, {"d_R", m.rope_dim},
                   {"heads", m.n_head}, {"steps", run.steps}, {"lr", run.lr}, {"mla_cache", m.cache_per_token()},
                   {"mha_cache", res.variants[mha].model.cache_per_token()},
                   {"share", 100.0 * static_cast<double>(m.cache_per_token()) / mha_cache},
                   {"seq_len", m.n_positions}, {"layers", m.n_layer}});
  r.note("scale.wide", {{"wide", direction(s, mla, wide)}, {"wide_mha", direction(s, mha, wide)},
                        {"d_c_wide", res.variants[wide].model.kv_lora_rank}, {"ff_mla", m.F()},
                        {"ff_wide", res.variants[wide].model.F()}, {"d_c", m.kv_lora_rank},
                        {"seeds", std::size(train::kStudySeeds)}});
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
  step_scale(r, s);
  return r.finish();
}

}  // namespace

extern const LessonInfo tradeoffs_lesson = lesson_info<TradeoffsOptions>("tradeoffs", bind, run);

}  // namespace attn
