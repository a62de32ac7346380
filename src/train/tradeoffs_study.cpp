#include "tradeoffs_study.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "parallel.h"

namespace attn::train {

namespace {
using decoder::Attention;

decoder::DecoderConfig study_base(std::size_t vocab) {
  decoder::DecoderConfig c;
  c.vocab = vocab, c.n_positions = 64, c.d_model = 64, c.n_layer = 2, c.n_head = 4, c.head_dim = 16;
  c.attention = Attention::Mha;
  c.positions = decoder::Positions::Rope;
  c.ffn = decoder::Ffn::Swiglu;
  c.norm = decoder::Norm::RmsNorm;
  c.d_ff = 176;  // ≈ 8·64/3 rounded up to a multiple of 16, as LLaMA rounds it
  return c;
}

// The FFN width that brings c's parameters closest to `target` (the nearer of the two widths
// around it; the smaller on a tie).
std::size_t matched_ffn_width(decoder::DecoderConfig c, double target) {
  c.d_ff = 1;
  const double fixed = decoder::decoder_param_count(c) - static_cast<double>(c.n_layer) * (c.ffn == decoder::Ffn::Gelu ? 2.0 : 3.0) *
                                                              static_cast<double>(c.d_model);
  const double per_column = static_cast<double>(c.n_layer) * (c.ffn == decoder::Ffn::Gelu ? 2.0 : 3.0) *
                            static_cast<double>(c.d_model);
  const double exact = (target - fixed) / per_column;
  const double lo = std::floor(exact), hi = lo + 1;
  return static_cast<std::size_t>(exact - lo <= hi - exact ? lo : hi);
}
}  // namespace

std::vector<StudyVariant> study_variants(std::size_t vocab) {
  const decoder::DecoderConfig base = study_base(vocab);
  const double target = decoder::decoder_param_count(base);
  std::vector<StudyVariant> out{{"mha", base}};
  auto add = [&](std::string id, decoder::DecoderConfig c) {
    c.d_ff = matched_ffn_width(c, target);
    out.push_back({std::move(id), c});
  };
  decoder::DecoderConfig c = base;
  c.attention = Attention::Gqa, c.n_kv_head = 2;
  add("gqa-2", c);
  c = base;
  c.attention = Attention::Mqa;
  add("mqa", c);
  c = base;
  c.attention = Attention::Mla, c.kv_lora_rank = 32, c.rope_dim = 8;
  add("mla-32", c);
  c.kv_lora_rank = 64;  // DeepSeek-V2's and V3's d_c = 4·d_h: one of this MLA's departures, tested alone
  add("mla-64", c);
  c = base;
  c.ffn = decoder::Ffn::Gelu;
  add("mha-gelu", c);
  return out;
}

VariantRun study_run(const decoder::DecoderConfig& model, std::uint64_t seed, const TextData* text) {
  VariantRun r;
  r.model = model;
  r.batch = 16, r.steps = 1000, r.warmup = 100;
  r.lr = 3e-3, r.beta1 = 0.9, r.beta2 = 0.98, r.weight_decay = 0.01, r.min_lr_ratio = 0.1;
  r.seed = seed;
  r.eval_every = 25, r.eval_batch = 32;
  r.text = text;
  return r;
}

StudyResults run_study(const TextData& text, const std::string& corpus, std::size_t characters,
                       std::size_t heldout_characters, std::size_t workers,
                       const std::function<void(std::size_t, std::size_t)>& progress) {
  StudyResults out;
  out.corpus = corpus, out.vocab = text.vocab, out.characters = characters, out.heldout_characters = heldout_characters;
  out.variants = study_variants(text.vocab);
  for (const StudyVariant& v : out.variants)
    for (std::uint64_t seed : kStudySeeds) out.runs.push_back({v.id, seed, 0.0, 0, 0.0, {}});
  workers = std::max<std::size_t>(1, std::min(workers, out.runs.size()));
  out.threads = workers;
  // Each run on one thread, `workers` runs at once: the runs share nothing but the text.
  const std::size_t keep_threads = thread_count();
  set_threads(1);
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex m;
  auto work = [&] {
    for (std::size_t i = next++; i < out.runs.size(); i = next++) {
      StudyRunResult& run = out.runs[i];
      const StudyVariant& v = *std::find_if(out.variants.begin(), out.variants.end(),
                                            [&](const StudyVariant& s) { return s.id == run.variant; });
      const auto t0 = std::chrono::steady_clock::now();
      const VariantResult r = train_variant(study_run(v.model, run.seed, &text));
      run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      run.heldout_loss = r.heldout_loss, run.heldout_targets = r.heldout_targets, run.evals = r.evals;
      std::lock_guard<std::mutex> lock(m);
      ++done;
      if (progress) progress(done, out.runs.size());
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  set_threads(keep_threads);
  return out;
}

// ---- JSON --------------------------------------------------------------------------------------

namespace {
const char* kSchema = "attnlab.tradeoffs/1";

nlohmann::ordered_json config_json(const decoder::DecoderConfig& c) {
  const char* att[] = {"mha", "gqa", "mqa", "mla"};
  return {{"attention", att[static_cast<int>(c.attention)]},
          {"n_kv_head", c.kv_heads()},
          {"kv_lora_rank", c.kv_lora_rank},
          {"rope_dim", c.rope_dim},
          {"positions", c.positions == decoder::Positions::Rope ? "rope" : "learned"},
          {"ffn", c.ffn == decoder::Ffn::Swiglu ? "swiglu" : "gelu"},
          {"norm", c.norm == decoder::Norm::RmsNorm ? "rmsnorm" : "layernorm"},
          {"vocab", c.vocab},
          {"n_positions", c.n_positions},
          {"d_model", c.d_model},
          {"n_layer", c.n_layer},
          {"n_head", c.n_head},
          {"head_dim", c.hs()},
          {"d_ff", c.F()}};
}
}  // namespace

std::string study_results_json(const StudyResults& r) {
  nlohmann::ordered_json j;
  j["schema"] = kSchema;
  j["corpus"] = r.corpus;
  j["vocab"] = r.vocab;
  j["characters"] = r.characters;
  j["heldout_characters"] = r.heldout_characters;
  j["threads"] = r.threads;
  const VariantRun schedule = study_run({}, 0, nullptr);
  j["schedule"] = {{"batch", schedule.batch}, {"steps", schedule.steps}, {"warmup", schedule.warmup},
                   {"lr", schedule.lr}, {"min_lr_ratio", schedule.min_lr_ratio}, {"eval_every", schedule.eval_every},
                   {"eval_batch", schedule.eval_batch}};
  j["variants"] = nlohmann::ordered_json::array();
  for (const StudyVariant& v : r.variants)
    j["variants"].push_back({{"id", v.id},
                             {"config", config_json(v.model)},
                             {"params", static_cast<std::size_t>(decoder::decoder_param_count(v.model))},
                             {"cache_per_token", v.model.cache_per_token()}});
  j["runs"] = nlohmann::ordered_json::array();
  for (const StudyRunResult& run : r.runs) {
    nlohmann::ordered_json e = nlohmann::ordered_json::array();
    for (const VariantEval& v : run.evals) e.push_back({v.step, v.loss});
    j["runs"].push_back({{"variant", run.variant},
                         {"seed", run.seed},
                         {"heldout_loss", run.heldout_loss},
                         {"heldout_targets", run.heldout_targets},
                         {"seconds", std::round(run.seconds * 10) / 10},
                         {"evals", e}});
  }
  return j.dump(1) + "\n";
}

StudyResults parse_study_results(std::string_view json) {
  const nlohmann::json j = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != kSchema)
    throw std::runtime_error(std::string("not an ") + kSchema + " document");
  StudyResults r;
  try {
    r.corpus = j.at("corpus").get<std::string>();
    r.vocab = j.at("vocab"), r.characters = j.at("characters"), r.heldout_characters = j.at("heldout_characters");
    r.threads = j.at("threads");
    // The variants are the study's own (study_variants): the file must name the same ones.
    r.variants = study_variants(r.vocab);
    const auto& vs = j.at("variants");
    if (vs.size() != r.variants.size()) throw std::runtime_error("variants");
    for (std::size_t i = 0; i < vs.size(); ++i)
      if (vs[i].at("id").get<std::string>() != r.variants[i].id || vs[i].at("config").at("d_ff") != r.variants[i].model.F())
        throw std::runtime_error("variants");
    for (const auto& run : j.at("runs")) {
      StudyRunResult s;
      s.variant = run.at("variant").get<std::string>();
      s.seed = run.at("seed");
      s.heldout_loss = run.at("heldout_loss"), s.heldout_targets = run.at("heldout_targets");
      s.seconds = run.at("seconds");
      for (const auto& e : run.at("evals")) s.evals.push_back({e.at(0).get<std::size_t>(), e.at(1).get<double>()});
      r.runs.push_back(std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("a key is missing or of the wrong type: ") + e.what());
  }
  return r;
}

StudyResults bundled_study_results() {
  const auto text = embedded_file("tradeoffs/results.json");
  if (!text) throw std::logic_error("data/tradeoffs/results.json was not bundled");
  return parse_study_results(*text);
}

}  // namespace attn::train
