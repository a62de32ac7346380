#pragma once
// Exercises: what a lesson asks the learner, checked by the lesson's own math.
//
// Each lesson's exercises are in lessons/NAME/exercises.cpp, beside the lesson, and their words in
// the lesson's catalogs (lessons/NAME/LANG.cat, keys ex.N.*). An exercise is one function from a
// seed to a Posed question: the inputs it drew (tiny numbers from ExerciseDraw, so a new seed gives
// new numbers), the question's message, and the answer key, computed by the same src/math (or
// src/models) functions the lesson calls. No key is typed in by hand.
//
// Three kinds (the words):
//   by_hand  tiny inputs drawn from the seed, a number the lesson computes (a softmax weight, GELU(x))
//   predict  a number the lesson shows, asked before it is shown (a group index, a preset's cache bytes)
//   why      multiple choice on a concept of the chapter, each option with the reason it is right or wrong
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "message.h"
#include "random.h"

namespace attn {

enum class ExerciseKind { by_hand, predict, why };
const char* exercise_kind_name(ExerciseKind k);  // "by-hand", "predict", "why"

struct Posed {
  Posed(ExerciseKind k, std::string catalog_prefix) : kind(k), prefix(std::move(catalog_prefix)) {}
  ExerciseKind kind = ExerciseKind::by_hand;
  // The catalog prefix of this exercise's words, "attention.ex.1." (+ title, question, hint, solution,
  // and for why: option.a … and reason.a …).
  std::string prefix;
  Args args;  // the drawn inputs and the worked numbers, for question, hint and solution alike
  // A numeric answer: the key and how close an answer must be.
  double key = 0;
  int sig_figs = 0;  // 0: a whole number, exact; else this many significant figures
  // A choice: the options' count and the right one (0 = a).
  std::size_t n_options = 0;
  std::size_t choice = 0;
  bool is_choice() const { return kind == ExerciseKind::why; }
};

// How close a numeric answer must be: one unit in the last significant figure asked for (3 figures
// of 0.7311: within 0.001; of 4,294,967,296: within 10,000,000), 0 for a whole number (exact).
double answer_tolerance(const Posed& p);

// A "why" exercise: n_options choices, the right one `choice` (0 = a); its question, options and
// reasons are the catalog's, under prefix.
inline Posed why_posed(std::string prefix, std::size_t n_options, std::size_t choice) {
  Posed p{ExerciseKind::why, std::move(prefix)};
  p.n_options = n_options;
  p.choice = choice;
  return p;
}

struct Exercise {
  ExerciseKind kind;
  Posed (*pose)(std::uint64_t seed);
};

struct LessonExercises {
  const char* lesson;  // the lesson's name ("kv-memory")
  std::vector<Exercise> list;
};

// Every lesson's exercises, in the course's order (course.h); a lesson without exercises is absent.
const std::vector<LessonExercises>& all_exercises();
const std::vector<Exercise>* exercises_of(const std::string& lesson);  // nullptr if none
inline constexpr std::uint64_t kDefaultExerciseSeed = 1;

// The tiny inputs of an exercise, drawn from its own generator: SplitMix64 seeded with
// seed·64 + n (n: the exercise's number), so exercise 2 at seed 1 does not repeat exercise 1's
// numbers. Every draw is next_u64() mod a count (tests/golden/gen_exercises.py draws the same way).
class ExerciseDraw {
 public:
  ExerciseDraw(std::uint64_t seed, int n) : rng_(seed * 64 + static_cast<std::uint64_t>(n)) {}
  // One of lo, lo+1, …, hi.
  std::int64_t integer(std::int64_t lo, std::int64_t hi);
  // One of lo, lo + step, …, hi (lo + k·step, k whole): numbers a learner can work with by hand.
  double grid(double lo, double hi, double step);
  // One item of a list.
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<std::size_t>(integer(0, static_cast<std::int64_t>(items.size()) - 1))];
  }

 private:
  Rng rng_;
};

// A number as the catalogs print a double with no format: the shortest form ("-2", "0.5"), for a
// list of drawn inputs passed as one string.
std::string plain_number(double x);

// A learner's answer: a number ("0.731", "4,294,967,296", "1.6e10"; ',' '_' and spaces between digits
// ignored) or, for a choice, a letter. nullopt: malformed (the CLI says so and exits 2).
std::optional<double> parse_number_answer(const std::string& s);
std::optional<std::size_t> parse_choice_answer(const std::string& s, std::size_t n_options);
bool number_answer_right(const Posed& p, double answer);

}  // namespace attn
