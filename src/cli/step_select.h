#pragma once
// --step ID[,ID…]: keep only some steps of a finished lesson trace (the lesson ran in full, so
// every number is the same as in a whole run; only what is shown changes).
#include <string>

#include "catalog.h"
#include "trace.h"

namespace attn::cli {

// "1 inputs, 2 split_heads, …": the steps of a trace, numbered as its headings number them; ids
// stay ASCII (they are what --step takes), and a language other than English shows each step's
// title beside its id (cli.lesson.step_item), joined as the language joins a list (step_join).
std::string step_list(const Trace& trace, const Text& text);

// Keep the steps `spec` names (ids or 1-based numbers, comma-separated, in any order; shown in
// the lesson's order) and the tensors they show; record which in trace.steps_all and the header
// line (ui "steps_shown"). An empty item or an unknown id/number is a UsageError naming --step
// and listing the valid steps.
void select_steps(Trace& trace, const std::string& spec, const Text& text);

}  // namespace attn::cli
