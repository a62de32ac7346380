#pragma once
// The training runs the lessons `specialize` and `symmetry` narrate: one layer of GPT-2 (with its
// MLP) on a task that needs two relations at once, trained with one head, with several heads, and
// with several heads that start as clones of head 1. The runs of the shipped seed are bundled
// (data/specialize/*.json, written by `attnlab train --json` with the flags specialize_flags
// gives), so the lessons start at once; any other seed, or retrain, trains live (up to 1.3·10^11
// FLOP, about 15 s a run on two cores: lesson specialize --retrain, both runs, 29 s).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recorded_run.h"

namespace attn::train {

constexpr std::uint64_t kSpecializeSeed = 42;   // the seed whose runs are bundled
constexpr std::size_t kSpecializeHeads = 4;     // the several-heads model

// The configuration of a run: `heads` heads, clones of head 1 at the start if symmetric.
TrainConfig specialize_config(std::size_t heads, bool symmetric, std::uint64_t seed);
// The `attnlab train` flags that give that configuration (how data/specialize was made).
std::string specialize_flags(std::size_t heads, bool symmetric, std::uint64_t seed);
// data/specialize/heads_H.json or heads_H_symmetric.json.
std::string specialize_data_path(std::size_t heads, bool symmetric);

// The work of training that run live, in floating-point operations' worth (trainer.h's train_work).
double specialize_run_flops(std::size_t heads, bool symmetric, std::uint64_t seed);
// The run: bundled when seed is kSpecializeSeed, heads is 1 or kSpecializeHeads and retrain is
// false; trained now otherwise.
RecordedRun specialize_run(std::size_t heads, bool symmetric, std::uint64_t seed, bool retrain);

// ---- the same three runs at several seeds (a claim about training is a claim about many runs) ----
// The shipped seed first, then four more. data/specialize/seeds.json holds their outcomes, written
// by `attnlab train --study specialize --json …`; lessons specialize and symmetry read it.
inline constexpr std::uint64_t kSpecializeSeeds[] = {42, 1, 2, 3, 4};

struct SeedOutcome {
  std::uint64_t seed = 0;
  // final evaluation loss and accuracy: 1 head, kSpecializeHeads heads, the same from clones
  double loss_one = 0, accuracy_one = 0, loss_many = 0, accuracy_many = 0, loss_clones = 0, accuracy_clones = 0;
  double clone_gap_max = 0;  // the largest gap between the clones at any step (0: identical throughout)
};
// Trains the three runs at every seed, `workers` runs at once (each on one thread).
std::vector<SeedOutcome> specialize_seed_runs(std::size_t workers);
std::string seed_outcomes_json(const std::vector<SeedOutcome>& runs);
// std::runtime_error naming what is wrong if it is not such a document.
std::vector<SeedOutcome> parse_seed_outcomes(std::string_view json);
std::vector<SeedOutcome> bundled_seed_outcomes();  // data/specialize/seeds.json

}  // namespace attn::train
