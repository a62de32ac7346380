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

// At most 32 MiB: what render reads and renders within about a minute whatever the trace holds,
// even on a busy machine. The costliest traces per byte are a table of one-number rows and one
// tensor of zeros, whose 4 and 2 bytes a number become a JSON value of 16 bytes and more: at 32 MiB
// they take 5-6 s and 1.55 GB, and 2.4 s and 0.83 GB, on the 2-core machine (at 64 MiB, 17-52 s and
// 3.1 GB for the rows); a lesson's own trace (mha --seq-len 600, 31 MB) 1 s and 113 MB.
// docs/ARCHITECTURE.md ("render reads traces of at most 32 MiB") has the measurements.
constexpr std::uintmax_t kMaxTraceBytes = std::uintmax_t{32} << 20;
constexpr std::size_t kMaxTraceNumbers = std::size_t{1} << 27;  // 134 million doubles (1 GiB)

// Reads the file at `path` (a regular file, at most kMaxTraceBytes). The trace's ui words are
// left empty: the caller fills them from the catalogs of the trace's language.
Trace read_trace_file(const std::string& path);
// The same from text already in memory; `path` only names it in errors.
Trace read_trace_json(const std::string& text, const std::string& path);

}  // namespace attn
