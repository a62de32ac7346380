// attnlab: transformer attention and feed-forward layers, with real numbers.
// main only wires the subcommands (src/cli/*_cmd.cpp) and turns errors into exit codes:
//   0 success, 2 bad usage or bad input (one line on stderr), 1 internal error.
#include <cstdio>
#include <new>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "catalog.h"
#include "commands.h"
#include "errors.h"

namespace {

int fail(int code, const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "attnlab: {}\n", message);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "attnlab — multi-head attention, GQA/MQA, MLA and the FFN, step by step with real numbers.\n"
      "Try: attnlab list, attnlab lesson mha, attnlab kv-cache --model deepseek-v3",
      "attnlab"};
  app.set_version_flag("--version", std::string("attnlab ") + ATTNLAB_VERSION);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 success, 2 bad usage or input, 1 internal error.");

  attn::cli::setup_list(app);
  attn::cli::setup_lesson(app);
  attn::cli::setup_models(app);
  attn::cli::setup_params(app);
  attn::cli::setup_kv_cache(app);
  attn::cli::check_option_values(app);

  try {
    if (argc > 1 && argv[1][0] != '-') {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
      if (app.get_subcommands([&](const CLI::App* s) { return s->get_name() == argv[1]; }).empty())
        throw attn::UsageError(fmt::format("unknown command '{}'; the commands are: {}", argv[1], names));
    }
    attn::cli::check_lesson_name(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(2, fmt::format("error: {} (see --help)", e.what()));
  } catch (const attn::UsageError& e) {
    attn::Text text(attn::Lang::En);
    return fail(2, fmt::format("error: {}", text.has(e.msg.key) ? text(e.msg) : e.msg.key));
  } catch (const std::bad_alloc&) {
    return fail(2, "error: out of memory; try smaller sizes (--seq-len, --d-model, --heads)");
  } catch (const std::exception& e) {
    return fail(1, fmt::format("internal error: {} (please report this)", e.what()));
  }
  return 0;
}
