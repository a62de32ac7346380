// Real language in the box (issue 27): the shipped text models, trained by `attnlab train --task
// text` on the bundled corpora. Their first steps retrain byte for byte; their held-out bits per
// character, computed here again from the corpus, the tokenizer.json and the weights, beat the
// bigram model of the same text; the checkpoint commands read them by name.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "char_vocab.h"
#include "embedded_data.h"
#include "llama.h"
#include "locate.h"
#include "run_cli.h"
#include "text_task.h"
#include "trained_gpt.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_text_models {

namespace {

std::string shipped(const std::string& rel) { return slurp(std::string(ATTNLAB_SOURCE_DIR) + "/data/trained/" + rel); }

// The flags that trained a shipped text model, from its config.json, with --steps replaced.
std::string text_train_flags(const std::string& name, std::size_t steps) {
  nlohmann::json c = nlohmann::json::parse(shipped(name + "/config.json"));
  const auto& t = c["attnlab_train"];
  const auto& k = c["attnlab_corpus"];
  if (c["model_type"] == "llama")  // a variant (text-zh): RoPE, RMSNorm, SwiGLU, f64, its FFN width the default
    return "train --task text --corpus " + k["name"].get<std::string>() + " --min-count " + std::to_string(k["min_count"].get<int>()) +
           " --vocab " + std::to_string(c["vocab_size"].get<int>()) + " --attention mha --layers " +
           std::to_string(c["num_hidden_layers"].get<int>()) + " --heads " + std::to_string(c["num_attention_heads"].get<int>()) +
           " --d-model " + std::to_string(c["hidden_size"].get<int>()) + " --seq-len " +
           std::to_string(c["max_position_embeddings"].get<int>()) + " --batch " + std::to_string(t["batch"].get<int>()) +
           " --steps " + std::to_string(steps) + " --lr " + t["lr"].dump() + " --warmup " + std::to_string(t["warmup"].get<int>()) +
           " --seed " + std::to_string(t["seed"].get<int>()) + " --quiet";
  return "train --task text --corpus " + k["name"].get<std::string>() + " --min-count " + std::to_string(k["min_count"].get<int>()) +
         " --vocab " + std::to_string(c["vocab_size"].get<int>()) + " --layers " + std::to_string(c["n_layer"].get<int>()) +
         " --heads " + std::to_string(c["n_head"].get<int>()) + " --d-model " + std::to_string(c["n_embd"].get<int>()) +
         " --seq-len " + std::to_string(c["n_positions"].get<int>()) +
         (c["attnlab_attention_only"].get<bool>() ? " --no-mlp" : " --mlp") + " --batch " + std::to_string(t["batch"].get<int>()) +
         " --steps " + std::to_string(steps) + " --lr " + t["lr"].dump() + " --warmup " + std::to_string(t["warmup"].get<int>()) +
         " --seed " + std::to_string(t["seed"].get<int>()) + (t.contains("compute") ? " --dtype " + t["compute"].get<std::string>() : "") +
         (t.contains("repeat_share") ? " --repeat-share " + t["repeat_share"].dump() : "") + " --quiet";
}

// The first `steps` training losses of a retrain equal the shipped run's, bit for bit (the warmup
// covers them, so the schedule over the whole run does not enter).
void check_first_steps(const std::string& name, std::size_t steps) {
  nlohmann::json c = nlohmann::json::parse(shipped(name + "/config.json"));
  REQUIRE(steps <= c["attnlab_train"]["warmup"].get<std::size_t>());
  std::string dir = std::filesystem::temp_directory_path().string() + "/attnlab_text_retrain_" + name + "_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::string flags = text_train_flags(name, steps);
  INFO("attnlab " << flags);
  CliResult r = run_cli(flags + " --threads 2 --save " + dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json got = nlohmann::json::parse(slurp(dir + "/training.json"));
  nlohmann::json want = nlohmann::json::parse(shipped(name + "/training.json"));
  REQUIRE(got["loss_curve"].size() == steps);
  for (std::size_t i = 0; i < steps; ++i) {
    INFO("step " << i + 1);
    CHECK(got["loss_curve"][i].get<double>() == want["loss_curve"][i].get<double>());
  }
  CHECK(slurp(dir + "/tokenizer.json") == shipped(name + "/tokenizer.json"));  // the same vocabulary
  std::filesystem::remove_all(dir);
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

// The held-out slice and the training part of a bundled corpus: the last 5% of its characters.
void split_corpus(const std::string& corpus, std::string& train, std::string& heldout) {
  std::string text(*attn::embedded_file("corpus/" + corpus + ".txt"));
  const std::size_t n = code_points(text), cut = n - n / 20;
  std::size_t at = 0, seen = 0;
  for (; at < text.size(); ++at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80) {
      if (seen == cut) break;
      ++seen;
    }
  }
  train = text.substr(0, at);
  heldout = text.substr(at);
}

std::vector<int> ids_of(const attn::CharTokenizer& tok, const std::string& text) {
  std::vector<std::int64_t> v = tok.encode(text);
  return {v.begin(), v.end()};
}

// The held-out loss of a Llama-style text model (text-zh), in nats per character, computed by attnlab's
// Llama reader from the shipped folder: the slice tiled as text_loss tiles it, window w predicting
// ids[w·T + 1 … w·T + T] from ids[w·T … w·T + T − 1].
double llama_text_loss(const std::string& folder, const std::vector<int>& ids, std::size_t T, std::size_t* targets) {
  const attn::LlamaModel model(folder);
  const std::size_t windows = ids.size() > T ? (ids.size() - 1) / T : 0;
  double sum = 0.0;
  for (std::size_t w = 0; w < windows; ++w) {
    const std::vector<std::int64_t> in(ids.begin() + static_cast<std::ptrdiff_t>(w * T), ids.begin() + static_cast<std::ptrdiff_t>(w * T + T));
    const attn::LlamaRun run = attn::llama_forward(model, in, true);
    const std::size_t V = run.logits.dim(1);
    for (std::size_t t = 0; t < T; ++t) {
      const double* row = run.logits.data.data() + t * V;
      const double mx = *std::max_element(row, row + V);
      double z = 0.0;
      for (std::size_t v = 0; v < V; ++v) z += std::exp(row[v] - mx);
      sum += mx + std::log(z) - row[static_cast<std::size_t>(ids[w * T + t + 1])];
    }
  }
  *targets = windows * T;
  return windows ? sum / static_cast<double>(windows * T) : 0.0;
}

void check_beats_bigram(const std::string& name) {
  nlohmann::json c = nlohmann::json::parse(shipped(name + "/config.json"));
  std::string train, heldout;
  split_corpus(c["attnlab_corpus"]["name"].get<std::string>(), train, heldout);
  CHECK(code_points(heldout) == c["attnlab_corpus"]["heldout_characters"].get<std::size_t>());
  attn::CharTokenizer tok = attn::CharTokenizer::from_tokenizer_json(shipped(name + "/tokenizer.json"), name);
  std::vector<int> train_ids = ids_of(tok, train), heldout_ids = ids_of(tok, heldout);
  const bool llama = c["model_type"] == "llama";
  const std::size_t T = llama ? c["max_position_embeddings"].get<std::size_t>() : c["n_positions"].get<std::size_t>();
  const std::size_t V = c["vocab_size"].get<std::size_t>();
  REQUIRE(tok.vocab_size() == V);
  std::size_t targets = 0;
  const double model = (llama ? llama_text_loss(std::string(ATTNLAB_SOURCE_DIR) + "/data/trained/" + name, heldout_ids, T, &targets)
                              : attn::train::text_loss(attn::shipped_trained_gpt(name).model, heldout_ids, T, 32, &targets)) /
                       std::log(2.0);
  const attn::train::NgramLoss g = attn::train::ngram_loss(train_ids, heldout_ids, V);
  const double bigram = g.bigram / std::log(2.0), unigram = g.unigram / std::log(2.0);
  INFO(name << ": model " << model << " bits/char on " << targets << " characters, bigram " << bigram << ", unigram " << unigram);
  CHECK(targets > heldout_ids.size() * 9 / 10);  // every whole window of the slice
  CHECK(bigram < unigram);
  CHECK(model < bigram);
  // and the figure the training run recorded is this one (the shipped weights are its f32 copy)
  nlohmann::json rec = nlohmann::json::parse(shipped(name + "/training.json"))["text"];
  CHECK(rec["bigram_bpc"].get<double>() == Approx(bigram).epsilon(1e-12));
  CHECK(rec["heldout_bpc"].get<double>() == Approx(model).epsilon(1e-4));
}

}  // namespace

TEST_CASE("text models: --repeat-share windows start over at a random lag, and share 0 draws the windows it always drew", "[text]") {
  std::vector<int> ids;
  for (int i = 0; i < 500; ++i) ids.push_back(i);  // every id its own position: a copy is plain to see
  const std::size_t B = 64, T = 32;
  // share 0: one draw per window, the window at that draw modulo the starts, as before the flag
  attn::Rng a(7), want(7);
  const attn::train::Batch zero = attn::train::text_batch(ids, B, T, a, 0.0);
  for (std::size_t s = 0; s < B; ++s) {
    const auto at = static_cast<int>(want.next_u64() % (ids.size() - T));
    for (std::size_t t = 0; t < T; ++t) {
      CHECK(zero.tokens[s * T + t] == at + static_cast<int>(t));
      CHECK(zero.targets[s * T + t] == at + static_cast<int>(t) + 1);
      CHECK(zero.repeat_targets[s * T + t] == -1);
    }
  }
  CHECK(a.next_u64() == want.next_u64());  // and no other draw
  attn::Rng c(7);
  const attn::train::Batch all = attn::train::text_batch(ids, B, T, c, 1.0);
  std::set<std::size_t> lags;
  for (std::size_t s = 0; s < B; ++s) {
    const int* x = &all.tokens[s * T];
    std::size_t k = 1;
    while (k < T && x[k] == x[k - 1] + 1) ++k;  // where the window starts over
    REQUIRE(k < T);
    CHECK(k >= T / 4);
    CHECK(k <= 3 * T / 4);
    lags.insert(k);
    for (std::size_t t = 0; t < T; ++t) {
      CHECK(x[t] == x[0] + static_cast<int>(t < k ? t : t - k));
      const int next = x[0] + static_cast<int>(t + 1 < k ? t + 1 : t + 1 - k);
      CHECK(all.targets[s * T + t] == next);
      CHECK(all.repeat_targets[s * T + t] == (t >= k ? next : -1));
    }
  }
  CHECK(lags.size() > 8);  // the lag varies: no position gives the repeat away
  attn::Rng d(7);
  const attn::train::Batch half = attn::train::text_batch(ids, 400, T, d, 0.25);
  std::size_t repeated = 0;
  for (std::size_t s = 0; s < 400; ++s) repeated += half.tokens[s * T + T - 1] != half.tokens[s * T] + static_cast<int>(T - 1);
  CHECK(repeated > 70);
  CHECK(repeated < 130);
}

TEST_CASE("text models: text-en beats the bigram model on its held-out slice, computed here", "[text]") {
  check_beats_bigram("text-en");
}

TEST_CASE("text models: text-zh beats the bigram model on its held-out slice, computed here", "[text]") {
  check_beats_bigram("text-zh");
}

TEST_CASE("text models: a retrain reproduces the shipped text-en's first 100 steps byte for byte", "[text][slow]") {
  check_first_steps("text-en", 100);
}

TEST_CASE("text models: a retrain reproduces the shipped text-zh's first 25 steps byte for byte", "[text][slow]") {
  check_first_steps("text-zh", 25);
}

TEST_CASE("text models: train --repeat-share is said in the report and the JSON, and refused where it cannot apply", "[text]") {
  const std::string tiny = "train --task text --corpus en --layers 1 --heads 2 --d-model 8 --seq-len 16 --batch 2 --steps 3 --quiet";
  CliResult r = run_cli(tiny + " --repeat-share 0.5");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("0.50 of the training windows start over at a random point") != std::string::npos);
  CliResult j = run_cli(tiny + " --repeat-share 0.5 --json -");
  REQUIRE(j.code == 0);
  CHECK(nlohmann::json::parse(j.out)["config"]["repeat_share"] == 0.5);
  CliResult plain = run_cli(tiny + " --json -");
  REQUIRE(plain.code == 0);
  CHECK_FALSE(nlohmann::json::parse(plain.out)["config"].contains("repeat_share"));
  CHECK(nlohmann::json::parse(plain.out)["loss_curve"] != nlohmann::json::parse(j.out)["loss_curve"]);  // it changes what is trained
  for (const std::string& bad : {tiny + " --repeat-share 1.5", tiny + " --repeat-share -0.1", tiny + " --repeat-share nan",
                                 std::string("train --steps 3 --repeat-share 0.5"),
                                 tiny + " --attention gqa --kv-heads 1 --repeat-share 0.5",
                                 std::string("train --study tradeoffs --repeat-share 0.5")}) {
    CliResult e = run_cli(bad);
    INFO(bad << " → " << e.err);
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(e.err.find("--repeat-share") != std::string::npos);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
}

TEST_CASE("text models: induction-text beats the bigram model on its held-out slice, computed here", "[text]") {
  check_beats_bigram("induction-text");
}

TEST_CASE("text models: a retrain reproduces the shipped induction-text's first 100 steps byte for byte", "[text]") {
  check_first_steps("induction-text", 100);
}

TEST_CASE("text models: the checkpoint commands read text-en and text-zh by name, without a cache", "[text]") {
  for (const char* name : {"text-en", "text-zh"}) {
    CHECK(std::find(attn::builtin_model_names().begin(), attn::builtin_model_names().end(), name) != attn::builtin_model_names().end());
  }
  // a fresh cache folder: the model is written there on first use, then read as any folder
  std::string cache = std::filesystem::temp_directory_path().string() + "/attnlab_text_cache_" + std::to_string(::getpid());
  std::filesystem::remove_all(cache);
  const std::string env = "XDG_CACHE_HOME=" + cache + " HF_HUB_CACHE=/nonexistent ";
  CliResult h = run_cli("heads --weights text-en --text 'And Peter said unto Jesus' --json -", env);
  INFO(h.err);
  REQUIRE(h.code == 0);
  nlohmann::json j = nlohmann::json::parse(h.out);
  CHECK(j["weights"] == "text-en");  // the name, not the cache path: the same bytes on every machine
  CHECK(j["tokens"].size() == std::string("And Peter said unto Jesus").size());  // one token a character
  // the roles named are exactly the heads whose score reaches the stated threshold
  for (const char* role : {"previous", "first", "self", "induction"}) {
    const double threshold = j["named"][role]["threshold"].get<double>();
    std::size_t passing = 0;
    for (const auto& row : j["scores"][role])
      for (const auto& s : row) passing += s.get<double>() >= threshold;
    CHECK(j["named"][role]["heads"].size() == passing);
  }
  CHECK(j["named"]["previous"]["heads"].size() >= 1);  // a character model looks one back
  CHECK(std::filesystem::exists(cache + "/attnlab"));
  for (const char* cmd : {"params --weights text-zh", "lesson mha --weights text-zh --text 天地玄黄", "lesson attention --weights text-en --text 'In the beginning'",
                          "lesson block --weights text-en --text 'the LORD'", "lesson kv-memory --weights text-en --text 'the LORD'"}) {
    CliResult r = run_cli(cmd, env);
    INFO(cmd << "\n" << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find(cache) == std::string::npos);
  }
  std::filesystem::remove_all(cache);
}

TEST_CASE("text models: generate continues a prompt as text, greedy or sampled with a seed", "[text]") {
  CliResult g = run_cli("generate --weights text-en --text 'In the beginning' --tokens 40 --json -");
  REQUIRE(g.code == 0);
  nlohmann::json j = nlohmann::json::parse(g.out);
  const std::string text = j["text"].get<std::string>();
  CHECK(text.rfind("In the beginning", 0) == 0);
  CHECK(code_points(text) == std::string("In the beginning").size() + 40);
  // greedy: each step is its row's argmax
  for (const auto& s : j["steps"]) CHECK(s["prob"].get<double>() > 0);
  auto sampled = [](int seed) {
    CliResult r = run_cli("generate --weights text-zh --text 春眠不觉晓 --tokens 30 --temperature 0.9 --top-k 20 --seed " + std::to_string(seed) + " --json -");
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out)["text"].get<std::string>();
  };
  const std::string a = sampled(1), b = sampled(1), c = sampled(2);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a.rfind("春眠不觉晓", 0) == 0);
  CliResult bad = run_cli("generate --weights text-en --text x --top-k 5 --lang en");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--top-k needs --temperature above 0") != std::string::npos);
  bad = run_cli("generate --weights text-en --text x --temperature -1 --lang en");
  CHECK(bad.code == 2);
}

TEST_CASE("text models: train --task text on a file saves a checkpoint the commands read, and refuses what it cannot use", "[text]") {
  namespace fs = std::filesystem;
  std::string dir = fs::temp_directory_path().string() + "/attnlab_text_small_" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string corpus;
  for (int i = 0; i < 200; ++i) corpus += "the cat sat on the mat. 猫坐在垫子上。\n";
  std::ofstream(dir + "/c.txt") << corpus;
  CliResult r = run_cli("train --task text --corpus " + dir + "/c.txt --layers 1 --heads 2 --d-model 16 --seq-len 16 --batch 4 --steps 30 --mlp --save " + dir + "/ck --lang en");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Held-out bits per character") != std::string::npos);
  for (const char* f : {"config.json", "model.safetensors", "tokenizer.json", "training.json"}) CHECK(fs::exists(dir + "/ck/" + f));
  attn::CharTokenizer tok = attn::CharTokenizer::from_tokenizer_json(slurp(dir + "/ck/tokenizer.json"), "t");
  CHECK(tok.encode("cat")[0] != tok.unk_id());
  CHECK(tok.encode("狗")[0] == tok.unk_id());  // never seen: <unk>
  CHECK(run_cli("generate --weights " + dir + "/ck --text 'the c' --tokens 5").code == 0);
  // refused up front, naming the flag
  CliResult e = run_cli("train --task induction --corpus en --lang en");
  CHECK(e.code == 2);
  CHECK(e.err.find("--corpus: a run on the synthetic task 'induction' does not use this flag; it is for --task text") != std::string::npos);
  std::ofstream(dir + "/tiny.txt") << "abc";
  e = run_cli("train --task text --corpus " + dir + "/tiny.txt --lang en");
  CHECK(e.code == 2);
  CHECK(e.err.find("too few") != std::string::npos);
  e = run_cli("train --task text --corpus " + dir + "/none.txt --lang en");
  CHECK(e.code == 2);
  CHECK(e.err.find("--corpus") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace file_test_text_models
