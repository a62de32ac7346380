// The terminal renderer: exact strings, the way fmt tests its output.
#include <catch2/catch.hpp>

#include "json_writer.h"
#include "terminal.h"
#include "text.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_render {

using namespace attn;

TEST_CASE("display width counts Chinese characters as two columns", "[render]") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("小明") == 4);
  CHECK(display_width("北京x") == 5);
  CHECK(pad_right("小明", 6) == "小明  ");
  CHECK(pad_left("在", 4) == "  在");
}

TEST_CASE("numbers are formatted without surprises", "[render]") {
  CHECK(with_commas(2359296) == "2,359,296");
  CHECK(with_commas(-1234) == "-1,234");
  CHECK(with_commas(0) == "0");
  CHECK(fixed(-0.00001, 4) == "0.0000");  // never "-0.0000"
  CHECK(fixed(-1.23456, 2) == "-1.23");
  CHECK(binary_size(131072) == "128.0 KiB");
  CHECK(binary_size(3) == "3 B");
  CHECK(format_scalar(0.0, 4) == "0");
  CHECK(format_scalar(2.22e-16, 4) == "2.22e-16");
  CHECK(format_scalar(std::int64_t{4722432}, 4) == "4,722,432");
}

TEST_CASE("a tensor prints with aligned columns and token labels", "[render]") {
  TraceTensor t{Tensor({2, 2}, {1.5, -0.25, 10, 0}), "meaning", Labels{.rows = {"小明", "in"}}};
  RenderOptions opt;
  opt.precision = 2;
  std::string out = render_tensor("X", t, Trace{}, opt);
  CHECK(out ==
        "X  [2, 2]  meaning\n"
        "  小明     1.50  -0.25\n"
        "  in      10.00   0.00\n");
}

TEST_CASE("a large tensor is summarized with its first and last rows and columns", "[render]") {
  Tensor big({40, 40});
  for (std::size_t i = 0; i < big.numel(); ++i) big.data[i] = static_cast<double>(i);
  TraceTensor t{big, "m", {}};
  RenderOptions opt;
  opt.precision = 0;
  std::string out = render_tensor("A", t, Trace{}, opt);
  // 3 rows, a "⋮" row, 3 rows; each row 3 numbers, "…", 3 numbers
  CHECK(out.find("\n       0     1     2     …    37    38    39\n") != std::string::npos);
  CHECK(out.find("\n    1560  1561  1562     …  1597  1598  1599\n") != std::string::npos);
  CHECK(out.find("    40") != std::string::npos);
  CHECK(out.find("    160 ") == std::string::npos);  // row 4 is summarized away
  CHECK(out.find("⋮") != std::string::npos);
  opt.full = true;
  CHECK(render_tensor("A", t, Trace{}, opt).find("…") == std::string::npos);
}

TEST_CASE("text wraps at word boundaries and inside Chinese text", "[render]") {
  CHECK(wrap("aaa bbb ccc", 9, "  ") == "  aaa bbb\n  ccc\n");
  // 8 Chinese characters = 16 columns; width 10 with a 2-column indent fits 4 per line
  CHECK(wrap("一二三四五六七八", 10, "  ") == "  一二三四\n  五六七八\n");
}

TEST_CASE("an opening quote or bracket never ends a wrapped line", "[render]") {
  // "在“看哪里”" at width 2 + 6: without the rule the line would end in "“"
  CHECK(wrap("一二在“看哪里”", 8, "  ") == "  一二在\n  “看哪\n  里”\n");
  CHECK(wrap("一二三（与", 8, "  ") == "  一二三\n  （与\n");
}

TEST_CASE("every block of a rank-3 tensor shares one column width", "[render]") {
  TraceTensor t{Tensor({2, 1, 2}, {0.5, 0.25, 1.5, -0.125}), "m", Labels{}};
  RenderOptions opt;
  opt.precision = 2;
  // block 2's -0.12 is 5 wide, so block 1's numbers are padded to 5 too
  CHECK(render_tensor("H", t, Trace{}, opt) ==
        "H  [2, 1, 2]  m\n"
        "  head 1\n"
        "     0.50   0.25\n"
        "  head 2\n"
        "     1.50  -0.12\n");
}

TEST_CASE("a chart series that is mostly gaps prints only its numbers, under their indices", "[render]") {
  Trace trace;
  trace.ui["series_gaps"] = "gaps";
  TraceTensor t{Tensor({5}, {NAN, NAN, 1.25, 2.5, NAN}), "m", Labels{}};
  RenderOptions opt;
  opt.precision = 2;
  CHECK(render_tensor("at", t, trace, opt) ==
        "at  [5]  m\n"
        "  gaps\n"
        "     [2]   [3]\n"
        "    1.25  2.50\n");
  TraceTensor none{Tensor({3}, {NAN, NAN, NAN}), "m", Labels{}};
  CHECK(render_tensor("at", none, trace, opt) == "at  [3]  m\n  gaps\n");
}

TEST_CASE("a heatmap numbers its columns from 1, or from 0 when its rows are positions from 0", "[render]") {
  Trace trace;
  TraceTensor t{Tensor({1, 2, 2}, {1, 0, 0.5, 0.5}), "m", Labels{.rows = {"0:7", "1:3"}, .heatmap = true}};
  RenderOptions opt;
  // the lead: 2 spaces, the 3-wide row labels and 2 more; then one 2-wide cell per column
  CHECK(render_heatmap(t, trace, opt) == "  heatmap\n        1 2\n  0:7  @@  \n  1:3  ++++\n  heatmap_legend_ramp\n");
  t.labels.first = 0;
  CHECK(render_heatmap(t, trace, opt) == "  heatmap\n        0 1\n  0:7  @@  \n  1:3  ++++\n  heatmap_legend_ramp\n");
}

TEST_CASE("the JSON trace writes -inf as null and keeps every tensor", "[render]") {
  Recorder r("demo", Lang::En);
  r.config("seed", std::int64_t{1});
  r.step("s", "title", "text");
  r.tensor("scores", Tensor({2}, {1.0, -std::numeric_limits<double>::infinity()}), "m");
  r.value("d_k", std::int64_t{4});
  std::string json = trace_to_json(r.finish());
  CHECK(json.find("\"schema\":\"attnlab.trace/2\"") != std::string::npos);
  CHECK(json.find("\"data\":[1,null]") != std::string::npos);
  CHECK(json.find("\"values\":{\"d_k\":4}") != std::string::npos);
}

TEST_CASE("a word right after Chinese punctuation may start the next line", "[render]") {
  // "用；DeepSeek": the break goes after the full-width semicolon, not before "用"
  CHECK(wrap("一二三用；DeepSeek", 12, "  ") == "  一二三用；\n  DeepSeek\n");
  // a closing quote still never starts a line
  CHECK(wrap("一二三四”五", 11, "  ") == "  一二三四”\n  五\n");
  CHECK(wrap("一二三四”五", 10, "  ") == "  一二三\n  四”五\n");
}

TEST_CASE("a config text holding a control character is recorded escaped, so that render reads the trace", "[render]") {
  Recorder r("demo", Lang::En);
  r.config("weights", std::string("/tmp/ck\x01t"));
  r.config("tokens", std::vector<std::string>{"a", "b\x1b[31m"});
  r.config("plain", std::string("小明 x\\y"));
  Trace t = r.finish();
  CHECK(std::get<std::string>(t.config[0].value) == "/tmp/ck\\x01t");
  CHECK(std::get<std::vector<std::string>>(t.config[1].value)[1] == "b\\x1b[31m");
  CHECK(std::get<std::string>(t.config[2].value) == "小明 x\\y");  // clean text is kept as it is
}

TEST_CASE("an opening quote followed by a space stays with the next word", "[render]") {
  CHECK(wrap("一二三四“ abc", 12, "  ") == "  一二三四\n  “ abc\n");
}

}  // namespace file_test_render
