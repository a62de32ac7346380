#pragma once
// Errors are exceptions carrying a message that says what to change; main catches them once.
//   UsageError  -> bad flag, bad file, bad combination: one line on stderr, exit code 2.
//                  It carries a catalog key and its values (the CLI prints it in the run's language).
//   WriteError  -> writing the output failed (stdout, --json/--html FILE, train --save: a full disk,
//                  a closed pipe): one line on stderr, exit code 1 -- the input was fine, the run failed.
//   anything else (std::logic_error from a broken invariant) -> internal error, exit code 1.
#include <stdexcept>
#include <string>

#include "message.h"

namespace attn {

struct UsageError : std::runtime_error {
  Msg msg;
  explicit UsageError(std::string key, Args args = {})
      : std::runtime_error(key), msg{std::move(key), std::move(args)} {}
};

struct WriteError : UsageError {
  using UsageError::UsageError;
};

}  // namespace attn
