#pragma once
// The JSON reader: an "attnlab.trace/1" document (json_writer.h) back into a Trace, so a trace
// saved earlier, or on another machine, can be rendered again (attnlab render). The input is
// checked, not trusted: every field has the type it must have, every tensor's data has as many
// numbers as its shape says, every name a step shows is a tensor of the trace, and no string or key
// holds a control character (C0 but \n and \t, DEL, C1: render --text prints a trace's words as they
// are). Anything else is a UsageError naming the file and the field (exit 2).
#include <cstdint>
#include <string>

#include "trace.h"

namespace attn {

constexpr std::uintmax_t kMaxTraceBytes = std::uintmax_t{1} << 30;  // 1 GiB
constexpr std::size_t kMaxTraceNumbers = std::size_t{1} << 27;      // 134 million doubles (1 GiB)

// Reads the file at `path` (a regular file, at most kMaxTraceBytes). The trace's ui words are
// left empty: the caller fills them from the catalogs of the trace's language.
Trace read_trace_file(const std::string& path);
// The same from text already in memory; `path` only names it in errors.
Trace read_trace_json(const std::string& text, const std::string& path);

}  // namespace attn
