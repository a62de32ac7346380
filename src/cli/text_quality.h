#pragma once
// A text model's quality, computed when it is shown (`attnlab params --weights NAME` and generate's
// header): its held-out bits per character beside the unigram, bigram and trigram models of the same
// training text scored on the same held-out slice (train/text_task.h, ngram_loss), and the share of
// held-out characters that its tokenizer reads as <unk>.
//
// The slice: the last 5% of the corpus's characters, as `attnlab train --task text` cut it (config.json
// "attnlab_corpus"); the model's own figure is the one its training run measured on that slice
// (training.json "text"."heldout_bpc": every whole window; a test recomputes it from the weights).
#include <optional>
#include <string>

namespace attn::cli {

struct TextQuality {
  std::string corpus;                   // a bundled corpus name (en, zh, zh-mix)
  std::size_t heldout_characters = 0;   // characters in the held-out slice
  std::size_t heldout_unk = 0;          // of them, read as <unk> by the model's tokenizer
  std::size_t vocab = 0;                // the tokenizer's tokens, <unk> included
  double model_bpc = 0;                 // the model's held-out bits per character (its training run's)
  double unigram_bpc = 0, bigram_bpc = 0, trigram_bpc = 0;  // add-one; Witten-Bell; Witten-Bell
};

// The figures for the checkpoint in `folder`, when it is a character-level text model trained on a
// bundled corpus (config.json "attnlab_corpus" and training.json "text"); nothing otherwise.
std::optional<TextQuality> text_quality(const std::string& folder);

// The figures in words (catalog checkpoint.quality.*), each line starting with `indent`.
std::string text_quality_text(const TextQuality& q, const std::string& indent);

}  // namespace attn::cli
