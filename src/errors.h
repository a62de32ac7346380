#pragma once
// Errors are exceptions carrying a message that says what to change; main catches them once.
//   UsageError  -> bad flag, bad file, bad combination: one line on stderr, exit code 2.
//   anything else (std::logic_error from a broken invariant) -> internal error, exit code 1.
#include <stdexcept>
#include <string>

namespace attn {

struct UsageError : std::runtime_error {
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace attn
