#pragma once
// One subcommand, one file (src/cli/<name>_cmd.cpp): an Options struct, a setup function
// that binds the options to a CLI11 subcommand, and a run function. main only wires them.
//
// A run function computes everything first and prints last (see emit()), so a bad input
// found half-way never leaves half a report on stdout.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "catalog.h"

namespace attn::cli {

// The run's language, set by main before any command is set up (so every --help is in it).
void set_run_lang(Lang lang);
const Lang& run_lang();
const Text& text();  // the catalogs in the run's language
// --lang on a command, for its --help (main takes --lang out of the arguments before parsing,
// wherever it stands, so the option only documents it).
void add_lang_option(CLI::App* app);
// Before any subcommand is added: --help columns padded by display width (Chinese is 2 wide).
void use_wide_formatter(CLI::App& app);
// After setup: CLI11's own words (group names, "Usage", type names) in the run's language.
void localize_help(CLI::App& app);

void setup_list(CLI::App& root);      // attnlab list
void setup_lesson(CLI::App& root);    // attnlab lesson NAME [options]
void setup_models(CLI::App& root);    // attnlab models
void setup_params(CLI::App& root);    // attnlab params
void setup_kv_cache(CLI::App& root);  // attnlab kv-cache
void setup_render(CLI::App& root);    // attnlab render TRACE.json (--html FILE | --text)
void setup_bench(CLI::App& root);     // attnlab bench memory | decode
void setup_flops(CLI::App& root);     // attnlab flops
void setup_heads(CLI::App& root);     // attnlab heads (a real checkpoint's head roles)
void setup_generate(CLI::App& root);  // attnlab generate (greedy decoding with a KV cache)
void setup_train(CLI::App& root);     // attnlab train

// Before parsing: an unknown or missing lesson name gets a message listing the lessons
// (CLI11's own would only say the argument was not expected).
void check_lesson_name(const std::vector<std::string>& args);
// After setup: every option that takes a value refuses "" and, for integers, anything that is
// not a whole number in its type's range (no wrapped "-1", no saturated 2^64).
void check_option_values(CLI::App& app);

// Write a finished report to stdout in one piece.
// A failed write or flush is a UsageError (input.err.stdout_write), never a silent exit 0.
void emit(const std::string& text);
// At the end of a run: flush stdout and report anything written to it that failed.
void finish_stdout();
// Before anything is computed, for two outputs of one run (--json and --html): both "-" (both
// documents on stdout) or one file (the same path, or two names of one existing file: the second
// would replace the first) is a UsageError naming both flags. /dev/null twice is allowed.
void require_distinct_outputs(const std::string& a_flag, const std::string& a, const std::string& b_flag, const std::string& b);
// Write text to FILE, or to stdout when FILE is "-"; a file that cannot be written is a
// UsageError naming `flag` and the path.
void write_output(const std::string& flag, const std::string& path, const std::string& text);
// An HTML page to FILE (or stdout for "-"): written to a temporary file beside it and renamed,
// so a failure never leaves half a page (src/cli/render_cmd.cpp).
void write_page(const std::string& flag, const std::string& path, const std::string& page);
// The same, streamed: write(FILE*) writes the bytes and returns false if a write failed.
void write_output_with(const std::string& flag, const std::string& path, const std::function<bool(std::FILE*)>& write);

}  // namespace attn::cli
