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

}  // namespace file_test_zh_wording
