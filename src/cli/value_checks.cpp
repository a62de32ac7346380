// One rule for every option that takes a value, applied before CLI11 converts it: an empty
// value is an error, and an integer must be a plain integer inside its type's range. (CLI11
// alone would wrap "-1" into 18446744073709551615 for an unsigned size, saturate
// 2^64 to 2^63-1 for a signed one, and read "" as "not given".) A bad value is a UsageError
// naming the flag, worded by the catalog (cli.err.*).
#include <cerrno>
#include <cstdlib>

#include "commands.h"
#include "errors.h"

namespace attn::cli {

namespace {

// Options with a narrower rule than their type's range, the same on every command that has them:
// a value past it (2147483648 for an int, 2^64 for an int64) says the real range, as the command's
// own check would, rather than "not a valid value" or "at most 9223372036854775807". The commands
// keep their own checks of the same ranges (lesson_cmd.cpp, render_cmd.cpp, bench_cmd.cpp,
// train_cmd.cpp).
struct Bounded {
  const char* flag;
  long long lo, hi;
  const char* key;  // {flag} must be between lo and hi (got {value})
};
constexpr Bounded kBounded[] = {{"--precision", 0, 15, "cli.err.precision"}, {"--threads", 1, 1024, "cli.err.threads"}};

void check_value(const std::string& flag, const std::string& type, const std::string& v) {
  if (v.empty()) throw UsageError("cli.err.empty_value", {{"flag", flag}});
  bool is_int = type == "INT", is_uint = type == "UINT";
  if (!is_int && !is_uint) return;
  std::size_t digits = v.find_first_not_of("+-") == 1 ? 1 : 0;
  if (v.size() == digits || v.find_first_not_of("0123456789", digits) != std::string::npos)
    throw UsageError("cli.err.not_whole", {{"flag", flag}, {"value", v}});
  for (const Bounded& b : kBounded) {
    if (flag != b.flag) continue;
    errno = 0;
    long long x = std::strtoll(v.c_str(), nullptr, 10);
    if (errno == ERANGE || x < b.lo || x > b.hi) throw UsageError(b.key, {{"flag", flag}, {"value", v}});
    return;
  }
  if (is_uint && v[0] == '-') throw UsageError("cli.err.negative", {{"flag", flag}, {"value", v}});
  errno = 0;
  char* end = nullptr;
  if (is_uint) std::strtoull(v.c_str(), &end, 10);
  else std::strtoll(v.c_str(), &end, 10);
  if (errno == ERANGE)
    throw UsageError("cli.err.out_of_range",
                     {{"flag", flag}, {"value", v}, {"max", is_uint ? "18446744073709551615" : "9223372036854775807"}});
}

void guard(CLI::App* app) {
  for (CLI::Option* opt : app->get_options()) {
    if (opt->get_type_size() == 0 || opt->get_name() == "--help") continue;  // flags take no value
    std::string type = opt->get_type_name(), flag = opt->get_name();
    opt->check(CLI::Validator(
        [flag, type](std::string& v) {
          check_value(flag, type, v);
          return std::string();
        },
        "", "value"));
  }
  for (CLI::App* sub : app->get_subcommands({})) guard(sub);
}

}  // namespace

void check_option_values(CLI::App& app) { guard(&app); }

}  // namespace attn::cli
