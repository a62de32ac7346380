#pragma once
// A lesson's options: a plain struct of its own, and a bind function that says which flag fills
// which field. The lesson never sees CLI11: the CLI implements OptionBinder with it
// (src/cli/lesson_cmd.cpp), the tests with a list of "--flag value" words (tests/lesson_args.h).
// This is CLI11's subcommands-in-files pattern with the library kept out of the lessons.
//
//   struct MhaOptions : RunContext {           // lang and seed, set for every run
//     std::optional<std::string> tokens;       // --tokens
//     std::optional<std::int64_t> d_model;     // --d-model
//     bool causal = false;                     // --causal
//   };
//   void bind(OptionBinder& b, MhaOptions& o) {
//     b.text("--tokens", o.tokens);
//     b.integer("--d-model", o.d_model);
//     b.toggle("--causal", o.causal);
//   }
//   Trace run(const MhaOptions& c) { … }
//   extern const LessonInfo mha_lesson = lesson_info<MhaOptions>("mha", bind, run);
//
// A flag's help text is the catalog key cli.opt.NAME (NAME = the flag without "--").
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "text.h"
#include "trace.h"

namespace attn {

class OptionBinder {
 public:
  virtual ~OptionBinder() = default;
  virtual void integer(const char* flag, std::optional<std::int64_t>& value) = 0;  // a whole number
  virtual void real(const char* flag, std::optional<double>& value) = 0;
  virtual void text(const char* flag, std::optional<std::string>& value) = 0;
  virtual void toggle(const char* flag, bool& value) = 0;  // present: true
};

// What every lesson run has, whatever its options: the language and the seed (--lang, --seed).
struct RunContext {
  Lang lang = Lang::En;
  std::int64_t seed = 42;
};

// One run of a lesson: fresh options with the lesson's defaults, bound, then run.
class LessonRun {
 public:
  virtual ~LessonRun() = default;
  virtual void bind(OptionBinder& b) = 0;
  virtual Trace run(const RunContext& ctx) const = 0;
};

template <class Options>
class TypedLessonRun : public LessonRun {
 public:
  using BindFn = void (*)(OptionBinder&, Options&);
  using RunFn = Trace (*)(const Options&);
  TypedLessonRun(BindFn bind, RunFn run) : bind_(bind), run_(run) {}
  void bind(OptionBinder& b) override { bind_(b, options_); }
  Trace run(const RunContext& ctx) const override {
    Options o = options_;
    static_cast<RunContext&>(o) = ctx;
    return run_(o);
  }

 private:
  Options options_{};
  BindFn bind_;
  RunFn run_;
};

}  // namespace attn
