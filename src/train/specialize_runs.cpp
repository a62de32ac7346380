#include "specialize_runs.h"

#include <fmt/format.h>

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

}  // namespace attn::train
