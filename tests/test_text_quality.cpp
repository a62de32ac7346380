// Issue 51: every text model's quality beside its n-gram baselines, the zh-mix vocabulary that the
// retrained text-zh will read the lessons' sentences with, and generate never choosing <unk>.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "char_vocab.h"
#include "corpus.h"
#include "embedded_data.h"
#include "catalog.h"
#include "locate.h"
#include "run_cli.h"
#include "text_quality.h"
#include "text_task.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_text_quality {

namespace {
nlohmann::json golden() {
  return nlohmann::json::parse(slurp(std::string(ATTNLAB_SOURCE_DIR) + "/tests/golden/ngram_baselines.json"));
}

nlohmann::json zh_mix_sentences() {
  return nlohmann::json::parse(std::string(*attn::embedded_file("corpus/sentences.json")))["zh-mix"];
}
}  // namespace

TEST_CASE("text quality: the trigram is Witten-Bell over the bigram, worked by hand on a short text", "[quality]") {
  // train 0 1 0 1 2, V = 3. Unigram add-one: c = (2, 2, 1), N = 5: P(b) = (c(b) + 1) / 8.
  // Pairs 01 10 01 12: c(0) = 2 with 1 follower, c(1) = 2 with 2 followers.
  // Triples 010 101 012: c(01) = 2 with 2 followers (0, 2), c(10) = 1 with 1 follower.
  const std::vector<int> train = {0, 1, 0, 1, 2}, held = {0, 1, 2};
  const attn::train::NgramLoss g = attn::train::ngram_loss(train, held, 3);
  const double pu0 = 3.0 / 8, pu1 = 3.0 / 8, pu2 = 2.0 / 8;
  const double pb01 = (2 + 1 * pu1) / (2 + 1);        // P(1 | 0)
  const double pb12 = (1 + 2 * pu2) / (2 + 2);        // P(2 | 1)
  const double pt012 = (1 + 2 * pb12) / (2 + 2);      // P(2 | 0 1)
  CHECK(g.unigram == Approx(-(std::log(pu0) + std::log(pu1) + std::log(pu2)) / 3).epsilon(1e-12));
  CHECK(g.bigram == Approx(-(std::log(pu0) + std::log(pb01) + std::log(pb12)) / 3).epsilon(1e-12));
  CHECK(g.trigram == Approx(-(std::log(pu0) + std::log(pb01) + std::log(pt012)) / 3).epsilon(1e-12));
  // a context never seen falls back: held-out 2 2 2 (no pair starts with 2) scores the unigram throughout
  const attn::train::NgramLoss z = attn::train::ngram_loss(train, {2, 2, 2}, 3);
  CHECK(z.trigram == Approx(-std::log(pu2)).epsilon(1e-12));
  CHECK(z.bigram == Approx(-std::log(pu2)).epsilon(1e-12));
}

TEST_CASE("text quality: every shipped text model's baselines agree with numpy's to 1e-9", "[quality]") {
  const nlohmann::json g = golden();
  REQUIRE(g["models"].size() == 4);
  for (const auto& [name, want] : g["models"].items()) {
    INFO(name);
    const std::optional<attn::cli::TextQuality> q = attn::cli::text_quality(attn::resolve_weights(name));
    REQUIRE(q.has_value());
    CHECK(q->corpus == want["corpus"].get<std::string>());
    CHECK(q->vocab == want["vocab"].get<std::size_t>());
    CHECK(q->heldout_characters == want["heldout_characters"].get<std::size_t>());
    CHECK(q->heldout_unk == want["heldout_unk"].get<std::size_t>());
    CHECK(q->unigram_bpc == Approx(want["unigram_bpc"].get<double>()).epsilon(1e-9));
    CHECK(q->bigram_bpc == Approx(want["bigram_bpc"].get<double>()).epsilon(1e-9));
    CHECK(q->trigram_bpc == Approx(want["trigram_bpc"].get<double>()).epsilon(1e-9));
    CHECK(q->trigram_bpc < q->bigram_bpc);
    // the model's own figure is its training run's, read back unchanged
    const nlohmann::json rec =
        nlohmann::json::parse(std::string(attn::shipped_trained_file(name, "training.json")))["text"];
    CHECK(q->model_bpc == rec["heldout_bpc"].get<double>());
  }
}

TEST_CASE("text quality: params --weights prints the model beside its three baselines, and says when it loses to the trigram", "[quality]") {
  const nlohmann::json g = golden();
  const CliResult en = run_cli("params --weights text-en");
  REQUIRE(en.code == 0);
  CHECK(en.out.find("trigram, Witten-Bell") != std::string::npos);
  CHECK(en.out.find("The model beats the trigram") != std::string::npos);
  // induction-text was trained for copying, not for reading: the trigram beats it (2.74 against 2.64)
  const CliResult ind = run_cli("params --weights induction-text");
  REQUIRE(ind.code == 0);
  CHECK(ind.out.find("does NOT beat the trigram") != std::string::npos);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", g["models"]["induction-text"]["trigram_bpc"].get<double>());
  CHECK(ind.out.find(buf) != std::string::npos);
  // the JSON holds the same figures
  const CliResult j = run_cli("params --weights text-en --json -");
  REQUIRE(j.code == 0);
  const nlohmann::json tq = nlohmann::json::parse(j.out)["text_quality"];
  CHECK(tq["trigram_bpc"].get<double>() == Approx(g["models"]["text-en"]["trigram_bpc"].get<double>()).epsilon(1e-9));
  CHECK(tq["beats_trigram"] == true);
  // a model that is not a text model shows no such lines
  const CliResult syn = run_cli("params --weights induction");
  REQUIRE(syn.code == 0);
  CHECK(syn.out.find("trigram") == std::string::npos);
}

TEST_CASE("text quality: the zh-mix vocabulary reads every example sentence without unk and covers 99.5% of the held-out slice", "[quality]") {
  // The sentences the lessons read: the chapter's tokens (common.chapter_tokens, zh) must be among them.
  const nlohmann::json sentences = zh_mix_sentences();
  std::string chapter = attn::Text(attn::Lang{"zh"})("common.chapter_tokens");
  chapter.erase(std::remove(chapter.begin(), chapter.end(), ' '), chapter.end());
  bool listed = false;
  for (const auto& s : sentences) listed = listed || s.get<std::string>() == chapter;
  CHECK(listed);
  // the vocabulary `train --task text --corpus zh-mix --vocab 4500` builds (min count 3, as train's default)
  const attn::CorpusSplit split =
      attn::split_corpus(attn::bundled_corpus("zh-mix"), 3, 4500, attn::required_characters("zh-mix"));
  const attn::CharTokenizer tok(split.vocab);
  CHECK(split.vocab.tokens.size() == 4500);
  for (const auto& s : sentences) {
    INFO(s.get<std::string>());
    std::size_t unk = 0;
    for (std::int64_t id : tok.encode(s.get<std::string>())) unk += id == tok.unk_id();
    CHECK(unk == 0);
  }
  std::size_t unk = 0;
  for (int id : split.heldout_ids) unk += id == static_cast<int>(tok.unk_id());
  const nlohmann::json want = golden()["zh_mix_vocab_4500"];
  CHECK(split.heldout_ids.size() == want["heldout_characters"].get<std::size_t>());
  CHECK(unk == want["heldout_unk"].get<std::size_t>());  // numpy's count of the same vocabulary
  const double coverage = 1.0 - static_cast<double>(unk) / static_cast<double>(split.heldout_ids.size());
  INFO("held-out coverage " << coverage);
  CHECK(coverage >= 0.995);
  // without the required characters the chapter's sentence would lose one (a character the text lacks)
  const attn::CorpusSplit plain = attn::split_corpus(attn::bundled_corpus("zh-mix"), 3, 4500);
  const attn::CharTokenizer plain_tok(plain.vocab);
  std::size_t plain_unk = 0;
  for (std::int64_t id : plain_tok.encode(chapter)) plain_unk += id == plain_tok.unk_id();
  CHECK(plain_unk == want["required_unseen"].size());
}

TEST_CASE("text quality: generate never chooses unk, greedy and sampled, en and zh", "[quality]") {
  for (const char* model : {"text-zh", "text-en"}) {
    for (const char* how : {"", "--temperature 1.5 --seed 3", "--temperature 3 --seed 11"}) {
      INFO(model << " " << how);
      const std::string json = "/tmp/attnlab_quality_" + std::to_string(::getpid()) + ".json";
      const CliResult r =
          run_cli("generate --weights " + std::string(model) + " --token-ids 5,6,7 --tokens 60 " + how + " --json '" + json + "'");
      REQUIRE(r.code == 0);
      const nlohmann::json j = nlohmann::json::parse(slurp(json));
      std::remove(json.c_str());
      CHECK(j["sampling"]["masked_id"].get<std::int64_t>() == 0);
      std::size_t unk = 0;
      for (const auto& s : j["steps"]) unk += s["id"].get<std::int64_t>() == 0;
      CHECK(unk == 0);
    }
    // the report says it once, and the quality figures head it
    const CliResult r = run_cli("generate --weights " + std::string(model) + " --token-ids 5,6,7 --tokens 5 --lang en");
    REQUIRE(r.code == 0);
    std::size_t said = 0;
    for (std::size_t at = r.out.find("is never chosen"); at != std::string::npos; at = r.out.find("is never chosen", at + 1)) ++said;
    CHECK(said == 1);
    CHECK(r.out.find("trigram, Witten-Bell") < r.out.find("Prompt"));
  }
}

}  // namespace file_test_text_quality
