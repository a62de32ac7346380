// Lesson `gelu`: the activations of section 3 and 4 at the values you choose.
//   GELU exact  x·Φ(x) = 0.5 x (1 + erf(x/√2))
//   GELU tanh   0.5 x (1 + tanh(√(2/π)(x + 0.044715 x³)))
//   SiLU        x·σ(x)            ReLU  max(0, x)
// Legend: N = how many values, P = points of the plotted grid. Words: lessons/gelu/LANG.cat.
#include "errors.h"
#include "ffn.h"
#include "ffn_common/ffn_common.h"

namespace attn {

namespace {

constexpr double kPlotLo = -4.0, kPlotHi = 4.0;
constexpr std::size_t kPlotPoints = 161;  // a step of 0.05

// Everything the lesson shows, computed before any narration.
struct Gelu {
  Tensor values;                          // (N)
  Tensor gelu, gelu_tanh, silu, relu;     // (N) each
  Tensor gelu_tanh_error;                 // (N): tanh form − exact
  Tensor curve_x;                         // (P)
  Tensor curve_gelu, curve_gelu_tanh, curve_silu, curve_relu;  // (P) each
  std::size_t gelu_min, silu_min;         // where each curve is lowest on the grid
};

Gelu compute(const std::vector<double>& v) {
  Gelu g;
  g.values = Tensor({v.size()}, v);
  g.gelu = apply(g.values, gelu);
  g.gelu_tanh = apply(g.values, gelu_tanh);
  g.silu = apply(g.values, silu);
  g.relu = apply(g.values, relu);
  g.gelu_tanh_error = sub(g.gelu_tanh, g.gelu);
  g.curve_x = linspace(kPlotLo, kPlotHi, kPlotPoints);
  g.curve_gelu = apply(g.curve_x, gelu);
  g.curve_gelu_tanh = apply(g.curve_x, gelu_tanh);
  g.curve_silu = apply(g.curve_x, silu);
  g.curve_relu = apply(g.curve_x, relu);
  g.gelu_min = index_of_min(g.curve_gelu);
  g.silu_min = index_of_min(g.curve_silu);
  return g;
}

void step_values(LessonRecorder& r, const Gelu& g, bool chapter) {
  r.step("values");
  r.tensor("values", g.values, {}, {{"chapter", chapter}});  // (N)
}

void step_compute(LessonRecorder& r, const Gelu& g) {
  r.step("compute");
  r.tensor("gelu", g.gelu);
  r.tensor("gelu_tanh", g.gelu_tanh);
  r.tensor("silu", g.silu);
  r.tensor("relu", g.relu);
  r.tensor("gelu_tanh_error", g.gelu_tanh_error);
  if (g.values.numel() <= 40) {
    Table t{{"x", r.t("compute.col.exact"), r.t("compute.col.tanh"), r.t("compute.col.error"), "SiLU", "ReLU"}, {}};
    for (std::size_t i = 0; i < g.values.numel(); ++i)
      t.rows.push_back({g.values.data[i], g.gelu.data[i], g.gelu_tanh.data[i], g.gelu_tanh_error.data[i],
                        g.silu.data[i], g.relu.data[i]});
    r.table(t);
  }
  r.value("max_tanh_error", max_abs(g.gelu_tanh_error));
}

void step_chapter(LessonRecorder& r) {
  r.step("chapter");
  std::size_t wrong = record_chapter_gelu_check(r);
  std::size_t n = chapter_ffn().z_printed.size();
  // How much of x GELU keeps, Φ(x) = GELU(x) / x, at a small and at a large positive x.
  r.note("chapter.note", {{"wrong", wrong},
                          {"right", n - wrong},
                          {"checked", n},
                          {"kept_03", 100.0 * gelu(0.3) / 0.3},
                          {"kept_08", 100.0 * gelu(0.8) / 0.8},
                          {"kept_2", 100.0 * gelu(2.0) / 2.0}});
}

void step_plot(LessonRecorder& r, const Gelu& g) {
  r.step("plot", {{"lo", kPlotLo}, {"hi", kPlotHi}});
  r.tensor("curve_x", g.curve_x);                  // (P)
  r.tensor("curve_gelu", g.curve_gelu);            // (P)
  r.tensor("curve_gelu_tanh", g.curve_gelu_tanh);  // (P)
  r.tensor("curve_silu", g.curve_silu);            // (P)
  r.tensor("curve_relu", g.curve_relu);            // (P)
  r.chart(Chart{r.t("plot.chart"), "curve_x", {"curve_gelu", "curve_silu", "curve_relu", "curve_gelu_tanh"}});
  r.value("gelu_min", g.curve_gelu.data[g.gelu_min]);
  r.value("gelu_min_at", g.curve_x.data[g.gelu_min]);
  r.value("silu_min", g.curve_silu.data[g.silu_min]);
  r.value("silu_min_at", g.curve_x.data[g.silu_min]);
  r.value("max_tanh_error_curve", max_abs_diff(g.curve_gelu_tanh, g.curve_gelu), {{"lo", kPlotLo}, {"hi", kPlotHi}});
}

// The lesson's options (lang and seed come with every run).
// The points are --x, as in ffn and swiglu (one flag for "the numbers an activation is evaluated
// at" across the three lessons); --values, the old name, still works and the run says so.
struct GeluOptions : RunContext {
  std::optional<std::string> x;       // --x
  std::optional<std::string> values;  // --values (the old name of --x)
};

void bind(OptionBinder& b, GeluOptions& o) {
  b.text("--x", o.x);
  b.text("--values", o.values);
}

Trace run(const GeluOptions& c) {
  LessonRecorder r("gelu", c.lang, {"gelu", "ffn_common"});
  if (c.x && c.values) throw UsageError("gelu.err.x_and_values", {{"a_flag", "--x"}, {"b_flag", "--values"}});
  const char* flag = c.values ? "--values" : "--x";
  const std::optional<std::string>& given = c.values ? c.values : c.x;
  bool chapter = !given;
  std::vector<double> v = chapter ? chapter_ffn().z_printed : parse_numbers(*given, flag);
  // each value: GELU, ReLU, the tanh form and their differences, in tensors, a table and the plot
  require_work([](double n) { return Work{20.0 * n, 10.0 * n}; }, v.size(), flag, flag);
  require_fits({v.size()}, flag, std::string("the number of ") + flag);
  if (c.values) r.header_note("note_values_old");
  r.config("values", chapter ? std::string("chapter") : std::string("custom"));
  r.config("n_values", I(v.size()));
  Gelu g = compute(v);

  step_values(r, g, chapter);
  step_compute(r, g);
  step_chapter(r);
  step_plot(r, g);
  return r.finish();
}

}  // namespace

extern const LessonInfo gelu_lesson = lesson_info<GeluOptions>("gelu", bind, run);

}  // namespace attn
