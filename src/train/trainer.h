#pragma once
// The training loop of `attnlab train`: a GPT-2 (src/math/gpt.h) on a synthetic task
// (tasks.h) with AdamW, linear warmup then a constant learning rate, in double or in float
// (TrainConfig::compute). Deterministic: the same config gives the same bits for every thread count.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "adamw.h"
#include "gpt.h"
#include "head_scores.h"
#include "tasks.h"
#include "text_task.h"

namespace attn::train {

// The scalar type training computes in: weights, activations, gradients and AdamW's moments.
enum class Precision { F64, F32 };

struct TrainConfig {
  gpt::GptConfig model;
  // F32: the training step (forward, backward, AdamW) in float (gpt.h's float instantiation). The
  // evaluations, the held-out loss and the final attention then run the f64 forward on the float
  // weights widened exactly, as the checkpoint commands will read them; TrainResult::model holds
  // those widened weights. F64 (the default) is the trainer every shipped model was made with.
  Precision compute = Precision::F64;
  Task task = Task::Induction;
  std::size_t batch = 64, steps = 2000, warmup = 100;
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.98, weight_decay = 0.01;
  std::uint64_t seed = 42;
  std::size_t eval_every = 50;   // head scores on the evaluation batch every this many steps
  std::size_t eval_batch = 32;   // sequences in the evaluation batch (fixed, drawn once)
  bool symmetric_heads = false;  // every head starts as a copy of head 1 (clones.h); the gap is recorded
  const TextData* text = nullptr;  // Task::Text: the corpus as ids (text_task.h), owned by the caller
  double repeat_share = 0.0;       // Task::Text: the share of windows that start over at a random lag (text_batch)
  // After warmup: a constant rate, or (cosine) a half cosine from lr down to lr · min_lr_ratio at the last step.
  bool cosine = false;
  double min_lr_ratio = 0.1;
};

// The learning rate of step s (from 0): linear warmup to lr over `warmup` steps, then constant or cosine.
double learning_rate(const TrainConfig& c, std::size_t step);

// The most work one training run may do, in floating-point operations' worth (step_work): about
// two minutes on a 2-core machine whatever the shape (the default induction run, 4,000 steps:
// 2.9·10^12, 100-110 s; 15,000 steps of 8 heads of width 1: 85 s). `attnlab train` and every
// lesson's --retrain run are held to it (scaled down under the fuzzers with the lessons' caps,
// work_cap_scale).
constexpr double kMaxTrainWork = 3.2e12;
// What step_flops leaves out, in floating-point operations' worth, measured (docs/ARCHITECTURE.md):
// each attention score of each head costs about 12 ns (its exp, the softmax and their backward,
// the per-head loops), the time of 350 operations of the matmuls; each step about 1 ms (its
// hundred parallel loops, AdamW, drawing the batch).
constexpr double kScoreWork = 350, kStepWork = 2.5e7;

// Floating-point operations of one training step (forward + backward, the multiply-adds of the
// matmuls and attention counted as 2), for the GFLOP/s figure.
double step_flops(const TrainConfig& c);
// The cost of one step for the work cap: step_flops + kScoreWork per score (layers · batch · heads
// · T²) + kStepWork. Many small heads cost far more than their FLOP say.
double step_work(const TrainConfig& c);
// The whole run's work for the cap: step_work · steps.
double train_work(const TrainConfig& c);
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
  // Task::Text: the loss per character on the whole held-out slice after training (text_loss), and
  // the number of characters it was measured on.
  double heldout_loss = 0.0;
  std::size_t heldout_targets = 0;
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
