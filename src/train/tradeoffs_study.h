#pragma once
// The trade-offs study (`attnlab lesson tradeoffs`, `attnlab train --study tradeoffs`): the
// chapter's variants trained on the same text, at the same parameter count, on the same tokens
// with the same schedule, over several seeds.
//
//   base       2 layers, d_model 64, 4 query heads of width 16, T 64, RoPE, RMSNorm, SwiGLU
//   variants   MHA (4 KV heads), GQA (2), MQA (1), MLA (latent 32, RoPE key 8), MLA with DeepSeek's
//              latent width d_c = 4·d_h (64), and MHA with a GELU FFN
//   matched    every variant's parameters equal MHA's to within one FFN column: the FFN width absorbs
//              what the attention saves (study_variants)
//   schedule   batch 16, 1,000 steps (1,024,000 characters seen), AdamW lr 3e-3, 100 warm-up steps, cosine to 0.1·lr
//   seeds      1 to 5: weights and windows both drawn from the seed
// The shipped results (data/tradeoffs/results.json) were written by `attnlab train --study
// tradeoffs --json …`; the lesson reads them, --retrain trains the study again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "seed_stats.h"
#include "variant_trainer.h"

namespace attn::train {

struct StudyVariant {
  std::string id;                 // "mha", "gqa-2", "mqa", "mla-32", "mla-64", "mha-gelu"
  decoder::DecoderConfig model;   // d_ff matched
};

inline constexpr std::uint64_t kStudySeeds[] = {1, 2, 3, 4, 5};
inline constexpr const char* kStudyCorpus = "en";
inline constexpr std::size_t kStudyMinCount = 3, kStudyKeep = 2000;

// The variants for a text of `vocab` characters, the base (MHA with SwiGLU) first.
std::vector<StudyVariant> study_variants(std::size_t vocab);
// One run of the study: the variant's model, the schedule above, this seed.
VariantRun study_run(const decoder::DecoderConfig& model, std::uint64_t seed, const TextData* text);

struct StudyRunResult {
  std::string variant;
  std::uint64_t seed = 0;
  double heldout_loss = 0.0;        // nats per character, whole held-out slice
  std::size_t heldout_targets = 0;
  double seconds = 0.0;             // wall time of the run (not deterministic; shown, never compared)
  std::vector<VariantEval> evals;   // held-out evaluation batch every eval_every steps
};

struct StudyResults {
  std::string corpus;
  std::size_t vocab = 0, characters = 0, heldout_characters = 0;
  std::size_t threads = 0;           // threads the runs were trained on (two runs at a time, one thread each)
  std::vector<StudyVariant> variants;
  std::vector<StudyRunResult> runs;  // variant by variant, seeds in order
};

// Trains every variant at every seed, `workers` runs at once (each on one thread; the results do
// not depend on it). progress(runs done, runs) after each run.
StudyResults run_study(const TextData& text, const std::string& corpus, std::size_t characters,
                       std::size_t heldout_characters, std::size_t workers,
                       const std::function<void(std::size_t, std::size_t)>& progress = {});

// "attnlab.tradeoffs/1" JSON, and back (std::runtime_error naming the key if it is not one).
std::string study_results_json(const StudyResults& r);
StudyResults parse_study_results(std::string_view json);
// The bundled results (data/tradeoffs/results.json).
StudyResults bundled_study_results();

}  // namespace attn::train
