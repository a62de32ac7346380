#pragma once
// Reading a file the user named (--config, a trace, a checkpoint): a regular file only (not a
// directory, a FIFO or /dev/zero), at most max_bytes, and a read error reported as one.
// Every failure is a UsageError naming the flag and the path (input.err.*).
#include <cstddef>
#include <cstdint>
#include <string>

namespace attn {

std::string read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& flag);
// The checks alone, for a reader that maps the file itself (safetensors): it exists, it is a
// regular file (not a directory or a device); its size in bytes.
std::uint64_t require_regular_file(const std::string& path, const std::string& flag);
// A regular file (or a link to one) is there; no open, so a FIFO never blocks the check.
bool is_regular_file(const std::string& path);
// errno as the short code the catalogs select on ({reason, select, ENOENT {…} ENOSPC {…} other {…}}).
std::string io_reason(int e);

}  // namespace attn
