#pragma once
// The JSON writer: a finished Trace as the "attnlab.trace/1" document (see docs/ARCHITECTURE.md).
// Tensors are {"shape": [...], "data": [flat, row-major]}; values JSON cannot hold (-inf of a
// masked score) are written as null.
#include <string>

#include "trace.h"

namespace attn {

std::string trace_to_json(const Trace& trace);

}  // namespace attn
