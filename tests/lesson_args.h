#pragma once
// Run a lesson in the test process as the CLI would: its own options, bound by its own bind
// function, filled from "--flag value" words. TestConfig names the flags the tests set; a flag
// the lesson does not bind is a test error (so a test cannot set an option that does nothing).
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lesson.h"

namespace attn {

// Binds flags to the lesson's fields, then sets them from words.
class ArgsBinder : public OptionBinder {
 public:
  void integer(const char* flag, std::optional<std::int64_t>& v) override {
    set_[flag] = [&v](const std::string& s) { v = std::stoll(s); };
  }
  void real(const char* flag, std::optional<double>& v) override {
    set_[flag] = [&v](const std::string& s) { v = std::stod(s); };
  }
  void text(const char* flag, std::optional<std::string>& v) override {
    set_[flag] = [&v](const std::string& s) { v = s; };
  }
  void toggle(const char* flag, bool& v) override {
    set_[flag] = [&v](const std::string& s) { v = s == "true"; };
  }
  void set(const std::string& flag, const std::string& value) {
    auto it = set_.find(flag);
    if (it == set_.end()) throw std::invalid_argument("this lesson has no option " + flag);
    it->second(value);
  }

 private:
  std::map<std::string, std::function<void(const std::string&)>> set_;
};

// The flags tests set (unset: the lesson's default).
struct TestConfig {
  Lang lang = Lang::En;
  std::int64_t seed = 42;
  bool causal = false;
  std::optional<std::string> tokens, x, values, activation, ablate;
  std::optional<std::int64_t> seq_len, d_model, heads, kv_heads, head_dim, d_ff, latent_dim, q_latent_dim, rope_dim,
      multiple_of, steps, top_k;
  std::optional<double> lr;
};

inline Trace run_lesson(const std::string& name, const TestConfig& c = {}) {
  const LessonInfo* info = find_lesson(name);
  if (info == nullptr) throw std::invalid_argument("no lesson " + name);
  std::unique_ptr<LessonRun> run = info->make();
  ArgsBinder b;
  run->bind(b);
  auto opt = [&](const char* flag, const auto& v) {
    if (v) b.set(flag, fmt::format("{}", *v));
  };
  if (c.causal) b.set("--causal", "true");
  opt("--tokens", c.tokens);
  opt("--x", c.x);
  opt("--values", c.values);
  opt("--activation", c.activation);
  opt("--ablate", c.ablate);
  opt("--seq-len", c.seq_len);
  opt("--d-model", c.d_model);
  opt("--heads", c.heads);
  opt("--kv-heads", c.kv_heads);
  opt("--head-dim", c.head_dim);
  opt("--d-ff", c.d_ff);
  opt("--latent-dim", c.latent_dim);
  opt("--q-latent-dim", c.q_latent_dim);
  opt("--rope-dim", c.rope_dim);
  opt("--multiple-of", c.multiple_of);
  opt("--steps", c.steps);
  opt("--top-k", c.top_k);
  if (c.lr) b.set("--lr", fmt::format("{:.17g}", *c.lr));
  return run->run(RunContext{c.lang, c.seed});
}

}  // namespace attn
