// attnlab lesson NAME [options]: run a lesson, print it (or write its JSON trace).
// Each lesson is a sub-subcommand with the common options plus the flags its LessonInfo lists,
// so `attnlab lesson mla --help` shows exactly what mla accepts.
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "errors.h"
#include "lessons/lesson.h"
#include "render/json_writer.h"
#include "render/terminal.h"

namespace attn::cli {

namespace {

struct LessonOptions {
  LessonConfig config;
  std::string lang;             // --lang (empty: from the environment)
  std::string color = "auto";   // --color auto|always|never
  int precision = 4;            // --precision
  bool full = false;            // --full
  std::optional<std::string> json;  // --json FILE|-
};

// Colour only for a terminal, unless asked: --color always/never win over NO_COLOR and isatty.
bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (mode != "auto") throw UsageError(fmt::format("--color: '{}' is not one of auto, always, never", mode));
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  if (no_color != nullptr && *no_color != '\0') return false;
  if (term != nullptr && std::string(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

void bind_flag(CLI::App* sub, const std::string& flag, LessonConfig& c) {
  if (flag == "--tokens") sub->add_option("--tokens", c.tokens, "Tokens separated by spaces, e.g. \"小明 昨天 在 北京\" (sets seq_len)");
  else if (flag == "--seq-len") sub->add_option("--seq-len", c.seq_len, "Number of tokens (placeholders t1 … tN past the chapter's sentence)");
  else if (flag == "--d-model") sub->add_option("--d-model", c.d_model, "Model width d_model");
  else if (flag == "--heads") sub->add_option("--heads", c.heads, "Query heads h");
  else if (flag == "--kv-heads") sub->add_option("--kv-heads", c.kv_heads, "Key/value heads g (must divide --heads)");
  else if (flag == "--head-dim") sub->add_option("--head-dim", c.head_dim, "Width of each head d_h");
  else if (flag == "--d-ff") sub->add_option("--d-ff", c.d_ff, "FFN hidden width d_ff");
  else if (flag == "--latent-dim") sub->add_option("--latent-dim", c.latent_dim, "MLA key/value latent width d_c");
  else if (flag == "--q-latent-dim") sub->add_option("--q-latent-dim", c.q_latent_dim, "MLA query latent width d_c' (off by default)");
  else if (flag == "--rope-dim") sub->add_option("--rope-dim", c.rope_dim, "MLA decoupled RoPE width d_R (0: off; even)");
  else if (flag == "--multiple-of") sub->add_option("--multiple-of", c.multiple_of, "Round the SwiGLU hidden size up to a multiple of this");
  else if (flag == "--steps") sub->add_option("--steps", c.steps, "Gradient-descent steps");
  else if (flag == "--top-k") sub->add_option("--top-k", c.top_k, "How many keys to list");
  else if (flag == "--lr") sub->add_option("--lr", c.lr, "Learning rate");
  else if (flag == "--x") sub->add_option("--x", c.x, "Input vector, e.g. \"0.47 0.50 0.59 0.29\"");
  else if (flag == "--values") sub->add_option("--values", c.values, "Values to evaluate, e.g. \"-2 -1 0 1 2\"");
  else if (flag == "--activation") sub->add_option("--activation", c.activation, "Activation: gelu, gelu-tanh, relu or silu");
  else if (flag == "--causal") sub->add_flag("--causal", c.causal, "Causal mask: token i attends to tokens 1 … i only");
  else throw std::logic_error("lesson flag " + flag + " has no binding in lesson_cmd.cpp");
}

// For --help: the sizes a run without flags uses and the tensors its trace holds, read off a
// default run (a few milliseconds; only when help is asked for).
std::string defaults_footer(const LessonInfo& info) {
  LessonConfig c;
  c.lang = Lang::En;
  Trace t = info.run(c);
  std::string defaults, tensors;
  for (const Value& v : t.config)
    if (v.name != "tokens" && v.name != "seed")
      defaults += fmt::format("{}{}={}", defaults.empty() ? "" : "  ", v.name, format_scalar(v.value, 4));
  for (const std::string& name : t.tensor_order) tensors += (tensors.empty() ? "" : ", ") + name;
  return fmt::format("Defaults: {}\nTrace tensors (--json): {}\n", defaults, tensors);
}

void run_lesson(const LessonInfo& info, LessonOptions o) {
  o.config.lang = o.lang.empty() ? lang_from_env() : parse_lang(o.lang);
  if (o.precision < 0 || o.precision > 15)
    throw UsageError(fmt::format("--precision must be between 0 and 15 (got {})", o.precision));
  if (o.config.seed < 0) throw UsageError(fmt::format("--seed must be 0 or more (got {})", o.config.seed));
  bool color = use_color(o.color);  // validated even when writing JSON
  Trace trace = info.run(o.config);
  if (o.json) {
    write_output_with("--json", *o.json, [&](std::FILE* f) { return write_trace_json(trace, f); });
    return;
  }
  emit(render_trace(trace, RenderOptions{o.precision, color, o.full}));
}

}  // namespace

void setup_lesson(CLI::App& root) {
  CLI::App* lesson = root.add_subcommand("lesson", "Run a lesson: a narrated walk-through with real numbers");
  lesson->require_subcommand(1);
  lesson->footer("Lessons: attnlab list. Each lesson has its own --help.");
  for (const LessonInfo* info : all_lessons()) {
    auto opts = std::make_shared<LessonOptions>();
    CLI::App* sub = lesson->add_subcommand(info->name, info->summary_en);
    sub->add_option("--seed", opts->config.seed, "Random seed for the inputs and weights (default 42)");
    for (const std::string& flag : info->flags) bind_flag(sub, flag, opts->config);
    sub->add_option("--precision", opts->precision, "Decimals printed (default 4)");
    sub->add_option("--lang", opts->lang, "Language: en or zh (default: from LC_ALL / LANG)");
    sub->add_option("--color", opts->color, "Colour: auto, always or never (NO_COLOR is honoured)");
    sub->add_flag("--full", opts->full, "Print every number, never summarize large tensors");
    sub->add_option("--json", opts->json, "Write the JSON trace (attnlab.trace/1) to FILE, or - for stdout");
    sub->callback([info, opts] { run_lesson(*info, *opts); });
    sub->footer([info] { return defaults_footer(*info); });
  }
}

void check_lesson_name(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "lesson") return;
  std::string names;
  for (const LessonInfo* l : all_lessons()) names += (names.empty() ? "" : ", ") + std::string(l->name);
  if (argc == 2) throw UsageError("lesson: name a lesson: " + names);
  std::string name = argv[2];
  if (name.empty() || name[0] == '-' || find_lesson(name) != nullptr) return;
  throw UsageError(fmt::format("lesson: unknown lesson '{}'; the lessons are: {}", name, names));
}

}  // namespace attn::cli
