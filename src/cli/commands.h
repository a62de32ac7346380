#pragma once
// One subcommand, one file (src/cli/<name>_cmd.cpp): an Options struct, a setup function
// that binds the options to a CLI11 subcommand, and a run function. main only wires them.
//
// A run function computes everything first and prints last (see emit()), so a bad input
// found half-way never leaves half a report on stdout.
#include <cstdio>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace attn::cli {

void setup_list(CLI::App& root);      // attnlab list
void setup_lesson(CLI::App& root);    // attnlab lesson NAME [options]
void setup_models(CLI::App& root);    // attnlab models
void setup_params(CLI::App& root);    // attnlab params
void setup_kv_cache(CLI::App& root);  // attnlab kv-cache

// Before parsing: an unknown or missing lesson name gets a message listing the lessons
// (CLI11's own would only say the argument was not expected).
void check_lesson_name(int argc, char** argv);
// After setup: every option that takes a value refuses "" and, for integers, anything that is
// not a whole number in its type's range (no wrapped "-1", no saturated 2^64).
void check_option_values(CLI::App& app);

// Write a finished report to stdout in one piece.
void emit(const std::string& text);
// Write text to FILE, or to stdout when FILE is "-"; a file that cannot be written is a
// UsageError naming `flag` and the path.
void write_output(const std::string& flag, const std::string& path, const std::string& text);
// The same, streamed: write(FILE*) writes the bytes and returns false if a write failed.
void write_output_with(const std::string& flag, const std::string& path, const std::function<bool(std::FILE*)>& write);

}  // namespace attn::cli
