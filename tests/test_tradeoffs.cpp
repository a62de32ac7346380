// The trade-offs study (src/train/tradeoffs_study.h): matched parameter counts, the statistics
// its verdicts are computed from (by hand), and the shipped results reproduced.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "corpus.h"
#include "tradeoffs_study.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_tradeoffs {

using namespace attn;
using namespace attn::train;

TEST_CASE("the study's variants have MHA's parameter count to within one FFN column") {
  const std::vector<StudyVariant> v = study_variants(70);
  REQUIRE(v.size() == 6);
  CHECK(v[3].id == "mla-32");
  CHECK(v[4].id == "mla-64");
  CHECK(v[5].id == "mha-gelu");
  const double base = decoder::decoder_param_count(v[0].model);
  for (const StudyVariant& s : v) {
    INFO(s.id << " d_ff " << s.model.F());
    const double column = static_cast<double>(s.model.n_layer * s.model.d_model) * (s.model.ffn == decoder::Ffn::Gelu ? 2 : 3);
    CHECK(std::fabs(decoder::decoder_param_count(s.model) - base) <= column / 2);
    CHECK(decoder::check_config(s.model).empty());
  }
  // by hand (d = 64, 2 layers): GQA-2 saves 2·(64·64 − 64·32) = 4,096 attention numbers a layer,
  // 4,096 / (3·64) = 21.3 → 21 more FFN columns; MQA saves 6,144 → exactly 32; the GELU FFN needs
  // 3·176 / 2 = 264 columns for SwiGLU's 176.
  CHECK(v[1].model.F() == 176 + 21);
  CHECK(v[2].model.F() == 176 + 32);
  CHECK(v[5].model.F() == 264);
  // the wider latent's matrices (W_DKV, W_UK, W_UV) grow, so its FFN is narrower than MLA-32's
  CHECK(v[4].model.kv_lora_rank == 64);
  CHECK(v[4].model.F() < v[3].model.F());
  // cache per token and layer: 2·4·16, 2·2·16, 2·16, 32 + 8
  CHECK(v[0].model.cache_per_token() == 128);
  CHECK(v[1].model.cache_per_token() == 64);
  CHECK(v[2].model.cache_per_token() == 32);
  CHECK(v[3].model.cache_per_token() == 40);
  CHECK(v[4].model.cache_per_token() == 72);  // 64 + 8
}

TEST_CASE("seed spreads and comparisons match a hand computation") {
  const SeedSpread a = seed_spread({4.43, 4.39, 4.46});  // median 4.43, range 0.07
  CHECK(a.median == 4.43);
  CHECK(a.range() == Approx(0.07));
  const SeedSpread b = seed_spread({4.44, 4.43, 4.46});  // median 4.44, range 0.03
  Comparison c = compare_spreads(a, b);
  CHECK(c.diff == Approx(0.01));
  CHECK(c.spread == Approx(0.07));
  CHECK(c.within);
  const SeedSpread d = seed_spread({4.60, 4.58, 4.62});  // median 4.60: 0.17 above, 2.43 ranges
  c = compare_spreads(a, d);
  CHECK_FALSE(c.within);
  CHECK(c.ratio == Approx(0.17 / 0.07));
  CHECK(seed_spread({1.0, 3.0, 2.0, 10.0}).median == 2.5);
}

TEST_CASE("the trade-offs study reproduces the shipped results' first 50 steps byte for byte (MLA, seed 2)", "[slow]") {
  const StudyResults shipped = bundled_study_results();
  REQUIRE(shipped.runs.size() == shipped.variants.size() * std::size(kStudySeeds));
  const CorpusSplit split = split_corpus(bundled_corpus(shipped.corpus), kStudyMinCount, kStudyKeep);
  REQUIRE(split.vocab.tokens.size() == shipped.vocab);
  TextData data{split.train_ids, split.heldout_ids, split.vocab.tokens.size()};
  const StudyVariant& v = *std::find_if(shipped.variants.begin(), shipped.variants.end(),
                                        [](const StudyVariant& s) { return s.id == "mla-32"; });
  const StudyRunResult& want = *std::find_if(shipped.runs.begin(), shipped.runs.end(),
                                             [](const StudyRunResult& r) { return r.variant == "mla-32" && r.seed == 2; });
  VariantRun run = study_run(v.model, 2, &data);
  REQUIRE(run.warmup >= 50);  // the first 50 steps' learning rates do not depend on the run's length
  run.steps = 50;
  const VariantResult got = train_variant(run);
  REQUIRE(got.evals.size() == 3);  // steps 0, 25, 50
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("evaluation at step " << got.evals[i].step);
    CHECK(got.evals[i].step == want.evals.at(i).step);
    CHECK(got.evals[i].loss == want.evals.at(i).loss);
  }
  CHECK(got.evals[2].loss < got.evals[0].loss - 0.5);  // it learned something in 50 steps
}

}  // namespace file_test_tradeoffs
