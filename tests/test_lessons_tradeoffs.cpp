// Lesson tradeoffs: read from the shipped study, every verdict follows from the numbers it shows.
#include <catch2/catch.hpp>

#include "lesson_args.h"
#include "run_cli.h"
#include "tradeoffs_study.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_lessons_tradeoffs {

using namespace attn;

TEST_CASE("lesson tradeoffs shows every variant's seeds and computes each verdict from them") {
  const Trace t = run_lesson("tradeoffs");
  const train::StudyResults shipped = train::bundled_study_results();
  const Tensor& losses = t.at("heldout_loss").tensor;  // (K, S)
  REQUIRE(losses.dim(0) == shipped.variants.size());
  REQUIRE(losses.dim(1) == std::size(train::kStudySeeds));
  for (std::size_t k = 0; k < shipped.variants.size(); ++k)
    for (std::size_t s = 0; s < losses.dim(1); ++s) CHECK(losses(k, s) == shipped.runs[k * losses.dim(1) + s].heldout_loss);
  // every verdict sentence says "not resolved" exactly when neither variant's seeds all lie beyond the
  // other's nor the paired t-test on the per-seed differences gives p < 0.05
  const Step* verdicts = nullptr;
  for (const Step& s : t.steps)
    if (s.id == "verdicts") verdicts = &s;
  REQUIRE(verdicts != nullptr);
  REQUIRE(verdicts->notes.size() == 10);  // per claim: its medians and seeds, then its tests and outcome
  // GQA, MQA and MLA-32 against MHA, MLA-64 against MLA-32, GELU's MHA against SwiGLU's
  const std::vector<std::pair<std::size_t, std::size_t>> pairs = {{0, 1}, {0, 2}, {0, 3}, {3, 4}, {5, 0}};
  const std::string S = std::to_string(losses.dim(1));
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    std::vector<double> a, b;
    for (std::size_t s = 0; s < losses.dim(1); ++s) {
      a.push_back(losses(pairs[i].first, s));
      b.push_back(losses(pairs[i].second, s));
    }
    const train::SeedSpread sa = train::seed_spread(a), sb = train::seed_spread(b);
    const bool separated = sb.lo > sa.hi || sb.hi < sa.lo;
    const bool resolved = separated || train::paired_test(a, b).p_t < 0.05;
    const std::string& outcome = verdicts->notes[2 * i + 1];
    INFO(outcome);
    CHECK((outcome.find("Not resolved by " + S + " seeds") != std::string::npos) == !resolved);
    CHECK((outcome.find(" seeds are above all " + S + " ") != std::string::npos ||
           outcome.find(" seeds are below all " + S + " ") != std::string::npos) == separated);
  }
}

TEST_CASE("lesson tradeoffs speaks Chinese and refuses a stray --variant") {
  TestConfig zh;
  zh.lang = Lang{"zh"};
  const Trace t = run_lesson("tradeoffs", zh);
  bool found = false;
  for (const Step& s : t.steps)
    if (s.id == "verdicts") found = s.title.find("结论") != std::string::npos;
  CHECK(found);
  const CliResult r = run_cli("lesson tradeoffs --variant mqa");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("--variant") != std::string::npos);
  const CliResult bad = run_cli("lesson tradeoffs --retrain --variant nope");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("mla-32") != std::string::npos);
}

}  // namespace file_test_lessons_tradeoffs
