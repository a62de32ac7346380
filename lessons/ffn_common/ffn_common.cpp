#include "ffn_common/ffn_common.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "errors.h"

namespace attn {

namespace {

ChapterFfn load_chapter_ffn() {
  auto text = embedded_file("chapter/ffn_walkthrough.json");
  if (!text) throw std::logic_error("data/chapter/ffn_walkthrough.json is not bundled");
  nlohmann::json j = nlohmann::json::parse(*text);
  ChapterFfn ch;
  ch.d_model = j.at("d_model").get<std::size_t>();
  ch.d_ff = j.at("d_ff").get<std::size_t>();
  ch.x = j.at("x").get<std::vector<double>>();
  ch.z_printed = j.at("z_printed").get<std::vector<double>>();
  ch.h_printed = j.at("h_printed").get<std::vector<double>>();
  ch.h_decimals = j.at("h_decimals").get<int>();
  ch.output_printed = j.at("output_printed").get<std::vector<double>>();
  if (ch.x.size() != ch.d_model || ch.z_printed.size() != ch.h_printed.size())
    throw std::logic_error("data/chapter/ffn_walkthrough.json: sizes disagree");
  return ch;
}

}  // namespace

const ChapterFfn& chapter_ffn() {
  static const ChapterFfn ch = load_chapter_ffn();
  return ch;
}

FfnInput resolve_ffn_input(const LessonConfig& c) {
  const ChapterFfn& ch = chapter_ffn();
  if (c.x) {
    std::vector<double> x = parse_numbers(*c.x, "--x");
    if (c.d_model && *c.d_model != static_cast<std::int64_t>(x.size()))
      throw UsageError(fmt::format("--x has {} numbers but --d-model is {}; give {} numbers or drop --d-model",
                                   x.size(), *c.d_model, *c.d_model));
    return {x.size(), x};
  }
  std::size_t D = positive(c.d_model, ch.d_model, "--d-model");
  if (D == ch.d_model) return {D, ch.x};
  return {D, std::nullopt};
}

Tensor input_tensor(const FfnInput& in, Rng& rng) {
  if (in.x) return Tensor({in.D}, *in.x);
  return randn(rng, {in.D});  // (D)
}

Activation resolve_activation(const LessonConfig& c) {
  if (!c.activation) return Activation::Gelu;
  auto a = activation_from_name(*c.activation);
  if (!a)
    throw UsageError(fmt::format("--activation: '{}' is not one of gelu, gelu-tanh, relu, silu", *c.activation));
  return *a;
}

std::string activation_title(Lang lang, Activation a) {
  switch (a) {
    case Activation::Gelu: return tr(lang, "GELU (exact, x·Φ(x))", "GELU（精确式 x·Φ(x)）");
    case Activation::GeluTanh: return tr(lang, "GELU (tanh approximation)", "GELU（tanh 近似）");
    case Activation::Relu: return "ReLU";
    case Activation::Silu: return "SiLU";
  }
  throw std::logic_error("activation_title: unknown activation");
}

std::vector<std::string> numbered(std::size_t n, const std::string& prefix) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i + 1));
  return out;
}

std::size_t record_chapter_gelu_check(Recorder& r) {
  const ChapterFfn& ch = chapter_ffn();
  std::size_t n = ch.z_printed.size();
  const Tensor& z = r.tensor("chapter_z", Tensor({n}, ch.z_printed),
                             r.tr("z as the chapter prints it (section 3.2)", "本章 3.2 节印出的 z"));
  const Tensor& printed = r.tensor("chapter_h_printed", Tensor({n}, ch.h_printed),
                                   r.tr("GELU(z) as the chapter prints it", "本章印出的 GELU(z)"));
  const Tensor& exact = r.tensor("chapter_h_gelu", apply(z, gelu), r.tr("GELU(z) computed, exact erf form", "计算所得的 GELU(z)，精确 erf 形式"));
  const Tensor& approx = r.tensor("chapter_h_gelu_tanh", apply(z, gelu_tanh), r.tr("GELU(z) computed, tanh approximation", "计算所得的 GELU(z)，tanh 近似"));
  int dp = ch.h_decimals;
  Table t{{"z", r.tr("chapter printed", "本章印出"), r.tr("GELU exact", "GELU 精确值"),
           r.fmt("rounded to {} places", "保留 {} 位", dp), r.tr("tanh approx.", "tanh 近似"), r.tr("verdict", "结论")},
          {}};
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double shown = round_to(exact.data[i], dp);
    bool ok = std::fabs(shown - printed.data[i]) < 1e-9;
    t.rows.push_back({z.data[i], printed.data[i], exact.data[i], fixed(shown, dp), approx.data[i],
                      std::string(ok ? r.tr("right", "正确") : r.tr("WRONG", "有误"))});
    if (ok) continue;
    ++wrong;
    bool tanh_explains = std::fabs(round_to(approx.data[i], dp) - printed.data[i]) < 1e-9;
    r.note(r.fmt("GELU({0}) = {1} ({2} to {3} places), but the chapter printed {4}: off by {5}. {6}",
                 "GELU({0}) = {1}（保留 {3} 位为 {2}），本章却印成 {4}：相差 {5}。{6}", fixed(z.data[i], 1),
                 fixed(exact.data[i], 4), fixed(shown, dp), dp, fixed(printed.data[i], dp),
                 fixed(std::fabs(shown - printed.data[i]), dp),
                 tanh_explains ? r.tr("The tanh approximation would give the printed value.", "tanh 近似倒能给出印出的值。")
                               : r.fmt("The tanh approximation does not explain it either ({}).",
                                       "tanh 近似也解释不了（{}）。", fixed(approx.data[i], 4))));
  }
  r.table(t);
  r.value("chapter_values_wrong", I(wrong), r.tr("printed GELU values that are wrong", "印错的 GELU 值个数"));
  r.value("chapter_values_checked", I(n), r.tr("printed GELU values checked", "核对的 GELU 值个数"));
  return wrong;
}

}  // namespace attn
