#pragma once
// Every tensor of a finished Trace in numpy's own .npz format: a zip archive (stored, not
// compressed) of one NAME.npy per tensor, in the trace's tensor order; numpy.load reads it with
// nothing else installed. Each .npy is format 1.0, '<f8' (little-endian double, the trace's own
// numbers, -inf of a masked score included), C order, its shape the tensor's. ZIP64 records are
// added only where an offset passes 4 GiB (a single tensor is at most 1 GiB).
#include <cstdint>
#include <cstdio>
#include <string>

#include "trace.h"

namespace attn {

// Streams the archive to `out`; false when a write failed. `bytes`, if given, receives its length.
bool write_trace_npz(const Trace& trace, std::FILE* out, std::size_t* bytes = nullptr);

// zip's CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of n bytes, continuing from `crc`: by
// carry-less multiplication where the CPU has it (PCLMULQDQ), a large buffer on every thread.
std::uint32_t crc32_ieee(std::uint32_t crc, const void* data, std::size_t n);
// The same by tables alone (slicing-by-8), on one thread: what crc32_ieee does without PCLMULQDQ;
// for the tests, which compare both with a bit-by-bit loop.
std::uint32_t crc32_ieee_table(std::uint32_t crc, const void* data, std::size_t n);

}  // namespace attn
