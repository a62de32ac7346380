#pragma once
// A model `attnlab train --save DIR` wrote, read back into the trainer's own GPT-2 (src/math/gpt.h),
// from the three files' bytes (a folder, or the copies compiled in from data/trained/):
//   config.json        Hugging Face GPT-2 keys (n_layer, n_head, n_embd, n_positions, vocab_size),
//                      "attnlab_attention_only", "attnlab_task" and "attnlab_train" (the recipe)
//   model.safetensors  the flat buffer cut into Hugging Face GPT-2 tensors (F32 or F64)
//   training.json      {"loss_curve": [steps], "evals": [{"step", "loss", "repeat_loss"}, …]}
// Every tensor's name, shape and dtype is checked against the config; anything wrong is a
// UsageError naming `where` (checkpoint.err.*).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpt.h"

namespace attn {

struct TrainedEval {
  std::size_t step = 0;
  double loss = 0.0, repeat_loss = 0.0;
};

struct TrainedGpt {
  gpt::Gpt model;
  std::string task;  // "induction", "repeat-half", …
  std::size_t batch = 0, steps = 0, warmup = 0;
  double lr = 0.0, beta1 = 0.0, beta2 = 0.0, weight_decay = 0.0;
  std::uint64_t seed = 0;
  double repeat_share = 0.0;        // --task text: the share of windows that start over (train --repeat-share)
  // --task text: held-out bits per character of the model and of the bigram baseline (training.json's
  // "text"); 0 for the synthetic tasks.
  double heldout_bpc = 0.0, bigram_bpc = 0.0;
  std::vector<double> loss_curve;   // (steps): the training loss at each step
  std::vector<TrainedEval> evals;   // the evaluation batch's losses as training went
};

TrainedGpt read_trained_gpt(std::string_view config_json, std::string_view safetensors, std::string_view training_json,
                            const std::string& where);
// A model shipped in data/trained/NAME/ (compiled in): `attnlab train` wrote it; a missing file is a bug.
TrainedGpt shipped_trained_gpt(const std::string& name);
// One file of a shipped model's folder (config.json, tokenizer.json, …), as compiled in.
std::string_view shipped_trained_file(const std::string& name, const char* leaf);

}  // namespace attn
