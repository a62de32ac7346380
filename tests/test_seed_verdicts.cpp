// Issue 29, "say where the seed is wrong": at each of the nine places where the chapter (C) or the
// conversation (V) says otherwise, the lesson quotes the seed's words (in Chinese; en adds a
// translation) and says what is true, as gelu does for the chapter's printed values.
#include <catch2/catch.hpp>

#include <string>

#include "catalog.h"
#include "lesson.h"
#include "lesson_args.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_seed_verdicts {

using namespace attn;

namespace {

std::string notes_of(const Trace& t, const std::string& id) {
  for (const Step& s : t.steps)
    if (s.id == id) {
      std::string out;
      for (const std::string& n : s.notes) out += n + "\n";
      return out;
    }
  FAIL("no step " << id);
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Place {
  const char* label;    // the name for it
  const char* lesson;
  const char* step;
  const char* quote;    // the seed's words, as both languages quote them
  const char* en_says;  // the English translation or verdict, in the en note
  const char* zh_says;  // the verdict in the zh note
};

const Place kPlaces[] = {
    {"C5", "mha", "split_heads", "把嵌入维度 d 拆成 h 份", "nothing of the input is cut", "输入的任何部分都没有被切开"},
    {"C45", "block", "output", "├──→ FFN", "They are not side by side", "它们并不是并列的"},
    {"V13", "qkv-roles", "ablation_qk", "但书里是空白的", "The pages are not blank", "书并不是空白的"},
    {"V14", "qkv-roles", "roles", "权重矩阵：是模型唯一可以学习的地方", "LayerNorm's γ and β", "LayerNorm 的 γ 和 β"},
    {"V17", "gate", "params", "显存爆炸：每多一组矩阵", "nothing to the KV cache", "KV 缓存一点也没有增加"},
    {"V19", "mla", "input", "在 2025 年的一些更前沿的模型（如 DeepSeek-V3）中", "DeepSeek-V2\n    introduced it",
     "它由 DeepSeek-V2 提出（arXiv:2405.04434，2024 年 5 月）"},
    {"V22", "mla", "absorb", "还原成多头需要的 K 和 V", "K_C\n    and V_C are never formed", "K_C 和 V_C 从未生成"},
    {"V24", "mla", "decode_cost", "又没有增加额外的计算步骤", "Against an uncompressed cache it is not free", "它并不是免费的"},
    {"V26", "mla", "rope_on_latent", "解压后位置信息会乱掉", "What fails is absorption", "失败的是吸收"},
};

}  // namespace

TEST_CASE("seed verdicts: each of the nine places quotes the seed and says what is true, en and zh", "[wording][seed]") {
  for (const Place& p : kPlaces) {
    INFO(p.label << ": lesson " << p.lesson << ", step " << p.step);
    TestConfig en;
    const std::string e = notes_of(run_lesson(p.lesson, en), p.step);
    CHECK(has(e, p.quote));
    // The en catalog's continuation lines are joined with one space: match the verdict either way.
    std::string says = p.en_says;
    for (std::size_t i; (i = says.find("\n    ")) != std::string::npos;) says.replace(i, 5, " ");
    CHECK(has(e, says));
    CHECK((has(e, "The chapter") || has(e, "The conversation")));
    TestConfig zh;
    zh.lang = Lang{"zh"};
    const std::string z = notes_of(run_lesson(p.lesson, zh), p.step);
    CHECK(has(z, p.quote));
    CHECK(has(z, p.zh_says));
    CHECK((has(z, "本章") || has(z, "对话里说")));
  }
}

TEST_CASE("seed verdicts: the numbers in them are the lesson's", "[wording][seed]") {
  // V24: DeepSeek-V3's absorbed path, 2.33x the multiply-adds for 57x fewer numbers read (mla step decode_cost).
  const std::string v24 = notes_of(run_lesson("mla"), "decode_cost");
  CHECK(has(v24, "does 2.33× the naive path's multiply-adds to read 57.0× fewer numbers"));
  // V17: the gate adds a quarter of attention's parameters when h·d_k = d_model.
  CHECK(has(notes_of(run_lesson("gate"), "params"), "it adds 25% to attention's parameters here"));
}

TEST_CASE("claims never shown: one loss, not one per head, and Xavier and Kaiming beside N(0, 0.02²)", "[wording][seed][symmetry]") {
  for (const char* lang : {"en", "zh"}) {
    INFO(lang);
    TestConfig c;
    c.lang = Lang{lang};
    Trace t = run_lesson("symmetry", c);
    const std::string g = notes_of(t, "gradients"), i = notes_of(t, "init");
    CHECK(has(g, "它的 Loss 降低了"));
    CHECK(has(g, lang == std::string("en") ? "A head has no loss of its own: the model has one loss" : "一个头并没有自己的损失：整个模型只有一个损失"));
    // d_model 8 by default: Xavier √(2/16) = 0.3536, Kaiming √(2/8) = 0.5000.
    CHECK(has(i, "0.3536"));
    CHECK(has(i, "0.5000"));
    CHECK(has(i, "Xavier 或 Kaiming"));
  }
}

TEST_CASE("claims never shown: the conversation's Base 8/12, Large 16 heads beside published configurations", "[wording][seed][mha]") {
  for (const char* lang : {"en", "zh"}) {
    INFO(lang);
    TestConfig c;
    c.lang = Lang{lang};
    const std::string n = notes_of(run_lesson("mha", c), "params");
    CHECK(has(n, "Base 模型：通常有 8 个或 12 个头。Large 模型：通常有 16 个头"));
    CHECK(has(n, lang == std::string("en") ? "8 and 12 heads in the base sizes, 16 in the large ones, 96 in GPT-3"
                                           : "base 规模是 8 个和 12 个头，large 规模是 16 个，GPT-3 是 96 个"));
    CHECK(has(n, lang == std::string("en") ? "stays between 64 and 128" : "始终在 64 到 128 之间"));
  }
}

TEST_CASE("claims never shown: Qwen3 uses GQA below 14B too, and came out in April 2025", "[wording][seed][gqa]") {
  TestConfig c;
  const std::string en = notes_of(run_lesson("gqa", c), "in_practice");
  CHECK(has(en, "在 14B 以上的大尺寸模型中"));
  CHECK(has(en, "Qwen3 came out at the end of April 2025"));
  CHECK(has(en, "Qwen3 8B has 32 query heads sharing 8 KV heads"));
  c.lang = Lang{"zh"};
  const std::string zh = notes_of(run_lesson("gqa", c), "in_practice");
  CHECK(has(zh, "Qwen3 于 2025 年 4 月底发布"));
  CHECK(has(zh, "Qwen3 8B 有 32 个查询头共享 8 个 KV 头"));
}

}  // namespace file_test_seed_verdicts
