// Lesson `kv-memory`: section 3.4 of the chapter — the FFN as a key-value memory (Geva et al. 2021).
//   key j = column j of W_1 (with b_1[j]), value j = row j of W_2
//   y = Σ_j act(x·k_j + b_1[j]) · v_j + b_2
// with one memory planted by hand (data/kv_memory/paris.json): "capital of France" -> "Paris".
// Legend: D = features of the toy vectors (6), F = d_ff, K = --top-k.
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "errors.h"
#include "ffn.h"
#include "ffn_common/ffn_common.h"

namespace attn {

namespace {

constexpr double kBiasStd = 0.1;

struct Probe {
  std::string name_en, name_zh;
  std::vector<double> x;  // (D)
};

// data/kv_memory/paris.json: the planted key, bias and value, the feature names, two inputs.
struct PlantedMemory {
  std::vector<std::string> features_en, features_zh;
  std::size_t slot = 0;        // which key (0-based)
  std::vector<double> key;     // (D): column `slot` of W_1
  double bias = 0;             // b_1[slot]
  std::vector<double> value;   // (D): row `slot` of W_2
  std::vector<Probe> inputs;   // [0] matches the key, [1] does not
  std::size_t feature_a = 0, feature_b = 0;  // the two features the key looks for (France, capital-of)
  std::size_t answer = 0;                    // the feature its value writes (Paris)
};

const PlantedMemory& planted() {
  static const PlantedMemory m = [] {
    auto text = embedded_file("kv_memory/paris.json");
    if (!text) throw std::logic_error("data/kv_memory/paris.json is not bundled");
    nlohmann::json j = nlohmann::json::parse(*text);
    PlantedMemory p;
    p.features_en = j.at("features_en").get<std::vector<std::string>>();
    p.features_zh = j.at("features_zh").get<std::vector<std::string>>();
    p.slot = j.at("slot").get<std::size_t>();
    p.key = j.at("key").get<std::vector<double>>();
    p.bias = j.at("bias").get<double>();
    p.value = j.at("value").get<std::vector<double>>();
    for (const auto& in : j.at("inputs"))
      p.inputs.push_back({in.at("name_en").get<std::string>(), in.at("name_zh").get<std::string>(),
                          in.at("x").get<std::vector<double>>()});
    auto kf = j.at("key_features").get<std::vector<std::size_t>>();
    p.answer = j.at("answer_feature").get<std::size_t>();
    std::size_t D = p.features_en.size();
    if (kf.size() != 2 || kf[0] >= D || kf[1] >= D || p.answer >= D)
      throw std::logic_error("data/kv_memory/paris.json: bad key_features or answer_feature");
    p.feature_a = kf[0];
    p.feature_b = kf[1];
    if (p.features_zh.size() != D || p.key.size() != D || p.value.size() != D || p.inputs.size() != 2 ||
        p.inputs[0].x.size() != D || p.inputs[1].x.size() != D)
      throw std::logic_error("data/kv_memory/paris.json: vector sizes disagree");
    return p;
  }();
  return m;
}

struct Layer {
  Tensor W_1, b_1, W_2, b_2;  // (D, F), (F), (F, D), (D)
};

// Random keys and values from the seed, then the planted memory written into slot `m.slot`.
Layer build_layer(const PlantedMemory& m, std::size_t F, Rng& rng) {
  std::size_t D = m.key.size();
  Layer L{init_weight(rng, D, F), randn(rng, {F}, kBiasStd), init_weight(rng, F, D), randn(rng, {D}, kBiasStd)};
  for (std::size_t i = 0; i < D; ++i) {
    L.W_1(i, m.slot) = m.key[i];    // key: a column of W_1
    L.W_2(m.slot, i) = m.value[i];  // value: a row of W_2
  }
  L.b_1.data[m.slot] = m.bias;
  return L;
}

void step_convention(Recorder& r, const Layer& L, const Labels& keys, const Labels& values, std::size_t F) {
  r.step("convention", r.tr("Keys and values: which is a row, which a column", "键和值：哪个是行，哪个是列"),
         r.fmt("Section 3.4 says \"row j of W_1 is a key, column j of W_2 is a value\". That reads the formula "
               "FFN(x) = W_2 · act(W_1 · x + b_1) + b_2 with x a column vector, where W_1 is [4d, d]. But the "
               "chapter's shapes (W_1 ∈ R^(d×4d)) and its walk-through (x @ W_1) use row vectors, as attnlab does: "
               "x W_1 with W_1 of shape [d, 4d] — the transpose. In this convention:\n"
               "  key j   = column j of W_1 (with its bias b_1[j])\n"
               "  value j = row j of W_2\n"
               "Same vectors, stored transposed. (Geva et al. write f(x Kᵀ) V: K's rows are the keys, V's rows "
               "the values; our W_1 is Kᵀ and our W_2 is V.) This layer has {} keys and {} values.",
               "3.4 节说“W_1 的第 j 行是键，W_2 的第 j 列是值”。这是把公式 FFN(x) = W_2 · act(W_1 · x + b_1) + b_2 "
               "中的 x 看作列向量，此时 W_1 是 [4d, d]。但本章给出的形状（W_1 ∈ R^(d×4d)）和数值演示（x @ W_1）"
               "用的是行向量，attnlab 也一样：x W_1，W_1 的形状是 [d, 4d]——即转置。在这种写法里：\n"
               "  键 j = W_1 的第 j 列（以及它的偏置 b_1[j]）\n"
               "  值 j = W_2 的第 j 行\n"
               "向量相同，只是转置存放。（Geva 等人写作 f(x Kᵀ) V：K 的行是键，V 的行是值；我们的 W_1 就是 Kᵀ，"
               "W_2 就是 V。）这一层有 {} 个键、{} 个值。",
               F, F));
  r.tensor("W_1", L.W_1, r.tr("keys: column j is key j", "键：第 j 列是键 j"), keys);        // (D, F)
  r.tensor("b_1", L.b_1, r.tr("each key's bias (threshold)", "每个键的偏置（阈值）"),
           Labels{.cols = keys.cols});                                                         // (F)
  r.tensor("W_2", L.W_2, r.tr("values: row j is value j", "值：第 j 行是值 j"), values);      // (F, D)
  r.tensor("b_2", L.b_2, r.tr("output bias", "输出偏置"), Labels{.cols = values.cols});        // (D)
}

void step_planted(Recorder& r, const PlantedMemory& m, const Labels& feats) {
  r.step("planted", r.tr("A planted memory: capital of France → Paris", "植入的记忆：法国的首都 → 巴黎"),
         r.fmt("The toy vectors have {0} named features. Key {1} was written by hand (data/kv_memory/paris.json): "
               "weight on \"{2}\" and \"{3}\", bias {4}, so it fires only when both are present — the bias is a "
               "threshold that one feature alone cannot clear. Value {1} writes \"{5}\". Every other key and value "
               "is random. The chapter imagines this at key 1729 of GPT-2's 3072; here it is key {1} of a small "
               "layer.",
               "这些玩具向量有 {0} 个有名字的特征。键 {1} 是手工写入的（data/kv_memory/paris.json）：在“{2}”和“{3}”"
               "上有权重，偏置为 {4}，所以只有两者同时出现时它才会被激活——偏置是一道门槛，单凭一个特征跨不过去。"
               "值 {1} 写出“{5}”。其余的键和值都是随机的。本章设想它是 GPT-2 3072 个键中的第 1729 个；"
               "这里它是一个小层里的键 {1}。",
               m.key.size(), m.slot + 1, feats.cols[m.feature_a], feats.cols[m.feature_b], fixed(m.bias, 1),
               feats.cols[m.answer]));
  r.tensor("planted_key", Tensor({m.key.size()}, m.key), r.fmt("key {}, column {} of W_1", "键 {}，W_1 的第 {} 列", m.slot + 1, m.slot + 1), feats);
  r.tensor("planted_value", Tensor({m.value.size()}, m.value), r.fmt("value {}, row {} of W_2", "值 {}，W_2 的第 {} 行", m.slot + 1, m.slot + 1), feats);
  r.value("planted_bias", m.bias, r.fmt("b_1[{}]", "b_1[{}]", m.slot + 1));
}

// Read the memory with one input: match, activation, top keys, contributions, output.
// Tensor names get `suffix` ("" for the main input, "_other" for the contrast).
MemoryRead step_read(Recorder& r, const Layer& L, const Tensor& x, const std::string& suffix, const std::string& what,
                     Activation act, std::size_t top_k, const PlantedMemory& m, const Labels& feats,
                     const Labels& keys) {
  MemoryRead mr = ffn_as_memory(x, L.W_1, L.b_1, L.W_2, L.b_2, act, top_k);
  r.step("match" + suffix, r.fmt("Input: {}", "输入：{}", what),
         r.fmt("Every key is compared with x at once: match_j = x·k_j + b_1[j] (this is z = x W_1 + b_1 read one "
               "column at a time), then activation_j = {}(match_j). The keys that fire most:",
               "每个键同时与 x 比较：match_j = x·k_j + b_1[j]（就是把 z = x W_1 + b_1 按列逐个读），然后 "
               "activation_j = {}(match_j)。激活最强的键：",
               activation_name(act)));
  r.tensor("x" + suffix, x, what, feats);                                                                   // (D)
  r.tensor("match" + suffix, mr.match, r.tr("x·k_j + b_1[j] for every key", "每个键的 x·k_j + b_1[j]"), Labels{.cols = keys.cols});  // (F)
  r.tensor("activation" + suffix, mr.activation, r.tr("how strongly each key fires", "每个键的激活强度"), Labels{.cols = keys.cols});  // (F)
  r.tensor("top_keys" + suffix, mr.top_keys, r.tr("the strongest keys, 0-based indices (key j is index j−1)", "最强的键，从 0 开始的下标（键 j 的下标是 j−1）"));  // (K)
  Tensor norms = row_norms(mr.contribution);  // (F)
  Table t{{r.tr("rank", "名次"), r.tr("key", "键"), "match", "activation", r.tr("|contribution|", "|贡献|"), ""}, {}};
  for (std::size_t k = 0; k < top_k; ++k) {
    auto j = static_cast<std::size_t>(mr.top_keys.data[k]);
    t.rows.push_back({I(k + 1), I(j + 1), mr.match.data[j], mr.activation.data[j], norms.data[j],
                      std::string(j == m.slot ? r.tr("← planted", "← 植入的") : "")});
  }
  r.table(t);
  if (mr.activation.data[static_cast<std::size_t>(mr.top_keys.data[0])] <= 0.0)
    r.note(r.tr("No key fires for this input: every activation is 0 or below, so the \"strongest\" keys above are "
                "only the least negative ones. A negative activation still writes its value, faintly and with the "
                "sign flipped.",
                "这个输入没有让任何键激活：所有激活值都 ≤ 0，上面“最强”的键只是负得最少的几个。负的激活值仍会把它的值"
                "写出去，只是很弱，而且符号相反。"));
  r.value("planted_activation" + suffix, mr.activation.data[m.slot],
          r.fmt("activation of key {} (planted)", "键 {}（植入的）的激活", m.slot + 1));

  r.step("write" + suffix, r.fmt("Each value written, weighted: {}", "每个值按权重写出：{}", what),
         r.tr("contribution_j = activation_j · v_j, one row per key; the output is their sum plus b_2. A key that "
              "fires strongly writes its value loudly; a key near 0 writes almost nothing.",
              "contribution_j = activation_j · v_j，每个键一行；输出就是它们的和再加 b_2。激活强的键把它的值大声写出；"
              "接近 0 的键几乎什么也不写。"));
  r.tensor("contribution" + suffix, mr.contribution, r.tr("activation_j · v_j, row j for key j", "activation_j · v_j，第 j 行对应键 j"),
           Labels{.rows = keys.cols, .cols = feats.cols});                                                  // (F, D)
  r.tensor("y" + suffix, mr.y, r.tr("Σ_j contribution_j + b_2: the FFN output", "Σ_j contribution_j + b_2：FFN 的输出"), feats);  // (D)
  FfnPass direct = ffn_forward(x, L.W_1, L.b_1, L.W_2, L.b_2, act);
  r.value("sum_check" + suffix, max_abs_diff(direct.y, mr.y),
          r.tr("max |Σ_j contribution_j + b_2 − FFN(x)|", "最大 |Σ_j contribution_j + b_2 − FFN(x)|"));
  r.value("planted_share" + suffix, fraction_of_total(norms, m.slot),
          r.fmt("key {}'s share of Σ_j |contribution_j|", "键 {} 占 Σ_j |contribution_j| 的比例", m.slot + 1));
  std::size_t top_feature = top_k_indices(mr.y, 1)[0];
  r.value("top_feature" + suffix, feats.cols[top_feature], r.tr("strongest output feature", "输出中最强的特征"));
  return mr;
}

Trace run(const LessonConfig& c) {
  Recorder r("kv-memory", c.lang);
  const PlantedMemory& m = planted();
  std::size_t D = m.key.size();
  std::size_t F = positive(c.d_ff, 8, "--d-ff");
  if (F <= m.slot)
    throw UsageError(fmt::format("--d-ff {} is too small: the planted memory is key {}; use --d-ff {} or more", F,
                                 m.slot + 1, m.slot + 1));
  std::size_t K = positive(c.top_k, 3, "--top-k");
  if (K > F) throw UsageError(fmt::format("--top-k {} is more than the {} keys (--d-ff); use at most {}", K, F, F));
  Activation act = resolve_activation(c);
  require_fits({F, D}, "W_2", "--d-ff");
  std::optional<std::vector<double>> custom;
  if (c.x) {
    custom = parse_numbers(*c.x, "--x");
    if (custom->size() != D)
      throw UsageError(fmt::format("--x has {} numbers but the memory's vectors have {} features ({}); give {} numbers",
                                   custom->size(), D, fmt::join(m.features_en, ", "), D));
  }
  r.config("seed", c.seed);
  r.config("d_model", I(D));
  r.config("d_ff", I(F));
  r.config("top_k", I(K));
  r.config("activation", std::string(activation_name(act)));

  Rng rng(static_cast<std::uint64_t>(c.seed));
  Layer L = build_layer(m, F, rng);
  Labels feats{.cols = r.lang() == Lang::Zh ? m.features_zh : m.features_en};
  Labels keys{.rows = feats.cols, .cols = numbered(F, "k")};
  Labels values{.rows = numbered(F, "v"), .cols = feats.cols};
  step_convention(r, L, keys, values, F);
  step_planted(r, m, feats);

  const Probe& match = m.inputs[0];
  const Probe& other = m.inputs[1];
  std::string what = custom ? r.tr("your --x", "你的 --x") : r.tr(match.name_en.c_str(), match.name_zh.c_str());
  MemoryRead a = step_read(r, L, Tensor({D}, custom ? *custom : match.x), "", what, act, K, m, feats, keys);
  std::string answer = feats.cols[m.answer];
  bool fires_first = a.top_keys.data[0] == static_cast<double>(m.slot);
  bool answer_wins = top_k_indices(a.y, 1)[0] == m.answer;
  if (fires_first && answer_wins)
    r.note(r.fmt("Key {0} fires first (activation {1}); its value writes {2} into \"{3}\", {4} of all that the keys "
                 "write, and \"{3}\" is the strongest feature of the output ({5}). The memory is recalled.",
                 "键 {0} 激活最强（激活值 {1}）；它的值往“{3}”里写了 {2}，占所有键写出总量的 {4}，“{3}”成为输出中最强的"
                 "特征（{5}）。记忆被调了出来。",
                 m.slot + 1, fixed(a.activation.data[m.slot], 4), fixed(a.contribution(m.slot, m.answer), 4), answer,
                 fmt::format("{:.0f}%", 100.0 * fraction_of_total(row_norms(a.contribution), m.slot)),
                 fixed(a.y.data[m.answer], 4)));
  else
    r.note(r.fmt("Key {0} has activation {1} here and \"{2}\" gets {3} in the output: this input does not recall "
                 "the planted memory the way the chapter's example does.",
                 "这里键 {0} 的激活值是 {1}，输出中“{2}”为 {3}：这个输入没有像本章例子那样调出植入的记忆。",
                 m.slot + 1, fixed(a.activation.data[m.slot], 4), answer, fixed(a.y.data[m.answer], 4)));
  MemoryRead b = step_read(r, L, Tensor({D}, other.x), "_other", r.tr(other.name_en.c_str(), other.name_zh.c_str()),
                           act, K, m, feats, keys);
  r.note(r.fmt("Without both features the key stays below its threshold: x·k + b = {0}, activation {1}. Value {2} "
               "writes only {3} into \"{4}\" (it wrote {5} for the first input), and the output's strongest feature "
               "is \"{6}\" ({7}): what is left is the random keys' noise — this toy layer has no memory for this input.",
               "两个特征不齐，键就跨不过门槛：x·k + b = {0}，激活值 {1}。值 {2} 只往“{4}”里写了 {3}（第一个输入时写了 "
               "{5}），输出中最强的特征是“{6}”（{7}）：剩下的只是随机键的噪声——这个玩具层里没有关于这个输入的记忆。",
               fixed(b.match.data[m.slot], 4), fixed(b.activation.data[m.slot], 4), m.slot + 1,
               fixed(b.contribution(m.slot, m.answer), 4), answer, fixed(a.contribution(m.slot, m.answer), 4),
               feats.cols[top_k_indices(b.y, 1)[0]], fixed(max_abs(b.y) == 0 ? 0.0 : b.y.data[top_k_indices(b.y, 1)[0]], 4)));
  return r.finish();
}

}  // namespace

extern const LessonInfo kv_memory_lesson = {
    "kv-memory", {"--x", "--d-ff", "--top-k", "--activation"}, run};

}  // namespace attn
