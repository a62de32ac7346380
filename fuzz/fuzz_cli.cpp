// libFuzzer: the whole command line. The input is argv: words separated by NUL bytes, given to
// the real entry point (src/cli/main.cpp, compiled in here with its main renamed), stdout thrown
// away. Exit 0 and exit 2 (a usage error) are fine answers; exit 1 (an internal error) or a
// crash is a finding, so exit 1 aborts. The work caps are lowered so every run takes
// milliseconds. Files a run would write (--json/--html FILE, train --save DIR) go to one scratch
// folder, and `bench` (a timing tool, seconds by design) is left to fuzz/cli_fuzz.py.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "embedded_data.h"
#include "errors.h"
#include "input_file.h"
#include "lesson.h"
#include "printable.h"

#define main attnlab_main
#include "../src/cli/main.cpp"
#undef main

namespace {
std::string g_scratch;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) ::dup2(null, STDOUT_FILENO);
  char dir[] = "/tmp/attnlab_fuzz_cli_XXXXXX";
  if (::mkdtemp(dir) != nullptr) g_scratch = dir;
  attn::set_work_caps_for_fuzzing(2e6, 2e5);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return -1;
  std::vector<std::string> words{"attnlab", ""};
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) words.emplace_back();
    else words.back() += static_cast<char>(data[i]);
  }
  if (words.size() > 40) return -1;
  if (words[1] == "bench") return -1;
  for (std::size_t i = 2; i < words.size(); ++i) {  // what would be written goes to the scratch folder
    const std::string& flag = words[i - 1];
    if ((flag == "--json" || flag == "--html") && words[i] != "-") words[i] = g_scratch + "/out";
    if (flag == "--save") words[i] = g_scratch + "/save";
    for (const char* f : {"--json=", "--html=", "--save="})
      if (words[i].rfind(f, 0) == 0 && words[i] != std::string(f) + "-") words[i] = std::string(f) + g_scratch + "/out";
  }
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int code = attnlab_main(static_cast<int>(words.size()), argv.data());
  std::clearerr(stdout);
  if (code != 0 && code != 2) std::abort();  // exit 1: an internal error for some input
  return 0;
}
