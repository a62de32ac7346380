// Every flag is either used or refused (issue 53, D18): for every command the parser knows, every
// flag has a row here, either "used by every run of the command" or the runs where it would be
// ignored, each of which must be refused (exit 2, one line, naming the flag). A flag added to any
// command without a row fails the first test; `train` has its own table (train_flag_uses, checked
// in test_hostile3.cpp).
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "commands.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_flags_used {

namespace {

std::set<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::set<std::string> out;
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

// Each command's flags, as the parser has them ("lesson mha", "bench decode", …).
std::map<std::string, std::set<std::string>> parsed_flags() {
  CLI::App app{"attnlab"};
  using namespace attn::cli;
  setup_list(app), setup_lesson(app), setup_models(app), setup_params(app), setup_kv_cache(app), setup_render(app);
  setup_bench(app), setup_flops(app), setup_heads(app), setup_generate(app), setup_book(app);
  std::map<std::string, std::set<std::string>> out;
  auto add = [&](const std::string& name, const CLI::App* sub) {
    auto& flags = out[name];
    for (const CLI::Option* o : sub->get_options())
      if (!o->get_lnames().empty() && o->get_lnames()[0] != "help") flags.insert("--" + o->get_lnames()[0]);
  };
  for (const CLI::App* sub : app.get_subcommands({})) {
    const auto nested = sub->get_subcommands({});
    if (nested.empty()) add(sub->get_name(), sub);
    for (const CLI::App* n : nested) add(sub->get_name() + " " + n->get_name(), n);
  }
  return out;
}

const std::string kLessonCommon = "--seed --precision --threads --lang --color --full --json --html --npz --step";
const std::string kWeights = "--weights --layer --text --token-ids";

// Flags that every run of the command uses.
const std::map<std::string, std::string> kUsedEverywhere = {
    {"list", "--lang"},
    {"models", "--lang --json --html"},
    {"book", "--html --lang"},
    {"heads", "--weights --text --token-ids --top --json --html --lang"},
    {"generate", "--weights --text --token-ids --tokens --json --html --temperature --top-k --lang"},
    {"render", "--html --text --precision --lang"},
    {"params", "--model --config --d-model --lang --weights --json --html"},
    {"kv-cache", "--model --config --d-model --lang --kv-heads --latent-dim --rope-dim --seq-len --batch --dtype --tp --compare --memory --json --html"},
    {"flops", "--model --config --d-model --lang --kv-heads --seq-len --context --memory --json --html"},
    {"bench memory", "--size-mib --min-time --threads --json --html --lang"},
    {"bench decode", "--model --config --seq-len --batch --dtype --kernel --max-cache-mib --rounds --min-time --threads --json --html --lang"},
    {"lesson attention", kLessonCommon + " " + kWeights + " --head --tokens --seq-len --d-model --head-dim --causal"},
    {"lesson mha", kLessonCommon + " " + kWeights + " --tokens --seq-len --d-model --heads --causal"},
    {"lesson gqa", kLessonCommon + " " + kWeights + " --tokens --seq-len --d-model --heads --kv-heads --causal"},
    {"lesson mqa", kLessonCommon + " --tokens --seq-len --d-model --heads --causal"},
    {"lesson qkv-roles", kLessonCommon + " --tokens --seq-len --d-model --heads"},
    {"lesson symmetry", kLessonCommon + " --tokens --seq-len --d-model --heads --steps --lr --retrain"},
    {"lesson specialize", kLessonCommon + " --retrain"},
    {"lesson induction", kLessonCommon + " --retrain --steps --ablate"},
    {"lesson gate", kLessonCommon + " --tokens --seq-len --d-model --heads --causal"},
    {"lesson mla", kLessonCommon + " " + kWeights + " --tokens --seq-len --d-model --heads --head-dim --latent-dim --q-latent-dim --rope-dim --causal"},
    {"lesson transmla", kLessonCommon + " --tokens --seq-len --d-model --heads --kv-heads --head-dim --latent-dim --bytes-per-number --ranks --causal"},
    {"lesson decode", kLessonCommon + " --generate --vocab --d-model --heads --kv-heads --layers --latent-dim --rope-dim --bytes-per-number --bandwidth --peak"},
    {"lesson ffn", kLessonCommon + " " + kWeights + " --x --d-model --d-ff --activation"},
    {"lesson gelu", kLessonCommon + " --x --values"},
    {"lesson swiglu", kLessonCommon + " " + kWeights + " --x --d-model --d-ff --multiple-of"},
    {"lesson tradeoffs", kLessonCommon + " --retrain --variant"},
    {"lesson kv-memory", kLessonCommon + " " + kWeights + " --x --d-ff --top-k --activation"},
    {"lesson block", kLessonCommon + " " + kWeights + " --tokens --seq-len --d-model --heads --d-ff --causal --activation"},
};

// A run where the flag would be ignored: refused, naming the flag. (Flags listed above may have rows
// here too: used by every run the command accepts, refused in the combinations that ignore them.)
struct Refusal {
  std::string command, flag, args, says;
};

std::vector<Refusal> refusals() {
  std::vector<Refusal> r;
  for (const char* cmd : {"params", "kv-cache", "flops"})
    for (const char* flag : {"--layers 2", "--heads 4", "--head-dim 64", "--d-ff 100", "--vocab 1000", "--ffn swiglu"}) {
      const std::string f = std::string(flag).substr(0, std::string(flag).find(' '));
      r.push_back({cmd, f, std::string(cmd) + " --model gpt2 " + flag, f + " describes a model's shape, and --model names a model"});
      r.push_back({cmd, f, std::string(cmd) + " --config " + ATTNLAB_TEST_DIR + "/../data/models/gpt2.json " + flag,
                   f + " describes a model's shape, and --config names a model"});
    }
  r.push_back({"params", "--kv-heads", "params --model gpt2 --kv-heads 2", "--kv-heads describes a model's shape"});
  r.push_back({"params", "--no-bias", "params --model gpt2 --no-bias", "--no-bias describes a model's shape"});
  r.push_back({"params", "--no-bias", "params --d-model 64 --heads 4 --ffn swiglu --no-bias", "--no-bias leaves out GPT-2's biases"});
  r.push_back({"params", "--layers", "params --weights text-en --layers 2", "--layers describes a model's shape, and --weights"});
  for (const char* flag : {"--weights-dtype bf16", "--d-ff 100", "--vocab 1000", "--ffn swiglu"}) {
    const std::string f = std::string(flag).substr(0, std::string(flag).find(' '));
    r.push_back({"kv-cache", f, std::string("kv-cache --d-model 64 --heads 4 ") + flag, f + " enters only the weights' size in the --memory section"});
  }
  r.push_back({"generate", "--seed", "generate --weights text-en --text 'And' --seed 3", "--seed: greedy decoding"});
  r.push_back({"render", "--color", "render " + std::string(ATTNLAB_TEST_DIR) + "/fixtures/no_such.json --html /tmp/x.html --color never",
               "--color colours the terminal text"});
  for (const char* lesson : {"attention", "mha", "gqa", "mla", "ffn", "swiglu", "kv-memory", "block"}) {
    const std::string cmd = std::string("lesson ") + lesson;
    r.push_back({cmd, "--seed", cmd + " --weights text-en --text 'And' --seed 3", "--seed cannot be used with --weights"});
    r.push_back({cmd, "--text", cmd + " --text 'And'", "--text needs --weights"});
  }
  for (const char* lesson : {"attention", "mha", "gqa", "mla", "block"})
    r.push_back({std::string("lesson ") + lesson, "--tokens", std::string("lesson ") + lesson + " --weights text-en --text 'And' --tokens 3",
                 "--tokens cannot be used with --weights"});
  r.push_back({"lesson induction", "--steps", "lesson induction --steps 5", "--steps"});
  r.push_back({"lesson tradeoffs", "--variant", "lesson tradeoffs --variant mha", "--variant"});
  return r;
}

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("flags used or refused: every flag of every command has a row (train has its own table)", "[flags]") {
  const auto parsed = parsed_flags();
  const auto rows = refusals();
  std::size_t flags = 0;
  for (const auto& entry : parsed) {
    const std::string& command = entry.first;  // named, not a structured binding: clang 14 cannot capture one
    const auto& set = entry.second;
    if (command == "train") continue;
    INFO("command: " << command);
    REQUIRE(kUsedEverywhere.count(command) == 1);
    const auto used = words(kUsedEverywhere.at(command));
    for (const std::string& flag : set) {
      INFO("flag: " << flag << " has no row (used everywhere, or the runs that refuse it)");
      const bool refused = std::any_of(rows.begin(), rows.end(), [&](const Refusal& x) { return x.command == command && x.flag == flag; });
      CHECK((used.count(flag) == 1 || refused));
      ++flags;
    }
    for (const std::string& flag : used) {
      INFO("a row for a flag the parser does not have: " << flag);
      CHECK(set.count(flag) == 1);
    }
  }
  CHECK(parsed.size() > 25);
  CHECK(flags > 250);
}

TEST_CASE("flags used or refused: each run that would ignore a flag refuses it, naming it", "[flags]") {
  for (const Refusal& x : refusals()) {
    CliResult r = run_cli(x.args + " --lang en");
    INFO("attnlab " << x.args << "\nstderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(lines_of(r.err) == 1);
    CHECK(r.err.find(x.says) != std::string::npos);
    CHECK(r.err.find(x.flag) != std::string::npos);
  }
}

}  // namespace file_test_flags_used
