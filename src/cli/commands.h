#pragma once
// One subcommand, one file (src/cli/<name>_cmd.cpp): an Options struct, a setup function
// that binds the options to a CLI11 subcommand, and a run function. main only wires them.
//
// A run function computes everything first and prints last (see emit()), so a bad input
// found half-way never leaves half a report on stdout.
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "catalog.h"
#include "html.h"

namespace attn::cli {

// The run's language, set by main before any command is set up (so every --help is in it).
void set_run_lang(Lang lang);
const Lang& run_lang();
const Text& text();  // the catalogs in the run's language
// A head as every command prints it: counted from 1, the tensor names' index (from 0) beside it,
// "layer 1 head 4 (L0H3)". Takes the tensor indices.
std::string head_ref(std::size_t layer_index, std::size_t head_index);
// Items joined as the run's language joins a list (cli.lesson.step_join: a comma in English).
std::string join_list(const std::vector<std::string>& items);
// --color auto|always|never, the same on every command that prints to a terminal: always/never win
// over NO_COLOR and isatty; auto is colour on a terminal. Another value is a UsageError (cli.err.color).
bool use_color(const std::string& mode);
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
// train's runs: the study, one GPT-2 on a synthetic task or on text, one variant (--attention …).
// Each flag is used by some of them; a flag given to a run that does not use it is refused
// (exit 2), never ignored. The table is every flag of train (a test checks it against the parser).
enum TrainMode : unsigned { kStudy = 1, kSynthetic = 2, kTextRun = 4, kVariant = 8, kAnyRun = 2 | 4 | 8, kAnyMode = 1 | 2 | 4 | 8 };
struct FlagUse {
  const char* flag;
  unsigned modes;  // TrainMode bits
};
const std::vector<FlagUse>& train_flag_uses();
void setup_book(CLI::App& root);      // attnlab book --html FILE (the lessons as one live page)
void setup_course(CLI::App& root);    // attnlab course (the path, progress; --reset)
void setup_exercise(CLI::App& root);  // attnlab exercise [LESSON [N]] (pose, --answer, --solution)
// attnlab with no arguments: what the tool is and the three commands to start with.
std::string front_door();
// attnlab train --study NAME: trains the study, `workers` runs at once (study_cmd.cpp).
void run_study_command(const std::string& study, const std::string& json, std::size_t workers, bool quiet);

// A lesson flag's help in t's language: the lesson's own LESSON.opt.NAME when its catalog has one
// (a flag whose meaning differs there), else the shared cli.opt.NAME (NAME: the flag without "--",
// '_' for '-'). `attnlab lesson NAME --help` and the book say the same.
std::string option_help(const Text& t, const std::string& lesson_catalog, const std::string& flag);

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
// The run's files (src/cli/run_files.cpp). Before any work a command declares what it reads and
// what it writes; each declaration checks at once, as a UsageError naming the flag (exit 2):
//   an output's folder exists and takes a new file (its temporary file is created there now), the
//   output is not a folder, not a file the run reads (nor one held in a folder it reads), not inside
//   the --save folder, not another output of the run (two "-" or two names of one file).
// Files are written to their temporary files and renamed over their targets by commit_outputs(),
// all at the end and only when every one is complete; stdout ("-") and devices are written then,
// after the files. A symlinked output is written through (the file it names is replaced, the link
// stays); a replaced file keeps its permissions. discard_outputs() removes every temporary file
// (main calls it on any error, a signal handler on SIGINT/SIGTERM/SIGHUP).
void declare_input(const std::string& flag, const std::string& path);
void declare_input_folder(const std::string& flag, const std::string& folder);
void declare_output(const std::string& flag, const std::string& path);
// train --save DIR: a new folder, an empty one, or (force) a non-empty one replaced as a whole; the
// checkpoint is written into a temporary folder beside it and renamed into place at commit.
void declare_save_folder(const std::string& flag, const std::string& path, bool force);
void write_save_file(const std::string& name, const std::string& bytes);
// Both "-", or one file under two names, is a UsageError naming both flags (/dev/null twice is allowed).
void require_distinct_outputs(const std::string& a_flag, const std::string& a, const std::string& b_flag, const std::string& b);
// Text to a declared output (declared now if it was not); "-" is stdout at commit.
void write_output(const std::string& flag, const std::string& path, const std::string& text);
void write_page(const std::string& flag, const std::string& path, const std::string& page);
// The same, streamed: write(FILE*) writes the bytes and returns false if a write failed. For stdout
// or a device it runs at commit, so what it reads must live until then.
void write_output_with(const std::string& flag, const std::string& path, const std::function<bool(std::FILE*)>& write);
void commit_outputs();
void discard_outputs();

// One convention for output (report_output.cpp), in every command that prints results:
// --json FILE|- (one schema per command, named by its "schema" key), --html FILE|- and, where the
// run records tensors, --npz FILE|-. With none of them the report prints on stdout; with any of
// them stdout holds only what "-" names. Each file written is named on stderr after commit
// ("wrote FILE: …"). A bare --json (the old flag) is refused: cli.err.output_value says "--json -".
struct ReportOutputs {
  std::optional<std::string> json, html, npz;
  bool any() const { return json || html || npz; }
};
void add_report_outputs(CLI::App* sub, ReportOutputs& o, const std::string& json_help, bool npz = false);
void declare_report_outputs(const ReportOutputs& o);  // before any work
void write_json_doc(const std::string& path, const std::string& schema, const std::string& doc);
void write_html_doc(const std::string& path, const std::string& page);
void write_html_report(const std::string& path, const std::string& title, const std::string& report,
                       const std::vector<HtmlBarChart>& charts = {});
// A "wrote FILE: …" line for stderr, printed after commit (nothing for "-").
void note_written(const std::string& path, const std::string& line);
// With output files and none of them "-", stdout gets nothing: a last "wrote" line (key, given the
// --json path as {json} and {has_json}) says the text was not printed and how to read it too.
void note_not_printed(const ReportOutputs& o, const std::string& key);
// Commit, print the report on stdout when no output flag was given, then the "wrote" lines.
void finish_report(const ReportOutputs& o, const std::string& report);
void print_written();
// Forget the "wrote" lines of a run that failed (the book's core runs many command lines in one
// process: a failed run must not leave its lines to the next).
void forget_written();

}  // namespace attn::cli
