// attnlab exercise and attnlab course: every answer key against the numpy fixture at three seeds
// (tests/golden/gen_exercises.py), a right answer accepted and a wrong one refused through the CLI,
// malformed answers refused with exit 2, en and zh complete, the progress file written atomically
// and a damaged or hostile one refused and left untouched, and the front door.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog.h"
#include "course.h"
#include "exercise.h"
#include "golden.h"
#include "lesson.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_exercises {

using namespace attn;
namespace fs = std::filesystem;

namespace {

// A fresh $XDG_STATE_HOME for one test, removed after it.
struct StateHome {
  fs::path root;
  StateHome() {
    static int n = 0;
    root = fs::temp_directory_path() / fmt::format("attnlab_state_{}_{}", ::getpid(), n++);
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~StateHome() {
    std::error_code ec;
    fs::permissions(root, fs::perms::owner_all, ec);
    if (fs::exists(root / "attnlab")) fs::permissions(root / "attnlab", fs::perms::owner_all, ec);
    fs::remove_all(root, ec);
  }
  std::string env() const { return "XDG_STATE_HOME='" + root.string() + "' LANG=C.UTF-8 "; }
  fs::path file() const { return root / "attnlab" / "progress.json"; }
};

std::string lesson_catalog(const std::string& lesson) { return catalog_name(*find_lesson(lesson)); }

// An answer the checker must accept: the key with 10 significant figures (a whole number exactly).
std::string right_answer(const Posed& p) {
  if (p.is_choice()) return std::string(1, static_cast<char>('a' + p.choice));
  if (p.sig_figs == 0) return fmt::format("{}", static_cast<long long>(p.key));
  return fmt::format("{:.10g}", p.key);
}
// One it must refuse: off by ten times the tolerance (or by one, for a whole number).
std::string wrong_answer(const Posed& p) {
  if (p.is_choice()) return std::string(1, static_cast<char>('a' + (p.choice + 1) % p.n_options));
  if (p.sig_figs == 0) return fmt::format("{}", static_cast<long long>(p.key) + 1);
  return fmt::format("{:.10g}", p.key + 10 * answer_tolerance(p) + 1e-9);
}

// A shell command line as it is (run_cli prefixes the binary).
CliResult run_cli_shell(const std::string& cmd) {
  const std::string out = fs::temp_directory_path() / fmt::format("attnlab_tty_{}.out", ::getpid());
  int status = std::system((cmd + " >'" + out + "' 2>&1").c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  std::remove(out.c_str());
  return r;
}

std::size_t count_exercises() {
  std::size_t n = 0;
  for (const LessonExercises& e : all_exercises()) n += e.list.size();
  return n;
}

}  // namespace

TEST_CASE("exercises: every key equals the numpy fixture at three seeds", "[exercise][golden]") {
  nlohmann::json g = load_golden("exercises");
  std::set<std::string> seen;
  for (const LessonExercises& e : all_exercises()) {
    for (std::size_t i = 0; i < e.list.size(); ++i) {
      const std::string id = std::string(e.lesson) + "." + std::to_string(i + 1);
      INFO(id);
      REQUIRE(g["keys"].contains(id));
      seen.insert(id);
      const nlohmann::json& want = g["keys"][id];
      for (std::uint64_t seed : g["seeds"].get<std::vector<std::uint64_t>>()) {
        INFO("seed " << seed);
        Posed p = e.list[i].pose(seed);
        CHECK(p.kind == e.list[i].kind);
        if (p.is_choice()) {
          REQUIRE(want.contains("choice"));
          CHECK(std::string(1, static_cast<char>('a' + p.choice)) == want["choice"].get<std::string>());
          CHECK(p.n_options >= 3);
        } else {
          double w = want[std::to_string(seed)].get<double>();
          CHECK(std::fabs(p.key - w) <= 1e-12 * std::max(1.0, std::fabs(w)));
        }
      }
    }
  }
  CHECK(seen.size() == g["keys"].size());  // no fixture for an exercise that is gone
}

TEST_CASE("exercises: a new seed draws new numbers", "[exercise]") {
  // The by-hand exercises with drawn inputs give different keys at the fixture's three seeds.
  for (const char* id : {"attention.1", "attention.2", "ffn.1", "gelu.1", "gelu.2", "swiglu.2"}) {
    std::string s(id);
    const auto& list = *exercises_of(s.substr(0, s.find('.')));
    const Exercise& ex = list[static_cast<std::size_t>(std::stoi(s.substr(s.find('.') + 1))) - 1];
    INFO(id);
    CHECK(ex.pose(1).key != ex.pose(7).key);
    CHECK(ex.pose(7).key == ex.pose(7).key);
  }
}

TEST_CASE("exercises: each lesson with exercises has at least 3, of the three kinds overall", "[exercise]") {
  std::set<ExerciseKind> kinds;
  for (const LessonExercises& e : all_exercises()) {
    INFO(e.lesson);
    CHECK(e.list.size() >= 3);
    CHECK(find_lesson(e.lesson) != nullptr);
    for (const Exercise& x : e.list) kinds.insert(x.kind);
  }
  CHECK(kinds.size() == 3);
  CHECK(count_exercises() >= 60);
}

TEST_CASE("exercises: en and zh have every text of every exercise, and they differ", "[exercise][catalog]") {
  Text en(Lang{"en"}), zh(Lang{"zh"});
  for (const LessonExercises& e : all_exercises())
    for (std::size_t i = 0; i < e.list.size(); ++i) {
      Posed p = e.list[i].pose(7);
      INFO(p.prefix);
      CHECK(p.prefix == lesson_catalog(e.lesson) + ".ex." + std::to_string(i + 1) + ".");
      std::vector<std::string> keys = {"title", "question", "hint"};
      if (p.is_choice()) {
        for (std::size_t k = 0; k < p.n_options; ++k) {
          keys.push_back("option." + std::string(1, static_cast<char>('a' + k)));
          keys.push_back("reason." + std::string(1, static_cast<char>('a' + k)));
        }
        CHECK_FALSE(en.has(p.prefix + "option." + std::string(1, static_cast<char>('a' + p.n_options))));
      } else {
        keys.push_back("solution");
      }
      for (const std::string& k : keys) {
        INFO(k);
        REQUIRE(en.has(p.prefix + k));
        std::string a = en(p.prefix + k, p.args), b = zh(p.prefix + k, p.args);
        CHECK(!a.empty());
        CHECK(a != b);  // zh has its own text, not English by fallback
      }
    }
}

TEST_CASE("exercises: the answer parser", "[exercise]") {
  CHECK(parse_number_answer("0.731") == 0.731);
  CHECK(parse_number_answer("4,294,967,296") == 4294967296.0);
  CHECK(parse_number_answer("4.29e9") == 4.29e9);
  CHECK(parse_number_answer("-1.5") == -1.5);
  CHECK(parse_number_answer("1_000") == 1000.0);
  for (const char* bad : {"", "abc", "0.7x", "nan", "inf", "1e999", ",5", "5,", "0x10", "1..2", " ", "--1"})
    CHECK_FALSE(parse_number_answer(bad).has_value());
  CHECK(parse_choice_answer("B", 4) == std::size_t{1});
  CHECK(parse_choice_answer("d", 4) == std::size_t{3});
  CHECK_FALSE(parse_choice_answer("e", 4).has_value());
  CHECK_FALSE(parse_choice_answer("ab", 4).has_value());
  // 3 significant figures of 0.7311: within 0.001; a whole number exactly
  Posed p{ExerciseKind::by_hand, "x."};
  p.key = 0.7311;
  p.sig_figs = 3;
  CHECK(answer_tolerance(p) == Approx(0.001));
  CHECK(number_answer_right(p, 0.731));
  CHECK(number_answer_right(p, 0.7321));
  CHECK_FALSE(number_answer_right(p, 0.733));
  p.key = 4294967296.0;
  CHECK(answer_tolerance(p) == Approx(1e7));
  CHECK(number_answer_right(p, 4.29e9));
  CHECK_FALSE(number_answer_right(p, 4.2e9));
  p.sig_figs = 0;
  p.key = 55;
  CHECK(number_answer_right(p, 55));
  CHECK_FALSE(number_answer_right(p, 55.5));
}

TEST_CASE("exercise CLI: a right answer is accepted and recorded, a wrong one refused with a hint", "[exercise][cli]") {
  StateHome home;
  for (const LessonExercises& e : all_exercises())
    for (std::size_t i = 0; i < e.list.size(); ++i) {
      const std::string id = std::string(e.lesson) + "." + std::to_string(i + 1);
      const std::string base = fmt::format("exercise {} {} --seed 7", e.lesson, i + 1);
      Posed p = e.list[i].pose(7);
      INFO(id);
      CliResult wrong = run_cli(base + " --answer " + wrong_answer(p) + " --json -", home.env());
      REQUIRE(wrong.code == 0);
      nlohmann::json jw = nlohmann::json::parse(wrong.out);
      CHECK(jw["schema"] == "attnlab.exercise/1");
      CHECK(jw["correct"] == false);
      CHECK(!jw["hint"].get<std::string>().empty());
      CliResult right = run_cli(base + " --answer " + right_answer(p), home.env());
      REQUIRE(right.code == 0);
      CHECK(right.out.find("Right") != std::string::npos);
      CHECK(right.err.empty());
      // the solution's key, as JSON, is the fixture's key too (the same pose)
      CliResult sol = run_cli(base + " --solution --json -", home.env());
      REQUIRE(sol.code == 0);
      nlohmann::json js = nlohmann::json::parse(sol.out);
      if (p.is_choice()) CHECK(js["choice"] == right_answer(p));
      else CHECK(js["key"].get<double>() == p.key);
    }
  std::ifstream in(home.file());
  nlohmann::json prog = nlohmann::json::parse(in);
  CHECK(prog["schema"] == "attnlab.progress/1");
  CHECK(prog["done"].size() == count_exercises());
  // every exercise done: the course says so
  CliResult c = run_cli("course --json -", home.env());
  REQUIRE(c.code == 0);
  nlohmann::json jc = nlohmann::json::parse(c.out);
  CHECK(jc["schema"] == "attnlab.course/1");
  CHECK(jc["done"] == count_exercises());
  CHECK(jc["total"] == count_exercises());
}

TEST_CASE("exercise CLI: a wrong answer in words: not yet and the hint", "[exercise][cli]") {
  StateHome home;
  CliResult r = run_cli("exercise gqa 1 --seed 1 --answer 999", home.env());
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Not yet") != std::string::npos);
  CHECK(r.out.find("Hint:") != std::string::npos);
  CHECK_FALSE(fs::exists(home.file()));  // nothing recorded
  CliResult w = run_cli("exercise attention 4 --answer a", home.env());
  CHECK(w.out.find("No: softmax already") != std::string::npos);  // the reason of the option chosen
}

TEST_CASE("exercise CLI: malformed answers and bad numbers are usage errors, one line, exit 2", "[exercise][cli]") {
  StateHome home;
  for (const char* args : {"exercise attention 1 --answer abc", "exercise attention 1 --answer 1..2",
                           "exercise attention 4 --answer z", "exercise attention 4 --answer 2",
                           "exercise attention 9", "exercise attention 0", "exercise nosuch",
                           "exercise qkv-roles 1 --answer 1,,2", "exercise attention 1 --answer 1 --solution",
                           "exercise attention 1 --seed -1", "exercise attention x", "exercise gqa --seed 3",
                           "exercise --answer 1", "exercise gqa --solution"}) {
    INFO(args);
    CliResult r = run_cli(args, home.env());
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(home.file()));
}

TEST_CASE("exercise CLI: listing, posing without a terminal, the lessons", "[exercise][cli]") {
  StateHome home;
  CliResult all = run_cli("exercise", home.env());
  REQUIRE(all.code == 0);
  CHECK(all.out.find("attention: 4 exercises, 0 done") != std::string::npos);
  CliResult list = run_cli("exercise gqa --json -", home.env());
  REQUIRE(list.code == 0);
  nlohmann::json j = nlohmann::json::parse(list.out);
  CHECK(j["exercises"].size() == exercises_of("gqa")->size());
  CHECK(j["exercises"][0]["id"] == "gqa.1");
  // not a terminal (stdin from /dev/null): it poses and says how to answer, and waits for nothing
  CliResult pose = run_cli("exercise attention 1 --seed 3 </dev/null", home.env());
  REQUIRE(pose.code == 0);
  CHECK(pose.out.find("--seed 3 --answer VALUE") != std::string::npos);
  CHECK(pose.out.find("within ±") != std::string::npos);  // the tolerance is stated
  CliResult zh = run_cli("exercise attention 1 --seed 3 --lang zh </dev/null", home.env());
  REQUIRE(zh.code == 0);
  CHECK(zh.out.find("有效数字") != std::string::npos);
}

TEST_CASE("exercise CLI: on a terminal it asks, waits and checks the answer typed", "[exercise][cli]") {
  // util-linux's script(1) gives the run a terminal (stdin and stdout); the answer is typed into it.
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    WARN("no script(1): the terminal case is not run");
    CHECK(true);
    return;
  }
  StateHome home;
  const Posed p = (*exercises_of("attention"))[0].pose(1);
  const std::string cmd = "printf '" + fmt::format("{:.4g}", p.key) + "\\n' | " + home.env() + "script -qec \"'" + ATTNLAB_BIN +
                          "' exercise attention 1 --color never\" /dev/null";
  CliResult r = run_cli_shell(cmd);
  CHECK(r.code == 0);
  CHECK(r.out.find("Your answer") != std::string::npos);  // it asked
  CHECK(r.out.find("Right:") != std::string::npos);       // and checked what was typed
  CHECK(fs::exists(home.file()));
}

TEST_CASE("progress: written atomically, read by course, cleared by --reset", "[exercise][progress]") {
  StateHome home;
  Posed p = (*exercises_of("gqa"))[0].pose(1);
  REQUIRE(run_cli("exercise gqa 1 --seed 1 --answer " + right_answer(p), home.env()).code == 0);
  REQUIRE(fs::is_regular_file(home.file()));
  // only the file itself in the folder: the temporary file was renamed, none is left behind
  std::size_t files = 0;
  for (const auto& f : fs::directory_iterator(home.file().parent_path())) files += (void(f), 1);
  CHECK(files == 1);
  CHECK((fs::status(home.file()).permissions() & fs::perms::others_read) == fs::perms::none);
  CliResult c = run_cli("course", home.env());
  REQUIRE(c.code == 0);
  CHECK(c.out.find("1/4") != std::string::npos);  // gqa's stop: 1 of 4
  CliResult reset = run_cli("course --reset", home.env());
  REQUIRE(reset.code == 0);
  CHECK_FALSE(fs::exists(home.file()));
  CliResult again = run_cli("course --reset", home.env());
  CHECK(again.code == 0);
}

TEST_CASE("progress: a damaged or hostile file is refused in one line and left as it was", "[exercise][progress]") {
  const std::vector<std::string> damaged = {
      "not json",
      "{\"schema\": \"attnlab.progress/1\"}",
      "{\"schema\": \"attnlab.progress/2\", \"done\": []}",
      "{\"schema\": \"attnlab.progress/1\", \"done\": [1]}",
      "{\"schema\": \"attnlab.progress/1\", \"done\": [\"../../etc\"]}",
      "{\"schema\": \"attnlab.progress/1\", \"done\": [\"attention.1\\u001b[31m\"]}",
      "{\"schema\": \"attnlab.progress/1\", \"done\": []} trailing",
      std::string(100000, '['),
  };
  for (const std::string& bytes : damaged) {
    StateHome home;
    fs::create_directories(home.file().parent_path());
    { std::ofstream(home.file(), std::ios::binary) << bytes; }
    INFO(bytes.substr(0, 60));
    for (const char* args : {"course", "exercise attention 4 --answer b"}) {
      CliResult r = run_cli(args, home.env());
      CHECK(r.code == 2);
      CHECK(r.out.empty());
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK(r.err.find("progress file") != std::string::npos);
    }
    CHECK(slurp(home.file().string()) == bytes);  // never overwritten
  }
  {  // a symbolic link (to a file elsewhere) and a folder in its place
    StateHome home;
    fs::create_directories(home.file().parent_path());
    fs::path target = home.root / "elsewhere.json";
    { std::ofstream(target) << "{\"schema\": \"attnlab.progress/1\", \"done\": []}"; }
    fs::create_symlink(target, home.file());
    CliResult r = run_cli("exercise attention 4 --answer b", home.env());
    CHECK(r.code == 2);
    CHECK(fs::is_symlink(home.file()));
    CHECK(slurp(target.string()) == "{\"schema\": \"attnlab.progress/1\", \"done\": []}");
  }
  {
    StateHome home;
    fs::create_directories(home.file());
    CHECK(run_cli("course", home.env()).code == 2);
    CHECK(run_cli("course --reset", home.env()).code == 2);
    CHECK(fs::is_directory(home.file()));
  }
  if (::geteuid() != 0) {  // a folder that cannot be written: exit 1, one line, nothing half-done
    StateHome home;
    fs::create_directories(home.file().parent_path());
    fs::permissions(home.file().parent_path(), fs::perms::owner_read | fs::perms::owner_exec);
    Posed p = (*exercises_of("attention"))[3].pose(1);
    CliResult r = run_cli("exercise attention 4 --answer " + right_answer(p), home.env());
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("course: every stop, in order, with its lessons, minutes and exercises", "[course][cli]") {
  StateHome home;
  CliResult r = run_cli("course --json -", home.env());
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j["stops"].size() == course_stops().size());
  CHECK(j["stops"][0]["lessons"][0] == "attention");
  CHECK(j["done"] == 0);
  CHECK(j["total"] == count_exercises());
  std::set<std::string> on_path;
  for (const auto& s : j["stops"]) {
    CHECK(s["minutes"].get<int>() > 0);
    for (const auto& l : s["lessons"]) on_path.insert(l.get<std::string>());
  }
  for (const LessonInfo* l : all_lessons()) {
    INFO(l->name);
    CHECK(on_path.count(l->name) == 1);  // every lesson is a stop of the path
  }
  CliResult text = run_cli("course", home.env());
  CHECK(text.out.find("Next: attnlab lesson attention") != std::string::npos);
  CliResult zh = run_cli("course --lang zh", home.env());
  CHECK(zh.out.find("下一步") != std::string::npos);
}

TEST_CASE("the front door: attnlab alone says what it is and the three commands, exit 0", "[course][cli]") {
  for (const char* lang : {"en", "zh"}) {
    CliResult r = run_cli(std::string("--lang ") + lang);
    INFO(lang);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    for (const char* cmd : {"attnlab course", "attnlab lesson attention", "attnlab book --html book.html"})
      CHECK(r.out.find(cmd) != std::string::npos);
  }
  CliResult bare = run_cli("");
  CHECK(bare.code == 0);
  CHECK(bare.out.find("attnlab --help") != std::string::npos);
}

}  // namespace file_test_exercises
