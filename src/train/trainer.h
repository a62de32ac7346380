#pragma once
// The training loop of `attnlab train`: a GPT-2 (src/math/gpt.h) on a synthetic task
// (tasks.h) with AdamW, linear warmup then a constant learning rate. Deterministic: the same
// config gives the same bits for every thread count.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "adamw.h"
#include "gpt.h"
#include "head_scores.h"
#include "tasks.h"

namespace attn::train {

struct TrainConfig {
  gpt::GptConfig model;
  Task task = Task::Induction;
  std::size_t batch = 64, steps = 2000, warmup = 100;
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.98, weight_decay = 0.01;
  std::uint64_t seed = 42;
  std::size_t eval_every = 50;   // head scores on the evaluation batch every this many steps
  std::size_t eval_batch = 32;   // sequences in the evaluation batch (fixed, drawn once)
  bool symmetric_heads = false;  // every head starts as a copy of head 1 (clones.h); the gap is recorded
};

// The most work one training run may do: 2.5·10^12 floating-point operations, a minute and a half
// at the speed the trainer reaches on a 2-core machine (the default induction run, 4,000 steps:
// 2.1·10^12, 70–81 s). `attnlab train` and every lesson's --retrain run are held to it (scaled down
// under the fuzzers with the lessons' caps, work_cap_scale).
constexpr double kMaxTrainFlops = 2.5e12;

// Floating-point operations of one training step (forward + backward, the multiply-adds of the
// matmuls and attention counted as 2), for the work cap and the GFLOP/s figure.
double step_flops(const TrainConfig& c);
// Numbers held at once while training (weights, gradients, AdamW moments, activations, scratch).
double train_memory_numbers(const TrainConfig& c);

struct Evaluation {
  std::size_t step = 0;
  double loss = 0.0;          // on the evaluation batch, every target
  double repeat_loss = 0.0;   // on the second copy only (0 when the task has none)
  double accuracy = 0.0;      // share of the evaluation targets whose most probable token is right
  HeadScores scores;
};

struct TrainResult {
  gpt::Gpt model;
  std::vector<double> loss_curve;     // training loss at each step (before its update)
  std::vector<Evaluation> evals;      // at step 0, every eval_every steps, and after the last
  // The final model with its induction heads zeroed: every head past layer 1 whose induction score
  // is at least 0.5, or the best one if none is; (layer, head) from 0.
  Tensor final_attention;              // (L, H, T, T): the final model's weights on the first evaluation sequence
  std::vector<int> pattern_tokens;     // (T): that sequence
  double repeat_loss_ablated = 0.0;
  std::vector<std::pair<std::size_t, std::size_t>> ablated;
  // With symmetric_heads: max_head_gap (clones.h) before the first step and after every step
  // ([steps + 1]); empty otherwise.
  std::vector<double> clone_gap;
};

// The share of rows with a target (not -1) whose largest probability is at the target (the first
// largest if several tie); 0 when no row has one. probs (N, V), targets (N).
double argmax_accuracy(const double* probs, const int* targets, std::size_t N, std::size_t V);

// progress(step done, steps, loss) after every step (may be empty).
TrainResult train(const TrainConfig& c, const std::function<void(std::size_t, std::size_t, double)>& progress = {});

// The first step at which the loss has fallen below `level` and stays there, or steps if never.
std::size_t drop_step(const std::vector<double>& loss_curve, double level);
// The phase change: the first evaluation step from which the loss on the repeat (or, for a task
// without one, the evaluation loss) stays below half of ln V; `reached` false if it never does.
struct Drop {
  bool reached = false;
  std::size_t step = 0;
};
Drop phase_change(const TrainResult& r, bool on_repeat, double ln_vocab);

}  // namespace attn::train
