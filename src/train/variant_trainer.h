#pragma once
// Training the chapter's variants (src/math/decoder.h) on a real text: the loop of trainer.h with
// the variant decoder in place of GPT-2 — random windows of the training text, AdamW, linear
// warmup then a half cosine, the held-out loss measured at fixed steps and, at the end, on the
// whole held-out slice. Deterministic: the same config gives the same bits for every thread count.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "decoder.h"
#include "text_task.h"

namespace attn::train {

struct VariantRun {
  decoder::DecoderConfig model;
  std::size_t batch = 16, steps = 600, warmup = 50;
  double lr = 3e-3, beta1 = 0.9, beta2 = 0.98, weight_decay = 0.01, min_lr_ratio = 0.1;
  std::uint64_t seed = 1;
  std::size_t eval_every = 50;   // the held-out evaluation batch every this many steps
  std::size_t eval_batch = 32;   // its windows, spread evenly over the held-out slice
  const TextData* text = nullptr;  // owned by the caller
};

struct VariantEval {
  std::size_t step = 0;
  double loss = 0.0;  // mean loss per character on the evaluation batch
};

struct VariantResult {
  decoder::Decoder model;
  std::vector<double> loss_curve;  // training loss of every step, before its update
  std::vector<VariantEval> evals;  // at step 0, every eval_every steps and after the last
  double heldout_loss = 0.0;       // on the whole held-out slice (variant_text_loss)
  std::size_t heldout_targets = 0;
};

// The learning rate of step s: linear warmup to lr, then a half cosine down to lr · min_lr_ratio.
double variant_learning_rate(const VariantRun& r, std::size_t step);

// The work of one training step, in floating-point operations (forward and backward, matmuls and
// attention products counted as 2 per multiply-add).
double variant_step_flops(const VariantRun& r);

// progress(step done, steps, loss) after every step (may be empty).
VariantResult train_variant(const VariantRun& r, const std::function<void(std::size_t, std::size_t, double)>& progress = {});

// Mean cross-entropy per character over every whole window of T + 1 ids of `ids` (the windows
// tiling it with one id of overlap, as text_loss); `targets` gets the count.
double variant_text_loss(const decoder::Decoder& m, const std::vector<int>& ids, std::size_t T, std::size_t batch,
                         std::size_t* targets);

}  // namespace attn::train
