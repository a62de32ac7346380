// Placeholder: replaced by the issue that builds this command.
#include "cli/commands.h"

namespace attn::cli {

void setup_params(CLI::App& root) { (void)root; }

}  // namespace attn::cli
