#include "ffn_common/ffn_common.h"

#include <cmath>

#include "errors.h"

namespace attn {

FfnInput resolve_ffn_input(const std::optional<std::string>& given, const std::optional<std::int64_t>& d_model) {
  const ChapterFfn& ch = chapter_ffn();
  if (given) {
    std::vector<double> x = parse_numbers(*given, "--x");
    if (d_model && *d_model != static_cast<std::int64_t>(x.size()))
      throw UsageError("ffn_common.err.x_vs_d_model", {{"count", x.size()}, {"d_model", *d_model}});
    return {x.size(), x};
  }
  std::size_t D = positive(d_model, ch.d_model, "--d-model");
  if (D == ch.d_model) return {D, ch.x};
  return {D, std::nullopt};
}

Tensor input_tensor(const FfnInput& in, Rng& rng) {
  if (in.x) return Tensor({in.D}, *in.x);
  return randn(rng, {in.D});  // (D)
}

Activation resolve_activation(const std::optional<std::string>& activation) {
  if (!activation) return Activation::Gelu;
  auto a = activation_from_name(*activation);
  if (!a) throw UsageError("ffn_common.err.activation", {{"value", *activation}});
  return *a;
}

std::vector<std::string> numbered(std::size_t n, const std::string& prefix) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i + 1));
  return out;
}

std::size_t record_chapter_gelu_check(LessonRecorder& r) {
  const ChapterFfn& ch = chapter_ffn();
  std::size_t n = ch.z_printed.size();
  const Tensor& z = r.tensor("chapter_z", Tensor({n}, ch.z_printed));                // (N)
  const Tensor& printed = r.tensor("chapter_h_printed", Tensor({n}, ch.h_printed));  // (N)
  int dp = ch.h_decimals;
  GeluCheck g = check_printed_gelu(z, printed, dp);
  r.tensor("chapter_h_gelu", g.exact);        // (N)
  r.tensor("chapter_h_gelu_tanh", g.approx);  // (N)
  Table t{{"z", r.t("check.col.printed"), r.t("check.col.exact"), r.t("check.col.rounded", {{"places", dp}}),
           r.t("check.col.tanh"), r.t("check.col.verdict")},
          {}};
  for (std::size_t i = 0; i < n; ++i)
    t.rows.push_back({z.data[i], printed.data[i], g.exact.data[i], fixed(g.rounded.data[i], dp), g.approx.data[i],
                      r.t(g.right[i] ? "check.right" : "check.wrong")});
  for (std::size_t i = 0; i < n; ++i) {
    if (g.right[i]) continue;
    r.note("check.note_wrong", {{"z", z.data[i]},
                                {"exact", g.exact.data[i]},
                                {"rounded", fixed(g.rounded.data[i], dp)},
                                {"places", dp},
                                {"printed", fixed(printed.data[i], dp)},
                                {"off", fixed(std::fabs(g.rounded.data[i] - printed.data[i]), dp)},
                                {"tanh_explains", static_cast<bool>(g.tanh_explains[i])},
                                {"tanh", g.approx.data[i]}});
  }
  r.table(t);
  r.value("chapter_values_wrong", I(g.wrong));
  r.value("chapter_values_checked", I(n));
  return g.wrong;
}

}  // namespace attn
