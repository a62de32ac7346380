#pragma once
// The JSON writer: a finished Trace as the "attnlab.trace/2" document (see docs/ARCHITECTURE.md).
// Tensors are {"shape": [...], "axes": [a name per axis], "meaning": "…", "data": [flat, row-major]}; values JSON cannot hold (-inf of a
// masked score) are written as null. Numbers are the shortest form that reads back as the same
// double, laid out as fmt's "{}" lays them out (1, 0.25, 1e-05, 1e+16).
#include <cstdio>
#include <string>

#include "trace.h"

namespace attn {

inline constexpr const char* kTraceSchema = "attnlab.trace/2";  // what a lesson's --json writes

// The whole document as a string (for tests and small traces).
std::string trace_to_json(const Trace& trace);

// The same bytes streamed to `out` through a reused buffer, tensor numbers formatted on
// thread_count() threads; never holds the document in memory. Flushes `out`; returns false
// when any write failed (e.g. the disk is full), true otherwise. `bytes`, if given, receives the
// document's length (what was written, also to a device such as /dev/null that keeps no size).
bool write_trace_json(const Trace& trace, std::FILE* out, std::size_t* bytes = nullptr);

}  // namespace attn
