// Exercises: the registry (in the course's order), the draws, and the answer checks. See exercise.h.
#include "exercise.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "course.h"
#include "lesson.h"

namespace attn {

// Each lesson's list, defined in lessons/NAME/exercises.cpp.
std::vector<Exercise> attention_exercises();
std::vector<Exercise> mha_exercises();
std::vector<Exercise> gqa_exercises();
std::vector<Exercise> mqa_exercises();
std::vector<Exercise> ffn_exercises();
std::vector<Exercise> gelu_exercises();
std::vector<Exercise> swiglu_exercises();
std::vector<Exercise> qkv_roles_exercises();
std::vector<Exercise> symmetry_exercises();
std::vector<Exercise> kv_memory_exercises();
std::vector<Exercise> block_exercises();
std::vector<Exercise> mla_exercises();
std::vector<Exercise> gate_exercises();
std::vector<Exercise> decode_exercises();
std::vector<Exercise> transmla_exercises();
std::vector<Exercise> induction_exercises();
std::vector<Exercise> specialize_exercises();
std::vector<Exercise> tradeoffs_exercises();

const char* exercise_kind_name(ExerciseKind k) {
  switch (k) {
    case ExerciseKind::by_hand: return "by-hand";
    case ExerciseKind::predict: return "predict";
    case ExerciseKind::why: return "why";
  }
  return "";
}

const std::vector<LessonExercises>& all_exercises() {
  static const std::vector<LessonExercises> all = [] {
    std::vector<LessonExercises> by_name = {
        {"attention", attention_exercises()}, {"mha", mha_exercises()},   {"gqa", gqa_exercises()},
        {"mqa", mqa_exercises()},             {"ffn", ffn_exercises()},   {"gelu", gelu_exercises()},
        {"swiglu", swiglu_exercises()},       {"qkv-roles", qkv_roles_exercises()},
        {"symmetry", symmetry_exercises()},   {"kv-memory", kv_memory_exercises()},
        {"block", block_exercises()},         {"mla", mla_exercises()},
        {"gate", gate_exercises()},           {"decode", decode_exercises()},
        {"transmla", transmla_exercises()},   {"induction", induction_exercises()},
        {"specialize", specialize_exercises()}, {"tradeoffs", tradeoffs_exercises()},
    };
    std::vector<LessonExercises> ordered;  // the course's order (course.h)
    for (const CourseStop& stop : course_stops())
      for (const char* lesson : stop.lessons)
        for (const LessonExercises& e : by_name)
          if (std::string(e.lesson) == lesson) ordered.push_back(e);
    return ordered;
  }();
  return all;
}

const std::vector<Exercise>* exercises_of(const std::string& lesson) {
  for (const LessonExercises& e : all_exercises())
    if (lesson == e.lesson) return &e.list;
  return nullptr;
}

std::string plain_number(double x) { return fmt::format("{}", x); }

std::int64_t ExerciseDraw::integer(std::int64_t lo, std::int64_t hi) {
  std::uint64_t count = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(rng_.next_u64() % count);
}

double ExerciseDraw::grid(double lo, double hi, double step) {
  std::int64_t k = integer(0, static_cast<std::int64_t>(std::llround((hi - lo) / step)));
  return lo + static_cast<double>(k) * step;
}

double answer_tolerance(const Posed& p) {
  if (p.sig_figs == 0) return 0;
  double mag = p.key == 0 ? 0 : std::floor(std::log10(std::fabs(p.key)));
  return std::pow(10.0, mag - p.sig_figs + 1);
}

std::optional<double> parse_number_answer(const std::string& s) {
  std::string t;
  bool after_separator = false;
  for (char c : s) {
    if (c == ',' || c == '_' || c == ' ') {
      // a separator only between digits: "4,294" but not ",5", "5," or "4,,294"
      if (t.empty() || after_separator || !std::isdigit(static_cast<unsigned char>(t.back()))) return std::nullopt;
      after_separator = true;
      continue;
    }
    if (after_separator && !std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    after_separator = false;
    t += c;
  }
  if (after_separator) return std::nullopt;
  if (t.empty() || t.size() > 64) return std::nullopt;
  if (!std::isdigit(static_cast<unsigned char>(t.back())) && t.back() != '.') return std::nullopt;
  for (char c : t)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
      return std::nullopt;  // no "inf", "nan", hex
  char* end = nullptr;
  double x = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::optional<std::size_t> parse_choice_answer(const std::string& s, std::size_t n_options) {
  if (s.size() != 1) return std::nullopt;
  char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  if (c < 'a' || c >= static_cast<char>('a' + n_options)) return std::nullopt;
  return static_cast<std::size_t>(c - 'a');
}

bool number_answer_right(const Posed& p, double answer) {
  if (p.sig_figs == 0) return answer == p.key;
  // a hair over the stated tolerance, so that the tolerance's own rounding never refuses an answer
  // that is exactly at its edge (0.731 against 0.7320 within 0.001)
  return std::fabs(answer - p.key) <= answer_tolerance(p) * (1 + 1e-9);
}

}  // namespace attn
