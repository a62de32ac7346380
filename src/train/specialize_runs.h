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

}  // namespace attn::train
