// Issue 29, "Chinese": wording a Chinese textbook would use. Each phrase the second read flagged is
// gone from every zh catalog, and its replacement is where the message is.
#include <catch2/catch.hpp>

#include <string>

#include "catalog.h"
#include "lesson.h"
#include "lesson_args.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_zh_wording {

using namespace attn;

namespace {

const std::string& zh_message(const std::string& key) {
  static const std::string none;
  for (const CatalogFile& f : all_catalogs())
    if (f.lang == "zh")
      if (auto it = f.messages.find(key); it != f.messages.end()) return it->second;
  FAIL("no zh message " << key);
  return none;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("zh: the phrases the second read flagged are gone from every catalog", "[wording][zh]") {
  const char* flagged[] = {"W_O 就是各头发现汇总的地方", "Q、K、V 两者都不是", "更长且方向相近", "人人同一个平均",
                           "分别作 MHA、分 4 组、作 MQA", "共用一个键头和一个值头", "只因权重不同", "该词元 有门/无门 的",
                           "一句话讲给朋友听", "x 之后的数值是我们自己的", "GPU 喜欢整齐的宽度", "大声写出",
                           "记忆被调了出来", "LayerNorm 过的副本", "要加进去的东西", "一处一处看", "注意力与 FFN 之比",
                           "本课 specialize", "本课 {lesson}", "受限于 算术", "不是算术", "在等算术", "第二份拷贝",
                           "第一份拷贝", "共享的输出嵌入", "约为 117M"};
  for (const CatalogFile& f : all_catalogs()) {
    if (f.lang != "zh") continue;
    for (const auto& [key, pattern] : f.messages)
      for (const char* bad : flagged) {
        INFO(key << ": " << pattern);
        CHECK(!has(pattern, bad));
      }
  }
}

TEST_CASE("zh: the replacements", "[wording][zh]") {
  CHECK(has(zh_message("mha.mix.text"), "各头的结果正是在 W_O 这里汇合"));
  CHECK(has(zh_message("qkv_roles.roles.text"), "Q、K、V 既不是超参数，也不是参数"));
  CHECK(has(zh_message("qkv_roles.compare.note_summary"), "(b) 每个词元得到同一个平均值"));
  CHECK(has(zh_message("kv_sharing.kv_cache.note"), "分别按 MHA、分成 4 组的 GQA 和 MQA 计"));
  CHECK(has(zh_message("mqa.input.text"), "共享同一个键头和同一个值头"));
  CHECK(zh_message("gate.value.silenced_ratio") == "该词元有门与无门时 |output| 的比值");
  CHECK(zh_message("specialize.why.title") == "用一句话向朋友解释");
  CHECK(has(zh_message("block.output.title"), "逐个词元来看"));
  CHECK(has(zh_message("calc.params.layer_share"), "各占的参数比例"));
  CHECK(has(zh_message("calc.preset.gpt2.note"), "约记为 117M"));
  CHECK(zh_message("decode.roofline.col.bound") == "瓶颈");
  CHECK(zh_message("decode.roofline.memory") == "访存受限");
  CHECK(has(zh_message("symmetry.real_setup.text"), "specialize 一课的任务"));
  CHECK(has(zh_message("induction.task.note_model"), "与词元嵌入共享权重的输出层"));
  CHECK(has(zh_message("specialize.models.text"), "与词元嵌入共享权重的输出层"));
  CHECK(zh_message("render.header") == "attnlab · {lesson} 一课");
}

TEST_CASE("zh: step lists show each step's title beside its ASCII id, joined with 、", "[wording][zh][cli]") {
  CliResult zh = run_cli("lesson mha --lang zh --step nope");
  CHECK(zh.code == 2);
  CHECK(has(zh.err, "1 input（输入 X）、2 project（"));
  CliResult en = run_cli("lesson mha --lang en --step nope");
  CHECK(has(en.err, "1 input, 2 project,"));
  CliResult shown = run_cli("lesson mha --lang zh --color never --step 1,2");
  CHECK(has(shown.out, "1 input（输入 X）、2 project（"));
}

TEST_CASE("zh: kv-memory's table headers and gelu's settings line are in Chinese", "[wording][zh][cli]") {
  CliResult kv = run_cli("lesson kv-memory --lang zh --color never --step match");
  CHECK(has(kv.out, "匹配值 match"));
  CHECK(has(kv.out, "激活值 activation"));
  CliResult gelu = run_cli("lesson gelu --lang zh --color never --step values");
  CHECK(has(gelu.out, "取值=本章"));
  CHECK(!has(gelu.out, "=chapter"));
  CHECK(has(run_cli("lesson gelu --lang en --color never --step values").out, "values=chapter"));
}

TEST_CASE("zh: an HTML chart's legend gives each series' meaning in the run's language", "[wording][zh][html]") {
  // Before: the legend showed only the tensor names (curve_gelu, curve_silu, …).
  const std::string page = "/tmp/attnlab_test_zh_legend_" + std::to_string(::getpid()) + ".html";
  CliResult r = run_cli("lesson gelu --lang zh --html " + page);
  REQUIRE(r.code == 0);
  const std::string html = slurp(page);
  std::remove(page.c_str());
  CHECK(has(html, "<code>curve_gelu</code><span>GELU 精确</span>"));
  CHECK(has(html, "<code>curve_silu</code><span>SiLU</span>"));
}

// Issue 52: the third read's table (shared/notes/truth-read-3.md, "Chinese of the new steps"), one
// row each: the flagged phrase is gone from its message and the replacement is there.
TEST_CASE("zh: the third read's 27 wordings", "[wording][zh]") {
  struct Row {
    const char* key;
    const char* gone;
    const char* now;
  };
  const Row rows[] = {
      {"tradeoffs.question.title", "比赛", "问题与一组公平的对比实验"},                                  // 1
      {"tradeoffs.question.text", "测量质量这一面", "本课则测量质量"},                                   // 2
      {"tradeoffs.question.text", "学习率安排相同", "学习率调度相同"},                                   // 3
      {"tradeoffs.question.text", "每次训练看到同样的", "同一种子下各变体"},                              // 4
      {"tradeoffs.question.text", "少多少就把 FFN 加宽多少", "注意力参数的增减由 FFN 宽度抵消"},          // 5
      {"tradeoffs.question.note_matched", "不到 FFN 的一列", "不到 FFN 中间层一个单元的参数量"},          // 6
      {"tradeoffs.results.text", "抽签运气", "极差是衡量标准：只换随机种子时，结果会变动这么多"},          // 7
      {"tradeoffs.results.note_time", "墙钟时间", "实际耗时（挂钟时间）"},                               // 8
      {"tradeoffs.cache.text", "部署工程师为左边一列付钱", "部署成本看“每词元缓存字节数”一列，用户体验看“损失中位数”一列"},  // 9
      {"tradeoffs.verdicts.title", "结论，由数字算出", "由数字算出的结论"},                              // 10
      {"tradeoffs.verdicts.short", "在波动之内", "分不出高下"},                                          // 11
      {"tradeoffs.verdicts.short", "为极差的", "损失更高：更差"},                                       // 12
      {"tradeoffs.verdicts.test", "{a} {lower", "{a}的全部"},                                        // 13
      {"tradeoffs.verdicts.test", "在这个规模上二者分不出高下", "仅凭 {n} 个种子还分不出"},           // 14
      {"tradeoffs.scale.text", "在难的基准上", "在高难度基准上"},                                        // 15
      {"tradeoffs.scale.text", "数以十亿计的词元", "1.33T 个词元"},                                      // 16
      {"induction.tensor.text_induction_score", "放在同一字符对上一次出现之后那个字符上的平均权重",
       "分给“同一字符对上次出现处的下一个字符”的平均注意力"},                                            // 17
      {"induction.value.text_threshold", "一个头被认定所需的比例", "判定为该角色所需的最低注意力份额"},   // 18
      {"induction.value.text_repeat_loss", "文本模型在经文中照抄能预测下一个字符之处的损失",
       "在“照抄即可预测下一字符”的位置上，文本模型的平均损失"},                                          // 19
      {"induction.text.note_ablation", "付出", "模型的损失为 {loss:.3f} nat"},                           // 20
      {"induction.text.note_recipe", "按原样", "随工具发布、在原始文本（无人为重复）上训练的 text-en 模型"},  // 21
      {"specialize.seeds.note", "自带的那个种子", "上面的图只画了随附的种子 {shipped}"},                 // 22
      {"symmetry.seeds.note", "有 {clones_higher} 个种子上", "在全部 {seeds} 个种子上，克隆头的最终损失都高于随机起点"},  // 23
      {"symmetry.real_train.note_width", "比较要同类相比", "要同类相比"},                                 // 24
      {"mla.real.text", "也就是注意力读到的东西", "即注意力层的输入"},                                    // 25
      {"mla.cache.row.v2_6bit", "重构", "我们对论文中 93.3% 的推算"},                                    // 26
      {"checkpoint.generate.as_text", "作为文字", "提示词及续写（文本）"},                               // 27
  };
  for (const Row& r : rows) {
    INFO(r.key << ": " << zh_message(r.key));
    CHECK(!has(zh_message(r.key), r.gone));
    CHECK(has(zh_message(r.key), r.now));
  }
  // the rows' other parts
  CHECK(has(zh_message("specialize.why.note_friend"), "而不是无法逾越的障碍"));
  CHECK(has(zh_message("symmetry.seeds.text"), "与随机种子无关"));
  CHECK(has(zh_message("symmetry.real_train.note"), "让它们分别承担不同的关系"));
  CHECK(has(zh_message("mla.real.text"), "矩阵吸收的代数关系"));
  CHECK(has(zh_message("mla.absorb.note_seed"), "采用矩阵吸收后根本不会解压"));
  CHECK(has(zh_message("mla.decode_cost.note_seed"), "读取量降到 1/{read_less:.1f}"));
  CHECK(has(zh_message("mla.cache.note_seven_percent"), "若以 MHA 为基准则不成立"));
  CHECK(has(zh_message("checkpoint.heads.reading"), "停放在"));
  CHECK(has(zh_message("specialize.summary"), "在 5 个随机种子上实际训练"));
  CHECK(has(zh_message("induction.summary"), "在训练中形成"));
  CHECK(!has(zh_message("induction.summary"), "长出"));
}

TEST_CASE("zh: the open items of the last list: one latent term, one projection pair, Φ, no ASCII comma in lists", "[wording][zh]") {
  for (const CatalogFile& f : all_catalogs()) {
    if (f.lang != "zh") continue;
    for (const auto& [key, pattern] : f.messages) {
      INFO(key << ": " << pattern);
      CHECK(!has(pattern, "潜在向量"));  // 潜向量 everywhere (多头潜在注意力 stays MLA's name)
      CHECK(!has(pattern, "潜空间"));
      CHECK(!has(pattern, "上投影"));    // 升维 / 降维, as the glossary says
      CHECK(!has(pattern, "下投影"));
      CHECK(!has(pattern, "标准正态分布函数"));
    }
  }
  CHECK(has(zh_message("gelu.values.text"), "Φ：标准正态分布的累积分布函数"));
  CHECK(has(zh_message("tradeoffs.variant.mla-32"), "潜向量"));
  CHECK(has(zh_message("mla.tensor.c_KV"), "潜向量"));
  CHECK(has(zh_message("common.config.latent_dim"), "潜向量维度"));
  CHECK(has(zh_message("llama.tensor.W_up"), "升维投影"));
  CHECK(zh_message("common.list.join") == "{list}、{item}");
  CHECK(zh_message("common.list.last") == "{list} 和 {item}");
  // the seeds where one head ends lower, on screen (one seed, 2, since the fused retrain; the joining of
  // a longer list is checked on common.list.join and list.last above)
  CliResult r = run_cli("lesson specialize --step seeds --lang zh --color never");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "在种子 2"));
  CHECK(!has(r.out, "2, "));
}

}  // namespace file_test_zh_wording
