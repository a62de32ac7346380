// The pseudo-locale "qps" is English with every letter of every catalog message accented and
// wrapped in ⟦ ⟧. Under it, a plain English word on screen is a word that did not come through a
// catalog: a string literal left in the C++, or words passed as arguments. This test runs every
// lesson, list, params, kv-cache, models, every --help and the usage errors under qps and fails
// on any such word.
#include <catch2/catch.hpp>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "catalog.h"
#include "lesson.h"
#include "locate.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_pseudo_locale {

using namespace attn;

namespace {

// Every word (3+ ASCII letters, lower-cased) of every English catalog message: the words a
// leaked sentence would be made of.
const std::set<std::string>& english_words() {
  static const std::set<std::string> words = [] {
    std::set<std::string> w;
    for (const CatalogFile& f : all_catalogs()) {
      if (f.lang != "en") continue;
      for (const auto& [key, text] : f.messages) {
        std::string cur;
        for (char ch : text + " ") {
          if (std::isalpha(static_cast<unsigned char>(ch))) cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          else {
            if (cur.size() >= 3) w.insert(cur);
            cur.clear();
          }
        }
      }
    }
    return w;
  }();
  return words;
}

// Names that are an interface, not prose: they print the same in every language. Tensor, value
// and config names, step ids, flag names, JSON keys, model and dtype names.
void add_identifiers(std::set<std::string>& allow, const std::string& text) {
  std::string cur;
  for (char ch : text + " ") {
    if (std::isalpha(static_cast<unsigned char>(ch))) cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else {
      if (!cur.empty()) allow.insert(cur);
      cur.clear();
    }
  }
}

// Plain English words on the visible lines of `out`, with the line they are on.
std::vector<std::string> leaks(const std::string& out, const std::set<std::string>& allow) {
  std::vector<std::string> found;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    start = end + 1;
    // Chunks that are identifiers, not prose: anything with '_', '/', '.' or '=' inside
    // (lm_head, kv_a_proj_with_mqa, https://…, seq_len=4), model ids (deepseek-llm-67b) and
    // ALL-CAPS acronyms (LLM).
    std::string masked = line;
    for (std::size_t a = 0; a < masked.size();) {
      std::size_t b = masked.find(' ', a);
      if (b == std::string::npos) b = masked.size();
      std::string chunk = masked.substr(a, b - a);
      bool upper = !chunk.empty();
      for (char ch : chunk) upper = upper && !std::islower(static_cast<unsigned char>(ch));
      bool named = chunk.find('-') != std::string::npos && chunk.find_first_of("0123456789") != std::string::npos;
      if (chunk.find_first_of("_/.=") != std::string::npos || upper || named) masked.replace(a, b - a, std::string(b - a, ' '));
      a = b + 1;
    }
    line = masked;
    std::string cur;
    for (std::size_t i = 0; i <= line.size(); ++i) {
      char ch = i < line.size() ? line[i] : ' ';
      bool ascii_letter = std::isalpha(static_cast<unsigned char>(ch)) != 0;
      if (ascii_letter) {
        cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        continue;
      }
      // a run glued to an accented (non-ASCII) letter is part of a pseudo-localized word
      bool glued = static_cast<unsigned char>(ch) >= 0x80 ||
                   (i > cur.size() && static_cast<unsigned char>(line[i - cur.size() - 1]) >= 0x80);
      if (cur.size() >= 3 && !glued && english_words().count(cur) && !allow.count(cur)) found.push_back(cur + "  in: " + line);
      cur.clear();
    }
  }
  return found;
}

std::set<std::string> base_allowlist() {
  std::set<std::string> allow;
  // Program, units, formats, model families and the names of things that are not translated.
  add_identifiers(allow,
                  "attnlab lesson list params kv-cache models render trace json html help version lang zh en qps bench decode flops heads generate train book course exercise color "
                  "KiB MiB GiB TiB PiB bf16 fp16 fp32 fp8 int8 int4 float bfloat "
                  "gpt llama mistral qwen falcon deepseek gemma mha gqa mqa mla ffn gelu swiglu silu relu "
                  "tanh softmax rope geva attention block gate symmetry roles memory hotpot inf nan");
  for (const LessonInfo* l : all_lessons()) add_identifiers(allow, l->name);
  return allow;
}

// The verse lesson induction's text model reads: input to an English model, not prose. It is taken out
// of what is checked where it is quoted whole (the terminal may wrap it, so each of its lines too).
const char* const kInputVerse = "Then Eli called Samuel, and said, Samuel, my son.";

void check_no_leaks(const std::string& args, std::set<std::string> allow) {
  CliResult r = run_cli(args + " --lang qps", "NO_COLOR=1 ");
  INFO("attnlab " << args << " --lang qps   (exit " << r.code << ")");
  CHECK((r.code == 0 || r.code == 2));
  std::string shown = r.out + r.err;
  for (std::size_t p = shown.find('"'); p != std::string::npos; p = shown.find('"', p + 1)) {
    std::size_t e = shown.find('"', p + 1);
    if (e == std::string::npos) break;
    std::string quoted = shown.substr(p + 1, e - p - 1);
    for (char& ch : quoted) if (ch == '\n') ch = ' ';
    std::string squeezed;  // the wrapped lines' indent as one space
    for (char ch : quoted) if (!(ch == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += ch;
    if (squeezed == kInputVerse) shown.replace(p + 1, e - p - 1, std::string(e - p - 1, ' '));
    p = e;
  }
  // every flag on screen is an identifier
  for (std::size_t p = shown.find("--"); p != std::string::npos; p = shown.find("--", p + 2)) {
    std::size_t e = p + 2;
    while (e < shown.size() && (std::isalnum(static_cast<unsigned char>(shown[e])) || shown[e] == '-')) ++e;
    add_identifiers(allow, shown.substr(p, e - p));
  }
  std::vector<std::string> found = leaks(shown, allow);
  for (const std::string& f : found) UNSCOPED_INFO("plain English: " << f);
  CHECK(found.empty());
}

// The identifiers of a lesson: everything its trace names.
std::set<std::string> lesson_allowlist(const std::string& lesson) {
  std::set<std::string> allow = base_allowlist();
  CliResult j = run_cli("lesson " + lesson + " --json -");
  // every JSON key and string value of the trace that is not prose: keys, tensor names, tokens
  std::size_t p = 0;
  while ((p = j.out.find('"', p)) != std::string::npos) {
    std::size_t e = j.out.find('"', p + 1);
    if (e == std::string::npos) break;
    std::string s = j.out.substr(p + 1, e - p - 1);
    if (s.find(' ') == std::string::npos) add_identifiers(allow, s);  // one word: a name
    p = e + 1;
  }
  return allow;
}

}  // namespace

TEST_CASE("pseudo-locale: every lesson's visible words come from its catalog", "[catalog][qps]") {
  for (const LessonInfo* l : all_lessons()) {
    std::set<std::string> allow = lesson_allowlist(l->name);
    check_no_leaks(std::string("lesson ") + l->name, allow);
    check_no_leaks(std::string("lesson ") + l->name + " --help", allow);
  }
  check_no_leaks("lesson mha --causal --seq-len 10", lesson_allowlist("mha"));
  check_no_leaks("lesson mha --heads 12 --step 1,weights", lesson_allowlist("mha"));  // derived d_model, --step header
  check_no_leaks("lesson mha --help", lesson_allowlist("mha"));                       // step list
}

TEST_CASE("pseudo-locale: list, models, params, kv-cache and --help", "[catalog][qps]") {
  std::set<std::string> allow = base_allowlist();
  for (const char* args : {"list", "models", "params --model gpt2", "params --model deepseek-v3",
                           "params --model llama-3-8b", "kv-cache --model deepseek-v3 --seq-len 32768",
                           "kv-cache --model llama-3-8b --tp 4 --memory 80GiB", "kv-cache --model llama-3-8b --memory 80GiB", "kv-cache --heads 12 --kv-heads 4",
                           "kv-cache --model deepseek-v3 --kv-heads 8 --tp 8", "params --d-model 768 --heads 12",
                           "params --model qwen3-30b-a3b", "params --model gpt-3-175b",
                           "params --model llama-4-scout", "kv-cache --model llama-4-scout --seq-len 32768",
                           "params --model glm-4-9b", "params --model minicpm3-4b", "kv-cache --model minicpm3-4b --tp 4",
                           "--help", "lesson --help", "params --help", "kv-cache --help", "models --help", "list --help",
                           "render --help", "course --help", "exercise --help", "exercise gqa", "exercise gqa 4 --solution",
                           "bench --help", "bench memory --help", "bench decode --help", "flops --help",
                           "flops --model llama-3-8b", "flops --model deepseek-v3 --seq-len 128",
                           "bench memory --size-mib 64 --min-time 0", "bench decode --model llama-3-8b --seq-len 64 --min-time 0"})
    check_no_leaks(args, allow);
}

TEST_CASE("pseudo-locale: train, its --help and its errors", "[catalog][qps]") {
  std::set<std::string> allow = base_allowlist();
  add_identifiers(allow, "train induction repeat-half prev-minus-first prev-minus-two-back random symmetric f32 f64 bf16 nosuch ckpt");
  const std::string tiny = "train --layers 2 --heads 2 --d-model 8 --vocab 12 --seq-len 10 --batch 4 --steps 6";
  for (const std::string& args : {tiny, tiny + " --task repeat-half", tiny + " --task prev-minus-first --no-mlp",
                                  tiny + " --task prev-minus-two-back --init symmetric", std::string("train --init nosuch"),
                                  std::string("train --help"), std::string("train --task nosuch"),
                                  std::string("train --lr 3"), std::string("train --mlp --no-mlp"), std::string("train --dtype bf16"),
                                  std::string("train --vocab 10"), std::string("train --steps 1000000"),
                                  std::string("train --batch 100000 --steps 1"), std::string("train --seq-len 4")})
    check_no_leaks(args, allow);
}

TEST_CASE("pseudo-locale: usage errors", "[catalog][qps]") {
  std::set<std::string> allow = base_allowlist();
  for (const char* args : {"lesson mha --d-model 8 --heads 3", "lesson mha --d-model 0", "lesson nosuch", "nosuch",
                           "lesson gqa --heads 4 --kv-heads 3", "lesson mha --seed -1", "lesson mha --precision 20",
                           "kv-cache --model nosuch", "params --config /nonexistent", "lesson mha --tokens ''",
                           "lesson mha --bogus", "lesson gelu --values x", "render /nonexistent.json --text",
                           "render /tmp --text", "render /nonexistent.json", "lesson mha --html /nonexistent/p.html",
                           "lesson decode --bandwidth -1", "lesson transmla --latent-dim 99", "lesson transmla --kv-heads 3",
                           "bench decode --model nosuch", "bench decode --model gpt2 --seq-len 0", "bench decode",
                           "bench memory --size-mib 1", "bench decode --model gpt2 --dtype fp8",
                           "flops --model gpt2 --seq-len 0"})
    check_no_leaks(args, allow);
  check_no_leaks(std::string("params --config ") + ATTNLAB_TEST_DIR + "/fixtures/configs/bad-llama4-text-config.json", allow);
}

TEST_CASE("pseudo-locale: the HTML pages' words come from the catalogs", "[catalog][qps][html]") {
  for (const char* args : {"lesson mha", "lesson gelu", "lesson kv-memory", "params --model gpt2", "kv-cache --model deepseek-v3",
                           "models"}) {
    CliResult r = run_cli(std::string(args) + " --html - --lang qps");
    INFO(args);
    REQUIRE(r.code == 0);
    // the visible text: no style sheet, no script, no tags (their attributes are not shown)
    std::string page = r.out, shown;
    for (const char* block : {"style", "script"}) {
      std::string open = std::string("<") + block + ">", close = std::string("</") + block + ">";
      for (std::size_t a = page.find(open); a != std::string::npos; a = page.find(open)) {
        std::size_t b = page.find(close, a);
        page.erase(a, (b == std::string::npos ? page.size() : b + close.size()) - a);
      }
    }
    bool tag = false;
    for (char ch : page) {
      if (ch == '<') tag = true;
      else if (ch == '>') tag = false, shown += ' ';
      else if (!tag) shown += ch;
    }
    std::set<std::string> allow = std::string(args).rfind("lesson ", 0) == 0 ? lesson_allowlist(std::string(args).substr(7)) : base_allowlist();
    std::vector<std::string> found = leaks(shown, allow);
    for (const std::string& f : found) UNSCOPED_INFO("plain English: " << f);
    CHECK(found.empty());
  }
}

TEST_CASE("pseudo-locale: the heads command, lesson mha on a real checkpoint and their errors", "[catalog][qps]") {
  std::string w = std::string(ATTNLAB_TEST_DIR) + "/fixtures/checkpoints/tiny-gpt2";
  std::set<std::string> allow = lesson_allowlist("mha");
  add_identifiers(allow, "heads weights layer tokens");
  for (const std::string& name : attn::builtin_model_names()) add_identifiers(allow, name);  // the shipped models' names
  for (const std::string& args : std::vector<std::string>
       {"heads --weights " + w + " --token-ids 1,2,3,4", "heads --help", "lesson mha --help",
        "lesson mha --weights " + w + " --layer 2 --token-ids 1,2,3",
        // errors
        "heads --weights " + w, "heads --weights " + w + " --text hello", "heads --weights " + w + " --token-ids 1,99",
        "heads --weights no-such-model --token-ids 1,2", "lesson mha --weights " + w + " --layer 3 --token-ids 1,2",
        "lesson mha --weights " + w + " --heads 2 --token-ids 1,2", "lesson mha --layer 2"})
    check_no_leaks(args, allow);
  // the valid steps are listed by id (identifiers, like the lesson's tensor names)
  for (const char* args : {"lesson mha --step nosuch", "lesson mha --step 1,,2"}) check_no_leaks(args, lesson_allowlist("mha"));
}

TEST_CASE("pseudo-locale: Llama-family checkpoints in heads, lesson mha and lesson gqa", "[catalog][qps]") {
  std::string dir = std::string(ATTNLAB_TEST_DIR) + "/fixtures/checkpoints/";
  std::string w = dir + "tiny-llama", q = dir + "tiny-qwen2";
  std::set<std::string> allow = lesson_allowlist("gqa");
  for (const std::string& a : lesson_allowlist("mha")) allow.insert(a);
  for (const std::string& a : lesson_allowlist("swiglu")) allow.insert(a);
  for (const std::string& a : lesson_allowlist("ffn")) allow.insert(a);
  add_identifiers(allow, "heads weights layer tokens llama qwen2 llama3 none");
  for (const std::string& args : std::vector<std::string>
       {"heads --weights " + w + " --token-ids 1,2,3,4", "lesson mha --weights " + q + " --layer 2 --token-ids 1,2,3",
        "lesson gqa --weights " + w + " --layer 3 --token-ids 1,2,3", "lesson gqa --weights " + q + " --token-ids 1,2,3",
        "lesson gqa --help", "lesson swiglu --weights " + q + " --layer 2 --token-ids 1,2,3", "lesson swiglu --help",
        "lesson ffn --weights " + dir + "tiny-gpt2 --layer 2 --token-ids 1,2,3", "lesson ffn --weights " + w + " --token-ids 1,2",
        "params --weights " + w, "params --weights " + dir + "tiny-gpt2-sharded", "params --help",
        // errors
        "params --weights " + w + " --model gpt2", "lesson swiglu --weights " + dir + "tiny-gpt2 --token-ids 1,2",
        "lesson gqa --weights " + dir + "tiny-gpt2 --token-ids 1,2", "lesson gqa --layer 2",
        "lesson gqa --weights " + w + " --kv-heads 2 --token-ids 1,2"})
    check_no_leaks(args, allow);
}

TEST_CASE("pseudo-locale: generate and lessons attention, block, kv-memory on a real checkpoint", "[catalog][qps]") {
  std::string dir = std::string(ATTNLAB_TEST_DIR) + "/fixtures/checkpoints/";
  std::string w = dir + "tiny-gpt2", l = dir + "tiny-llama";
  std::set<std::string> allow = lesson_allowlist("attention");
  for (const char* lesson : {"block", "kv-memory"})
    for (const std::string& a : lesson_allowlist(lesson)) allow.insert(a);
  add_identifiers(allow, "heads weights layer tokens gpt2 llama logit id F32 bf16 prob");
  for (const std::string& args : std::vector<std::string>
       {"generate --weights " + w + " --token-ids 1,2,3 --tokens 3", "generate --weights " + l + " --token-ids 1,2 --tokens 2",
        "generate --help", "lesson attention --weights " + w + " --layer 2 --head 3 --token-ids 1,2,3",
        "lesson attention --weights " + l + " --head 4 --token-ids 1,2,3", "lesson attention --help",
        "lesson block --weights " + w + " --layer 2 --token-ids 1,2,3", "lesson block --help",
        "lesson kv-memory --weights " + w + " --token-ids 1,2,3", "lesson kv-memory --help",
        // errors
        "generate --weights " + w + " --token-ids 1,2 --tokens 0", "generate --weights " + w + " --token-ids 1,2 --tokens 40",
        "lesson attention --weights " + w + " --head 5 --token-ids 1,2", "lesson block --weights " + l + " --token-ids 1,2",
        "lesson kv-memory --weights " + l + " --token-ids 1,2"})
    check_no_leaks(args, allow);
}

}  // namespace file_test_pseudo_locale
