#include "specialize_runs.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "parallel.h"

namespace attn::train {

namespace {
// One layer, vocabulary 16, 16 positions, d_model 32 (the measurement), GPT-2 with its MLP.
constexpr std::size_t kVocab = 16, kSeqLen = 16, kDModel = 32, kSteps = 1500, kBatch = 64;
constexpr double kLr = 3e-3;
constexpr Task kTask = Task::PrevMinusFirst;
}  // namespace

TrainConfig specialize_config(std::size_t heads, bool symmetric, std::uint64_t seed) {
  TrainConfig c;
  c.model = {kVocab, kSeqLen, kDModel, 1, heads, true};
  c.task = kTask;
  c.batch = kBatch;
  c.steps = kSteps;
  c.lr = kLr;
  c.seed = seed;
  c.eval_every = kSteps / 40;  // as `attnlab train` sets it
  c.symmetric_heads = symmetric;
  return c;
}

std::string specialize_flags(std::size_t heads, bool symmetric, std::uint64_t seed) {
  const TrainConfig c = specialize_config(heads, symmetric, seed);
  return fmt::format("--task {} --layers 1 --heads {} --d-model {} --vocab {} --seq-len {} --mlp --batch {} --steps {} "
                     "--lr {} --seed {}{}",
                     task_name(c.task), heads, c.model.d_model, c.model.vocab, c.model.n_positions, c.batch, c.steps,
                     c.lr, seed, symmetric ? " --init symmetric" : "");
}

std::string specialize_data_path(std::size_t heads, bool symmetric) {
  return fmt::format("specialize/heads_{}{}.json", heads, symmetric ? "_symmetric" : "");
}

double specialize_run_flops(std::size_t heads, bool symmetric, std::uint64_t seed) {
  TrainConfig c = specialize_config(heads, symmetric, seed);
  return train_work(c);
}

RecordedRun specialize_run(std::size_t heads, bool symmetric, std::uint64_t seed, bool retrain) {
  const bool bundled = seed == kSpecializeSeed && (heads == 1 || heads == kSpecializeHeads) && !(symmetric && heads == 1);
  if (bundled && !retrain) return bundled_train_run(specialize_data_path(heads, symmetric));
  RecordedRun run;
  run.config = specialize_config(heads, symmetric, seed);
  run.result = train(run.config);
  return run;
}

std::vector<SeedOutcome> specialize_seed_runs(std::size_t workers) {
  struct Job {
    std::size_t seed_index, heads;
    bool symmetric;
  };
  std::vector<Job> jobs;
  std::vector<SeedOutcome> out;
  for (std::size_t i = 0; i < std::size(kSpecializeSeeds); ++i) {
    out.push_back({kSpecializeSeeds[i]});
    jobs.push_back({i, 1, false});
    jobs.push_back({i, kSpecializeHeads, false});
    jobs.push_back({i, kSpecializeHeads, true});
  }
  const std::size_t keep_threads = thread_count();
  set_threads(1);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < jobs.size(); k = next++) {
      const Job& j = jobs[k];
      const TrainResult r = train(specialize_config(j.heads, j.symmetric, kSpecializeSeeds[j.seed_index]));
      SeedOutcome& o = out[j.seed_index];  // each job writes its own fields only
      const Evaluation& e = r.evals.back();
      if (j.heads == 1) {
        o.loss_one = e.loss, o.accuracy_one = e.accuracy;
      } else if (!j.symmetric) {
        o.loss_many = e.loss, o.accuracy_many = e.accuracy;
      } else {
        o.loss_clones = e.loss, o.accuracy_clones = e.accuracy;
        o.clone_gap_max = *std::max_element(r.clone_gap.begin(), r.clone_gap.end());
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < std::max<std::size_t>(1, workers); ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  set_threads(keep_threads);
  return out;
}

std::string seed_outcomes_json(const std::vector<SeedOutcome>& runs) {
  nlohmann::ordered_json j;
  j["schema"] = "attnlab.specialize-seeds/1";
  j["flags"] = specialize_flags(kSpecializeHeads, false, 0);
  j["runs"] = nlohmann::ordered_json::array();
  for (const SeedOutcome& o : runs)
    j["runs"].push_back({{"seed", o.seed}, {"loss_one", o.loss_one}, {"accuracy_one", o.accuracy_one},
                         {"loss_many", o.loss_many}, {"accuracy_many", o.accuracy_many}, {"loss_clones", o.loss_clones},
                         {"accuracy_clones", o.accuracy_clones}, {"clone_gap_max", o.clone_gap_max}});
  return j.dump(1) + "\n";
}

std::vector<SeedOutcome> parse_seed_outcomes(std::string_view json) {
  const nlohmann::json j = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "attnlab.specialize-seeds/1")
    throw std::runtime_error("not an attnlab.specialize-seeds/1 document");
  std::vector<SeedOutcome> out;
  try {
    for (const auto& r : j.at("runs"))
      out.push_back({r.at("seed").get<std::uint64_t>(), r.at("loss_one"), r.at("accuracy_one"), r.at("loss_many"),
                     r.at("accuracy_many"), r.at("loss_clones"), r.at("accuracy_clones"), r.at("clone_gap_max")});
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("a key is missing or of the wrong type: ") + e.what());
  }
  return out;
}

std::vector<SeedOutcome> bundled_seed_outcomes() {
  const auto text = embedded_file("specialize/seeds.json");
  if (!text) throw std::logic_error("data/specialize/seeds.json was not bundled");
  return parse_seed_outcomes(*text);
}

}  // namespace attn::train
