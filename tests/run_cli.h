#pragma once
// Runs the built attnlab binary as a user would, capturing stdout, stderr and the exit code.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// args is appended to the binary's path as is (quote it as a shell would); env is an
// optional prefix such as "LANG=zh_CN.UTF-8 ".
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  static int counter = 0;
  std::string base = std::string("/tmp/attnlab_test_") + std::to_string(::getpid()) + "_" +
                     std::to_string(counter++);
  std::string cmd = env + "'" + ATTNLAB_BIN + "' " + args + " >" + base + ".out 2>" + base + ".err";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}
