#pragma once
// A run of `attnlab train`, read back from the JSON trace its --json wrote. The lessons that show
// training (specialize, symmetry) ship such traces in data/ (compiled in), so they start at once;
// --retrain trains the same configuration live, and a test checks that it gives the same numbers.
// Only what the trace records comes back: the model's weights are not in it (model holds the
// config and layout, params empty).
#include <string_view>

#include "trainer.h"

namespace attn::train {

struct RecordedRun {
  TrainConfig config;
  TrainResult result;  // loss_curve, evals (with scores), final_attention, pattern_tokens, clone_gap
};

// Parse a trace of `attnlab train --json`; std::runtime_error naming the key if it is not one.
RecordedRun parse_train_trace(std::string_view json);
// The trace bundled as data/<path>; std::logic_error if no such file was bundled.
RecordedRun bundled_train_run(std::string_view path);

}  // namespace attn::train
