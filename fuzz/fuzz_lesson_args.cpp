// libFuzzer: a lesson's options from bytes. The input is words separated by NUL bytes: the
// first picks the lesson, the rest are "--flag value" pairs given to its bind function the way
// the CLI does (whole numbers, reals, text, switches); the run is rendered as the terminal shows
// it. The work caps are lowered so every run takes milliseconds; a UsageError is a fine answer.
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "errors.h"
#include "lesson.h"
#include "terminal.h"

namespace {

class Binder : public attn::OptionBinder {
 public:
  explicit Binder(const std::vector<std::string>& words) : words_(words) {}
  void integer(const char* flag, std::optional<std::int64_t>& value) override {
    if (const std::string* v = find(flag)) {
      errno = 0;
      char* end = nullptr;
      long long n = std::strtoll(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || errno == ERANGE) throw attn::UsageError("cli.err.not_whole", {{"flag", flag}});
      value = n;
    }
  }
  void real(const char* flag, std::optional<double>& value) override {
    if (const std::string* v = find(flag)) {
      char* end = nullptr;
      double x = std::strtod(v->c_str(), &end);
      if (v->empty() || *end != '\0' || !std::isfinite(x)) throw attn::UsageError("cli.err.cli_conversion", {{"flag", flag}});
      value = x;
    }
  }
  void text(const char* flag, std::optional<std::string>& value) override {
    if (const std::string* v = find(flag)) value = *v;
  }
  void toggle(const char* flag, bool& value) override {
    for (const std::string& w : words_)
      if (w == flag) value = true;
  }

 private:
  const std::string* find(const char* flag) const {
    for (std::size_t i = 0; i + 1 < words_.size(); ++i)
      if (words_[i] == flag) return &words_[i + 1];
    return nullptr;
  }
  const std::vector<std::string>& words_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attn::set_work_caps_for_fuzzing(2e6, 2e5);
  std::vector<std::string> words(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) words.emplace_back();
    else words.back() += static_cast<char>(data[i]);
  }
  const auto& lessons = attn::all_lessons();
  const attn::LessonInfo* info = attn::find_lesson(words[0]);
  if (info == nullptr) info = lessons[std::hash<std::string>{}(words[0]) % lessons.size()];
  try {
    auto run = info->make();
    Binder b(words);
    run->bind(b);
    attn::Trace t = run->run(attn::RunContext{});
    attn::render_trace(t, attn::RenderOptions{});
  } catch (const attn::UsageError&) {
  }
  return 0;
}
