// Issue 52, "every fixed sentence chosen by the run it describes": each sentence the third read
// (shared/notes/truth-read-3.md) found printed in runs it does not describe, checked against the
// run. Each test fails on the old text.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "catalog.h"
#include "lesson.h"
#include "lesson_args.h"
#include "run_cli.h"
#include "seed_stats.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_truth3 {

using namespace attn;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const Step& step_of(const Trace& t, const std::string& id) {
  for (const Step& s : t.steps)
    if (s.id == id) return s;
  FAIL("no step " << id);
  return t.steps.front();
}

// A step's title, text and notes, one string.
std::string words(const Step& s) {
  std::string out = s.title + "\n" + s.text;
  for (const std::string& n : s.notes) out += "\n" + n;
  return out;
}

TestConfig in(const char* lang) {
  TestConfig c;
  c.lang = Lang{lang};
  return c;
}

const std::string& message(const std::string& lang, const std::string& key) {
  static const std::string none;
  for (const CatalogFile& f : all_catalogs())
    if (f.lang == lang)
      if (auto it = f.messages.find(key); it != f.messages.end()) return it->second;
  FAIL("no " << lang << " message " << key);
  return none;
}

}  // namespace

TEST_CASE("generate: Greedy only when greedy, and the prob column said to be untempered when sampled", "[truth3][generate][cli]") {
  // Before: "Greedy: each step takes the token with the largest logit." in every run.
  CliResult sampled = run_cli("generate --weights text-en --text 'And God said' --tokens 3 --temperature 0.7 --top-k 10 --seed 1 --lang en");
  REQUIRE(sampled.code == 0);
  CHECK(!has(sampled.out, "Greedy"));
  CHECK(has(sampled.out, "softmax of logits / 0.7, among the 10 most probable"));
  CHECK(has(sampled.out, "before the temperature"));
  CliResult greedy = run_cli("generate --weights text-en --text 'And God said' --tokens 3 --lang en");
  REQUIRE(greedy.code == 0);
  CHECK(has(greedy.out, "Greedy: each step takes the token with the largest logit."));
  CliResult zh = run_cli("generate --weights text-en --text 'And God said' --tokens 3 --temperature 0.7 --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(!has(zh.out, "贪心"));
  CHECK(has(zh.out, "未经温度缩放"));
  CHECK(!has(message("en", "checkpoint.generate.description"), "Generate greedily"));
}

TEST_CASE("generate: an MLA checkpoint is described by its latent cache and its real widths", "[truth3][generate][cli]") {
  // Before: "one K row and one V row per token", "2 layers × 4 heads (4 KV heads) of width 24".
  CliResult r = run_cli("generate --weights mla-en --text 'And God said' --tokens 2 --lang en");
  REQUIRE(r.code == 0);
  CHECK(!has(r.out, "one K row and one V row"));
  CHECK(!has(r.out, "KV heads) of width"));
  CHECK(has(r.out, "queries and keys of width 24 (16 + a RoPE part of 8), values of width 16; one latent c_KV of 32"));
  CHECK(has(r.out, "each token's latent c_KV and its RoPE key K_R"));
  CliResult zh = run_cli("generate --weights mla-en --text 'And God said' --tokens 2 --lang zh");
  REQUIRE(zh.code == 0);
  CHECK(!has(zh.out, "一行 K 和一行 V"));
  CHECK(has(zh.out, "32 维潜向量 c_KV"));
  CliResult gpt = run_cli("generate --weights text-en --text 'And God said' --tokens 2 --lang en");
  CHECK(has(gpt.out, "one K row and one V row per token"));
}

TEST_CASE("book: the footer says the page's numbers are the command line's to the last bit", "[truth3][book]") {
  // Before: "not always to the last bit: this page computes exp, log, sin and cos with musl's C library".
  CHECK(!has(message("en", "book.about"), "not always to the last bit"));
  CHECK(has(message("en", "book.about"), "to the last bit"));
  CHECK(!has(message("zh", "book.about"), "不总是一致"));
  CHECK(has(message("zh", "book.about"), "逐位相同"));
}


// ---- the trade-offs study: paired by seed, said the way the evidence allows ----------------------

TEST_CASE("paired test: Student's t tail and the sign test against hand-worked values", "[truth3][tradeoffs]") {
  using train::student_t_two_sided_p;
  // df 1: p = 1 − (2/π)·atan(t); t = 1 gives exactly ½.
  CHECK(student_t_two_sided_p(1.0, 1) == Approx(0.5).epsilon(1e-15));
  CHECK(student_t_two_sided_p(std::tan(0.3), 1) == Approx(1.0 - 0.6 / M_PI).epsilon(1e-14));
  // df 2: p = 1 − t/√(t² + 2).
  CHECK(student_t_two_sided_p(1.0, 2) == Approx(1.0 - 1.0 / std::sqrt(3.0)).epsilon(1e-15));
  CHECK(student_t_two_sided_p(-2.67, 2) == Approx(1.0 - 2.67 / std::sqrt(2.67 * 2.67 + 2.0)).epsilon(1e-15));
  // df 3 at t = √3: θ = π/4, p = ½ − 1/π.
  CHECK(student_t_two_sided_p(std::sqrt(3.0), 3) == Approx(0.5 - 1.0 / M_PI).epsilon(1e-14));
  // df 4 at t = 2: sinθ = 2/√8, cos²θ = ½: p = 1 − (2/√8)·(1 + ¼).
  CHECK(student_t_two_sided_p(2.0, 4) == Approx(1.0 - 2.0 / std::sqrt(8.0) * 1.25).epsilon(1e-14));
  // df 5 at t = √5: θ = π/4, p = 1 − (2/π)(π/4 + ½·(√½ + ⅔·√½³)·√½ ...) worked: sinθ cosθ = ½, cos²θ = ½:
  // A = (2/π)(π/4 + sinθ(cosθ + ⅔cos³θ)) = ½ + (2/π)·(½ + ⅓·½) = ½ + 4/(3π).
  CHECK(student_t_two_sided_p(std::sqrt(5.0), 5) == Approx(0.5 - 4.0 / (3.0 * M_PI)).epsilon(1e-14));
  CHECK(student_t_two_sided_p(0.0, 4) == 1.0);
  CHECK(student_t_two_sided_p(INFINITY, 2) == 0.0);
  // sign test: 3 of 3 one way, p = 2/8; 5 of 5, 2/32; 4 of 5, 2·6/32; 2 and 1, 1.
  CHECK(train::sign_test_p(3, 0) == 0.25);
  CHECK(train::sign_test_p(0, 5) == 0.0625);
  CHECK(train::sign_test_p(4, 1) == 0.375);
  CHECK(train::sign_test_p(2, 1) == 1.0);
  const train::PairedTest p = train::paired_test({1.0, 2.0, 3.0}, {1.5, 2.5, 3.75});
  CHECK(p.up == 3);
  CHECK(p.mean == Approx(7.0 / 12.0));
  CHECK(p.sd == Approx(std::sqrt(((0.5 - 7.0 / 12) * (0.5 - 7.0 / 12) * 2 + (0.75 - 7.0 / 12) * (0.75 - 7.0 / 12)) / 2)));
  CHECK(p.df == 2);
}

TEST_CASE("tradeoffs verdicts: paired by seed, with the test named, and no ratio to a 3-value range", "[truth3][tradeoffs]") {
  // Before: "within the spread of 3 seeds (0.0229). At this scale the two cannot be told apart"; "3.2 times the spread".
  for (const char* lang : {"en", "zh"}) {
    INFO(lang);
    const Trace t = run_lesson("tradeoffs", in(lang));
    const Step& v = step_of(t, "verdicts");
    const std::string w = words(v);
    CHECK(!has(w, "At this scale"));
    CHECK(!has(w, "在这个规模上"));
    CHECK(!has(w, "times the spread"));
    CHECK(!has(w, "极差的"));
    // MQA against MHA, worked here from the trace's paired differences: t and its tail for an even
    // df (3 or 5 seeds): P(|T| < t) = sinθ·(1 + ½cos²θ + …), sinθ = t/√(t² + df), cos²θ = df/(t² + df).
    const Tensor& d = t.at("paired_diff").tensor;  // (claims, seeds)
    const std::size_t S = d.dim(1), df = S - 1;
    REQUIRE(df % 2 == 0);
    double m = 0, ss = 0;
    for (std::size_t i = 0; i < S; ++i) m += d(1, i) / static_cast<double>(S);
    for (std::size_t i = 0; i < S; ++i) ss += (d(1, i) - m) * (d(1, i) - m);
    const double tt = m / (std::sqrt(ss / static_cast<double>(df)) / std::sqrt(static_cast<double>(S)));
    const double c2 = static_cast<double>(df) / (tt * tt + static_cast<double>(df));
    double term = 1, sum = 1;
    for (std::size_t k = 1; 2 * k <= df - 2; ++k) term *= c2 * (2.0 * k - 1) / (2.0 * k), sum += term;
    const double p = 1 - tt / std::sqrt(tt * tt + static_cast<double>(df)) * sum;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", p);
    CHECK(has(w, buf));
    // the shipped 5 seeds, read off their table by hand: MQA is higher than MHA at every seed, yet
    // neither test resolves it (t-test p 0.099, sign test 2/32 = 0.0625); MLA's seeds all lie above MHA's
    REQUIRE(S == 5);
    CHECK(p > 0.05);
    for (std::size_t i = 0; i < S; ++i) CHECK(d(1, i) > 0);
    if (lang == std::string("en")) {
      CHECK(has(w, "higher loss = worse"));
      CHECK(has(w, "Not resolved by 5 seeds"));
      CHECK(has(w, "All 5 MLA (latent 32, RoPE key 8) seeds are above all 5 MHA (4 KV heads) seeds"));
      CHECK(has(w, "paired t-test"));
      CHECK(has(w, "sign test: p = 0.062"));
    } else {
      CHECK(has(w, "损失越高越差"));
      CHECK(has(w, "仅凭 5 个种子还分不出高下"));
      CHECK(!has(w, "） 对"));  // no half-width space after a full-width bracket
    }
  }
}

TEST_CASE("tradeoffs step question: MLA's attention is larger and its FFN narrowed, runs paired, not the same characters", "[truth3][tradeoffs]") {
  // Before: "The attention variants hold fewer numbers than MHA; the FFN is widened by just as many";
  // "Every run sees the same 1,024,000 characters".
  const std::string en = words(step_of(run_lesson("tradeoffs"), "question"));
  CHECK(!has(en, "widened by just as many"));
  CHECK(!has(en, "sees the same 1,024,000"));
  CHECK(has(en, "MLA holds more (16,896 a layer against MHA's 16,384"));
  CHECK(has(en, "MLA's is narrowed from 176 to 173"));
  CHECK(has(en, "paired by seed"));
  const std::string zh = words(step_of(run_lesson("tradeoffs", in("zh")), "question"));
  CHECK(!has(zh, "少多少就把 FFN 加宽多少"));
  CHECK(has(zh, "MLA 的反而更多（每层 16,896 个"));
  CHECK(has(zh, "不到 FFN 中间层一个单元的参数量"));
}

TEST_CASE("tradeoffs step results: the held-out characters scored are the ones said", "[truth3][tradeoffs]") {
  // Before: "the last 207,660 characters are held out" and "the whole held-out slice (207,616 characters)".
  const std::string w = words(step_of(run_lesson("tradeoffs"), "results"));
  CHECK(has(w, "3,244 windows of 64 characters, 207,616 predictions; the last 43 of the 207,660 held-out characters"));
  CHECK(3244 * 64 + 1 + 43 == 207660);
}

TEST_CASE("tradeoffs step curves: the loss chart fits its curves and a panel shows the differences from MHA", "[truth3][tradeoffs]") {
  const Trace t = run_lesson("tradeoffs");
  const Step& s = step_of(t, "curves");
  REQUIRE(s.charts.size() == 2);
  CHECK(s.charts[0].fit);
  CHECK(!s.charts[1].fit);
  const Tensor& mla = t.at("diff_mla-32").tensor;
  const Tensor& step = t.at("eval_step").tensor;
  const Tensor& a = t.at("curve_mla-32").tensor;
  const Tensor& b = t.at("curve_mha").tensor;
  for (std::size_t e = 0; e < mla.numel(); ++e) CHECK(mla.data[e] == a.data[e] - b.data[e]);
  // the note, worked here from the curves: the evaluation from which MLA stays above MHA, and before
  // it the one where MLA is furthest below (5 shipped seeds: ahead at step 50, 2.837 against 2.949;
  // behind from step 100 on)
  std::size_t from = mla.numel();
  while (from > 0 && mla.data[from - 1] > 0) --from;
  std::size_t lead = 0;
  for (std::size_t e = 1; e < from; ++e)
    if (mla.data[e] < 0 && (lead == 0 || mla.data[e] < mla.data[lead])) lead = e;
  REQUIRE(lead > 0);
  REQUIRE(from < mla.numel());
  CHECK(has(words(s), fmt::format("MLA is ahead early (at step {:.0f}, {:.3f} against {:.3f}", step.data[lead], a.data[lead], b.data[lead])));
  CHECK(has(words(s), fmt::format("behind at every evaluation from step {:.0f} to the end", step.data[from])));
  CHECK(step.data[lead] == 50);  // the shipped runs, read off the table by hand
  CHECK(step.data[from] == 100);
  // the terminal chart's axis starts near the lowest curve, not at 0
  CliResult r = run_cli("lesson tradeoffs --step curves --color never --lang en");
  REQUIRE(r.code == 0);
  const std::size_t chart = r.out.find("held-out loss while training");
  REQUIRE(chart != std::string::npos);
  const std::string first = r.out.substr(chart, r.out.find("each variant's held-out loss minus") - chart);
  CHECK(!has(first, " 0.00 "));
  CHECK(has(first, "  1.60 |"));  // the lowest point, MHA's last (1.5998)
  CHECK(has(first, "  4.33 |"));  // the highest first point, GQA's (4.3267)
}

TEST_CASE("a chart's fit survives the JSON trace: render --text draws the same axis", "[truth3][tradeoffs][render]") {
  const std::string path = "/tmp/attnlab_test_fit_" + std::to_string(::getpid()) + ".json";
  CliResult w = run_cli("lesson tradeoffs --step curves --lang en --json " + path);
  REQUIRE(w.code == 0);
  const std::string json = slurp(path);
  CHECK(has(json, "\"fit\":true"));
  CliResult again = run_cli("render --text --color never --lang en " + path);
  std::remove(path.c_str());
  REQUIRE(again.code == 0);
  CliResult direct = run_cli("lesson tradeoffs --step curves --color never --lang en");
  const auto chart = [](const std::string& out) {
    const std::size_t a = out.find("held-out loss while training");
    return a == std::string::npos ? std::string() : out.substr(a, out.find("eval_step", a) - a);
  };
  CHECK(!chart(direct.out).empty());
  CHECK(chart(again.out) == chart(direct.out));
}

TEST_CASE("tradeoffs step scale: the MLA result runs opposite to DeepSeek-V2 and this MLA's departures are named", "[truth3][tradeoffs]") {
  // Before: "what separates variants there … barely binds here"; "Those models saw billions of tokens".
  const std::string en = words(step_of(run_lesson("tradeoffs"), "scale"));
  CHECK(!has(en, "billions of tokens"));
  CHECK(!has(en, "barely binds"));
  CHECK(has(en, "runs the opposite way"));
  CHECK(has(en, "no RMSNorm on the latent c_KV; no query latent; d_c = 32, 2·d_h, against 4·d_h"));
  CHECK(has(en, "(31%)"));
  CHECK(has(en, "MQA's 4:1 sharing is Llama 3 8B's GQA ratio"));
  CHECK(has(en, "by the FFN's width"));
  const std::string zh = words(step_of(run_lesson("tradeoffs", in("zh")), "scale"));
  CHECK(has(zh, "这里 MLA 的结果正好相反"));
  CHECK(!has(zh, "数以十亿计"));
  CHECK(has(zh, "高难度基准"));
}

// ---- symmetry and specialize: one seed's outcome said as one seed's ------------------------------

TEST_CASE("symmetry step real_train: the plateau sentence is this seed's, with the other seeds counted", "[truth3][symmetry]") {
  // Before: "They never leave the task's first plateau" as a fact about clones (true at seed 42 only).
  const std::string en = words(step_of(run_lesson("symmetry"), "real_train"));
  CHECK(has(en, "In this run (seed 42) they never leave the task's first plateau"));
  CHECK(has(en, "at 4 of the 4 other shipped seeds the clones end below the plateau (0.497 to 0.847; step seeds)"));
  const std::string zh = words(step_of(run_lesson("symmetry", in("zh")), "real_train"));
  CHECK(has(zh, "在这次训练（种子 42）中"));
  CHECK(has(zh, "另外 4 个种子中，有 4 个种子上克隆头的最终损失低于该平台"));
  CHECK(!has(zh, "比较要同类相比"));
  CHECK(!has(zh, "接下"));
}

TEST_CASE("symmetry step seeds: the lone head's column, and a 0.017 margin not counted as a win", "[truth3][symmetry]") {
  const Trace t = run_lesson("symmetry");
  const Step& s = step_of(t, "seeds");
  REQUIRE(!s.tables.empty());
  CHECK(s.tables.front().header.size() == 5);
  CHECK(t.at("seeds_loss_one").tensor.numel() == 5);
  const std::string en = words(s);
  // (retrained under the fused order, issue 54: above the random start at 4 of 5 seeds, none by a hair)
  CHECK(has(en, "They end above the random start at 4 of 5 seeds."));
  CHECK(has(en, "below the task's first plateau (2.5877) at 4 of 5 seeds"));
  CHECK(has(en, "below the lone head of the full width at 3 of 5"));
  const std::string zh = words(step_of(run_lesson("symmetry", in("zh")), "seeds"));
  CHECK(has(zh, "有 3 个低于全宽的单个头"));
  CHECK(has(zh, "与随机种子无关"));
  CHECK(!has(zh, "抽签"));
  CHECK(!has(zh, "5 个种子中的 5 个"));
}

TEST_CASE("specialize step seeds: a list of seeds is joined as the language joins a list", "[truth3][specialize]") {
  // Before: "at seed 2, 3" and "在种子 2, 3 上".
  const std::string en = words(step_of(run_lesson("specialize"), "seeds"));
  CHECK(!has(en, "seed 2, 3"));
  CHECK(has(en, "at seed 2 the single head ends lower"));  // one seed since the fused retrain (was 2 and 3)
  CHECK(has(en, "the shipped seed, 42, only"));
  const std::string zh = words(step_of(run_lesson("specialize", in("zh")), "seeds"));
  CHECK(!has(zh, "2, 3"));
  CHECK(has(zh, "在种子 2 上"));
  CHECK(has(zh, "上面的图只画了随附的种子 42"));
}

// ---- induction: the ablation said as far as it goes ---------------------------------------------

TEST_CASE("induction step ablation: every layer-1 head zeroed and mean-ablated, and 'consistent with'", "[truth3][induction]") {
  // Before: only layer 1 head 4 zeroed, "as K-composition predicts".
  const Trace t = run_lesson("induction");
  const Step& s = step_of(t, "ablation");
  const Tensor& zeroed = t.at("loss_layer1_zeroed").tensor;
  const Tensor& mean = t.at("loss_layer1_mean").tensor;
  REQUIRE(zeroed.numel() == 4);
  REQUIRE(mean.numel() == 4);
  // the reviewer's numbers were 1.1 → 0.906, 1.2 → 3.426, 1.3 → 3.283, 1.4 → 4.031; the model retrained
  // under the fused order (issue 54) gives these
  CHECK(zeroed.data[0] == Approx(0.790).margin(5e-4));
  CHECK(zeroed.data[1] == Approx(3.429).margin(5e-4));
  CHECK(zeroed.data[2] == Approx(3.229).margin(5e-4));
  CHECK(zeroed.data[3] == Approx(4.045).margin(5e-4));
  for (std::size_t h = 0; h < 4; ++h) CHECK(mean.data[h] != zeroed.data[h]);
  const std::string en = words(s);
  CHECK(!has(en, "as K-composition predicts"));
  CHECK(has(en, "consistent with"));
  CHECK(has(en, "does not single out the previous-token head"));
  const std::string zh = words(step_of(run_lesson("induction", in("zh")), "ablation"));
  CHECK(!has(zh, "正如 K 组合所预言的"));
  CHECK(has(zh, "没有单独指认出"));
}

TEST_CASE("induction --ablate: one head is zeroed, several are zeroed together", "[truth3][induction]") {
  // Before: "--ablate, layer 1 head 4 zeroed together".
  CliResult one = run_cli("lesson induction --step ablation --ablate 1.4 --color never --lang en");
  REQUIRE(one.code == 0);
  CHECK(has(one.out, "--ablate, layer 1 head 4 zeroed:"));
  CHECK(!has(one.out, "layer 1 head 4 zeroed together"));
  CliResult two = run_cli("lesson induction --step ablation --ablate 1.4,1.2 --color never --lang en");
  CHECK(has(two.out, "zeroed together:"));
}

TEST_CASE("induction: the plateau is ln V because the tokens are uniform, and suggested commands run", "[truth3][induction]") {
  const std::string curve = words(step_of(run_lesson("induction"), "loss_curve"));
  CHECK(!has(curve, "the easy part"));
  CHECK(has(curve, "the tokens are drawn uniformly"));
  const std::string text = words(step_of(run_lesson("induction"), "text"));
  CHECK(has(text, "on this verse"));
  // the verse is one example: the same head over held-out lines (the third read's sample of 60: mean 0.232)
  CHECK(has(text, "is one example, not the rule: over the first 60 held-out lines"));
  const Trace t = run_lesson("induction");
  for (const Value& v : step_of(t, "text").values)
    if (v.name == "text_heldout_mean_score") {
      CHECK(std::get<double>(v.value) > 0.1);
      CHECK(std::get<double>(v.value) < 0.353);
    }
  CHECK(has(text, "`attnlab heads --weights text-en --text \"…\"`"));
  CHECK(has(text, "the only baseline computed here"));
  CliResult heads = run_cli("heads --weights text-en --text 'And Peter said unto Jesus' --lang en");
  CHECK(heads.code == 0);
  // the commands other messages suggest name --text, without which they exit 2
  CHECK(has(message("en", "llama.err.mla_only"), "`attnlab lesson mla --weights … --text \"…\"`"));
  CHECK(has(message("en", "llama.real_llama.note_params"), "--text and --layer"));
  // a shipped model without --text runs on its own sample sentence and says so (issue 50)
  CHECK(run_cli("lesson mla --weights mla-en --layer 1 --lang en").out.find("No --text given") != std::string::npos);
  CHECK(run_cli("lesson mla --weights mla-en --text 'And God said' --layer 1 --lang en").code == 0);
}

// ---- README -------------------------------------------------------------------------------------

TEST_CASE("README: MLA is saved, induction-text is f32-trained, verdicts are not 'at this scale'", "[truth3][readme]") {
  // the README and the pages its tour moved to (docs/NAME.template.md, issue 50)
  std::string readme = slurp(std::string(ATTNLAB_SOURCE_DIR) + "/docs/README.template.md");
  for (const char* page : {"lessons", "output", "counting", "real-weights"})
    readme += slurp(std::string(ATTNLAB_SOURCE_DIR) + "/docs/" + page + ".template.md");
  REQUIRE(!readme.empty());
  CHECK(!has(readme, "not saved yet"));
  CHECK(!has(readme, "every shipped model stays f64-trained"));
  CHECK(!has(readme, "(how every\nshipped model was made)"));
  CHECK(!has(readme, "cannot be told apart"));
  CHECK(!has(readme, "the FFN width absorbs what the attention saves"));
  // the text models' figures are the tool's own (params --weights NAME --json), filled in by
  // scripts/update-readme, not typed into the page
  CHECK(has(readme, "TEXT_QUALITY_TABLE"));
  CHECK(!has(readme, "bits per token"));
}

}  // namespace file_test_truth3
