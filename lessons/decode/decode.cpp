// Lesson `decode`: a small random-weight decoder generates tokens one at a time with a KV cache.
// Per token: the cache growing (one K row and one V row per token per layer), the cache bytes
// each variant (MHA, GQA, MQA, MLA naive, MLA absorbed) reads for it and the multiply-adds it
// does; the cached outputs against a full causal forward; arithmetic intensity on a roofline.
// Legend: T tokens, V vocabulary, D = d_model, H heads, G KV heads, Dh = D / H, L layers,
// C = d_c, R = d_R. Math: src/math/decode.h. Words: lessons/decode/LANG.cat.
#include <cmath>

#include "decode.h"
#include "libm.h"
#include "decode/gpu_reference.h"
#include "errors.h"
#include "lesson.h"
#include "random.h"

namespace attn {

namespace {

struct DecodeOptions : RunContext {
  std::optional<std::int64_t> generate;         // --generate: new tokens after the one-token prompt
  std::optional<std::int64_t> vocab;            // --vocab
  std::optional<std::int64_t> d_model;          // --d-model
  std::optional<std::int64_t> heads;            // --heads
  std::optional<std::int64_t> kv_heads;         // --kv-heads: the model's own cache, and the GQA row
  std::optional<std::int64_t> layers;           // --layers
  std::optional<std::int64_t> latent_dim;       // --latent-dim: MLA's d_c in the comparison
  std::optional<std::int64_t> rope_dim;         // --rope-dim: MLA's d_R in the comparison
  std::optional<std::int64_t> bytes_per_number; // --bytes-per-number: 2 = bf16 as served
  std::optional<double> bandwidth;              // --bandwidth GB/s
  std::optional<double> peak;                   // --peak GFLOP/s
};

void bind(OptionBinder& b, DecodeOptions& o) {
  b.integer("--generate", o.generate);
  b.integer("--vocab", o.vocab);
  b.integer("--d-model", o.d_model);
  b.integer("--heads", o.heads);
  b.integer("--kv-heads", o.kv_heads);
  b.integer("--layers", o.layers);
  b.integer("--latent-dim", o.latent_dim);
  b.integer("--rope-dim", o.rope_dim);
  b.integer("--bytes-per-number", o.bytes_per_number);
  b.real("--bandwidth", o.bandwidth);
  b.real("--peak", o.peak);
}

constexpr double kDefaultBandwidth = 20.0;  // GB/s: a laptop's or small VM's DRAM, order of magnitude
constexpr double kDefaultPeak = 100.0;      // GFLOP/s: two cores with AVX2, order of magnitude
constexpr std::size_t kRoofSamples = 241;
constexpr std::uint64_t kLongContext = 8192;  // a long context, to set beside the lesson's few tokens

struct Settings {
  DecodeDims d;
  VariantDims v;
  std::size_t bytes;
  double bandwidth, peak;
  bool assumed = true;  // neither --bandwidth nor --peak given: the defaults
};

double positive_real(const std::optional<double>& v, double fallback, const char* flag) {
  if (!v) return fallback;
  if (!(*v > 0.0) || *v > 1e9) throw UsageError("decode.err.positive_real", {{"flag", flag}, {"value", *v}});
  return *v;
}

Settings resolve(const DecodeOptions& c, const LessonRecorder& rec) {
  Settings s{};
  DecodeDims& d = s.d;
  std::size_t generate = positive(c.generate, 7, "--generate");
  if (generate > 4096) throw UsageError("decode.err.too_many", {{"flag", "--generate"}, {"max", 4096}});
  d.T = generate + 1;
  d.V = positive(c.vocab, 16, "--vocab");
  d.D = positive(c.d_model, 32, "--d-model");
  d.H = positive(c.heads, 8, "--heads");
  d.G = positive(c.kv_heads, 2, "--kv-heads");
  d.L = positive(c.layers, 2, "--layers");
  if (d.L > 64) throw UsageError("decode.err.too_many", {{"flag", "--layers"}, {"max", 64}});
  require_divisible(d.D, "--d-model", d.H, "--heads");
  require_divisible(d.H, "--heads", d.G, "--kv-heads");
  d.Dh = d.D / d.H;
  {
    // Greedy decoding with the cache and the full forward to check it: per layer 4·T·D² for the
    // projections and about T²·D for the scores, T·D·V for the logits, each twice. Held: E, P,
    // W_U, the layers' weights, both runs' logits and caches, the variants' costs per position.
    // In three parts, each named in a refusal with the flags that shrink it.
    double V = static_cast<double>(d.V), D = static_cast<double>(d.D), L = static_cast<double>(d.L);
    const std::string embed_what = rec.t("work.embed", {{"vocab", d.V}, {"d_model", d.D}});
    const std::string layers_what = rec.t("work.layers", {{"layers", d.L}, {"d_model", d.D}});
    const std::string steps_what = rec.t("work.steps");
    require_work([&](double g) {
      double t = g + 1.0;  // the prompt token and the generated ones
      return Work({WorkPart{embed_what, 2.0 * t * D * V, 2.0 * V * D + 2.0 * t * V, "--vocab, --d-model"},
                   WorkPart{layers_what, 8.0 * L * t * D * D, 4.0 * L * D * D, "--layers, --d-model"},
                   WorkPart{steps_what, 3.0 * L * t * t * D, t * D + 4.0 * L * t * D + 30.0 * t, "--generate"}});
    }, generate, "--generate", "--generate, --vocab, --d-model, --layers");
  }
  require_fits({d.V, d.D}, "E", "--vocab or --d-model");
  require_fits({d.T, d.D}, "P", "--generate or --d-model");
  require_fits({d.D, d.D}, "W_Q", "--d-model");
  require_fits({d.T, d.V}, "logits", "--generate or --vocab");
  require_total(4 * d.L + 4, {std::max(d.T, d.D), std::max(d.D, d.V)}, "the model", "--layers, --d-model, --vocab or --generate");
  // d_c and d_R only size the comparison's counts (no tensor has them): capped so that every
  // count, about T · H · (d_c + d_R) · layers · bytes, stays far inside 64 bits.
  constexpr std::int64_t kMaxDim = std::int64_t{1} << 20;
  s.v = VariantDims{d.H, d.G, d.Dh, positive(c.latent_dim, 2 * d.Dh, "--latent-dim"), 2};
  if (s.v.C > static_cast<std::size_t>(kMaxDim))
    throw UsageError("decode.err.too_many", {{"flag", "--latent-dim"}, {"max", kMaxDim}});
  if (c.rope_dim) {
    if (*c.rope_dim < 0 || *c.rope_dim % 2 != 0)
      throw UsageError("decode.err.rope_dim", {{"flag", "--rope-dim"}, {"value", *c.rope_dim}});
    if (*c.rope_dim > kMaxDim) throw UsageError("decode.err.too_many", {{"flag", "--rope-dim"}, {"max", kMaxDim}});
    s.v.R = static_cast<std::size_t>(*c.rope_dim);
  }
  s.bytes = positive(c.bytes_per_number, 2, "--bytes-per-number");
  if (s.bytes > 8) throw UsageError("decode.err.too_many", {{"flag", "--bytes-per-number"}, {"max", 8}});
  s.bandwidth = positive_real(c.bandwidth, kDefaultBandwidth, "--bandwidth");
  s.peak = positive_real(c.peak, kDefaultPeak, "--peak");
  s.assumed = !c.bandwidth && !c.peak;
  return s;
}

struct Decode {
  DecodeModel m;
  DecodeRun run;
  DecodeFull full;
  std::vector<std::vector<VariantCost>> costs;  // per position t: the costs with n = t + 1
  double logits_diff = 0.0, hidden_diff = 0.0, cache_diff = 0.0;
};

Decode compute(const Settings& s, std::uint64_t seed) {
  Rng rng(seed);
  Decode x;
  x.m = init_decode_model(rng, s.d);
  x.run = decode_greedy(x.m, s.d, {0});
  x.full = decode_full_forward(x.m, s.d, x.run.tokens);
  x.logits_diff = max_abs_diff(x.run.logits, x.full.logits);
  x.hidden_diff = max_abs_diff(x.run.hidden, x.full.hidden);
  for (std::size_t l = 0; l < s.d.L; ++l)
    x.cache_diff = std::max({x.cache_diff, max_abs_diff(x.run.K_cache[l], x.full.K[l]),
                             max_abs_diff(x.run.V_cache[l], x.full.V[l])});
  for (std::size_t t = 0; t < s.d.T; ++t) x.costs.push_back(decode_variant_costs(s.v, t + 1));
  return x;
}

std::string tok(std::size_t id) { return "#" + std::to_string(id); }
std::int64_t u(std::uint64_t x) { return static_cast<std::int64_t>(x); }

void step_model(LessonRecorder& r, const Settings& s, const Decode& x) {
  const DecodeDims& d = s.d;
  r.step("model", {{"vocab", d.V}, {"d_model", d.D}, {"heads", d.H}, {"kv_heads", d.G}, {"d_h", d.Dh},
                   {"layers", d.L}, {"T", d.T}});
  r.tensor("E", x.m.E, {.axes = {"id", "dim"}});  // (V, D)
  r.tensor("W_K_1", x.m.layers[0].W_K);  // (D, G*Dh)
  r.tensor("W_U", x.m.W_U, {.axes = {"dim", "id"}});  // (D, V)
}

void step_generate(LessonRecorder& r, const Settings& s, const Decode& x) {
  const DecodeDims& d = s.d;
  std::uint64_t per_token = 2 * d.G * d.Dh;
  r.step("generate", {{"per_token", per_token}, {"layers", d.L}, {"kv_heads", d.G}, {"d_h", d.Dh}});
  Table t{{r.t("generate.col.pos"), r.t("generate.col.input"), r.t("generate.col.rows"), r.t("generate.col.numbers"),
           r.t("generate.col.macs"), r.t("generate.col.next")},
          {}};
  Tensor ids({d.T});
  for (std::size_t i = 0; i < d.T; ++i) {
    ids.data[i] = static_cast<double>(x.run.tokens[i]);
    std::size_t next = 0;
    for (std::size_t j = 1; j < d.V; ++j)
      if (x.run.logits(i, j) > x.run.logits(i, next)) next = j;
    t.rows.push_back({I(i + 1), tok(x.run.tokens[i]), I(i + 1), u(per_token * d.L * (i + 1)), u(x.run.macs[i]), tok(next)});
  }
  r.table(t);
  r.tensor("tokens", ids);
  std::vector<std::string> pos;
  for (std::size_t i = 0; i < d.T; ++i) pos.push_back(tok(x.run.tokens[i]));
  r.tensor("K_cache_1", x.run.K_cache[0], {.rows = pos});  // (T, G*Dh)
  r.tensor("V_cache_1", x.run.V_cache[0], {.rows = pos});  // (T, G*Dh)
  r.note("generate.note", {{"rows", d.T}, {"layers", d.L}, {"numbers", u(per_token * d.L * d.T)}});
}

void step_exact(LessonRecorder& r, const Settings& s, const Decode& x) {
  std::vector<std::string> pos;
  for (std::size_t i = 0; i < s.d.T; ++i) pos.push_back(tok(x.run.tokens[i]));
  r.step("exact", {{"T", s.d.T}});
  r.tensor("logits", x.run.logits, {.rows = pos, .axes = {"step", "id"}});         // (T, V)
  r.tensor("logits_full", x.full.logits, {.rows = pos, .axes = {"step", "id"}});   // (T, V)
  r.value("logits_diff", x.logits_diff);
  r.value("hidden_diff", x.hidden_diff);
  r.value("cache_diff", x.cache_diff);
  double worst = std::max({x.logits_diff, x.hidden_diff, x.cache_diff});
  r.note("exact.note", {{"diff", worst}, {"ok", worst <= 1e-12}});
}

const char* kVariants[] = {"mha", "gqa", "mqa", "mla_naive", "mla_absorbed"};

void step_bytes(LessonRecorder& r, const Settings& s, const Decode& x) {
  const DecodeDims& d = s.d;
  const VariantDims& v = s.v;
  r.step("bytes", {{"bytes", s.bytes}, {"heads", v.H}, {"kv_heads", v.G}, {"d_h", v.Dh}, {"d_c", v.C}, {"d_R", v.R}});
  Table per{{r.t("bytes.col.variant"), r.t("bytes.col.formula"), r.t("bytes.col.per_token"), r.t("bytes.col.bytes_token")}, {}};
  const std::vector<VariantCost>& one = x.costs[0];
  for (std::size_t k = 0; k < one.size(); ++k)
    per.rows.push_back({r.t("variant." + one[k].id), r.t("formula." + one[k].id), u(one[k].per_token),
                        u(one[k].per_token * s.bytes)});
  r.table(per);
  Table grow{{r.t("generate.col.pos")}, {}};
  for (const char* id : kVariants) grow.header.push_back(r.t("variant." + std::string(id)));
  Tensor n({d.T});
  std::vector<Tensor> series(5, Tensor({d.T}));
  for (std::size_t t = 0; t < d.T; ++t) {
    std::vector<Scalar> row{I(t + 1)};
    n.data[t] = static_cast<double>(t + 1);
    for (std::size_t k = 0; k < 5; ++k) {
      std::uint64_t b = x.costs[t][k].cache_read * s.bytes;
      row.push_back(u(b));
      series[k].data[t] = static_cast<double>(b);
    }
    grow.rows.push_back(row);
  }
  r.table(grow);
  r.tensor("context", n);
  Chart chart{r.t("bytes.chart"), "context", {}};
  for (std::size_t k = 0; k < 5; ++k) {
    std::string name = std::string("bytes_") + kVariants[k];
    r.tensor(name, series[k]);
    chart.y.push_back(name);
  }
  r.chart(chart);
  r.note("bytes.note", {{"mha", u(x.costs[d.T - 1][0].cache_read * s.bytes)},
                        {"absorbed", u(x.costs[d.T - 1][4].cache_read * s.bytes)}});
}

void step_macs(LessonRecorder& r, const Settings& s, const Decode& x) {
  const DecodeDims& d = s.d;
  const std::vector<VariantCost>& last = x.costs[d.T - 1];
  r.step("macs", {{"n", d.T}});
  Table t{{r.t("bytes.col.variant"), r.t("macs.col.formula"), r.t("macs.col.macs"), r.t("macs.col.per_byte")}, {}};
  for (const VariantCost& c : last)
    t.rows.push_back({r.t("variant." + c.id), r.t("macs_formula." + c.id), u(c.macs),
                      static_cast<double>(c.macs) / static_cast<double>(c.cache_read * s.bytes)});
  r.table(t);
  // The model's own kernel, counted in its loop: all layers at the last position.
  std::uint64_t formula = decode_variant_costs(VariantDims{d.H, d.G, d.Dh, 0, 0}, d.T)[1].macs * d.L;
  r.value("macs_counted", u(x.run.macs[d.T - 1]));
  r.value("macs_formula", u(formula));
  r.note("macs.note", {{"counted", u(x.run.macs[d.T - 1])}, {"formula", u(formula)}, {"layers", d.L},
                       {"same", x.run.macs[d.T - 1] == formula}});
}

void step_roofline(LessonRecorder& r, const Settings& s, const Decode& x) {
  const std::vector<VariantCost>& last = x.costs[s.d.T - 1];
  double balance = s.peak / s.bandwidth;
  r.step("roofline", {{"bandwidth", s.bandwidth}, {"peak", s.peak}, {"balance", balance}, {"bytes", s.bytes}});
  r.value("balance_point", balance);
  Table t{{r.t("bytes.col.variant"), r.t("roofline.col.intensity"), r.t("roofline.col.attainable"),
           r.t("roofline.col.bound"), r.t("roofline.col.time")}, {}};
  std::vector<double> xs;
  double lo = libm::log10(balance), hi = lo;
  for (const VariantCost& c : last) {
    double i = arithmetic_intensity(c, static_cast<double>(s.bytes));
    xs.push_back(i);
    lo = std::min(lo, libm::log10(i));
    hi = std::max(hi, libm::log10(i));
    double attain = roofline(i, s.bandwidth, s.peak);
    double bytes = static_cast<double>(c.cache_read * s.bytes), flops = 2.0 * static_cast<double>(c.macs);
    double ns = std::max(bytes / s.bandwidth, flops / s.peak);  // GB/s = bytes/ns, GFLOP/s = FLOP/ns
    t.rows.push_back({r.t("variant." + c.id), i, attain, r.t(i < balance ? "roofline.memory" : "roofline.compute"), ns});
  }
  r.table(t);
  lo = std::floor(lo) - 0.5;
  hi = std::ceil(hi) + 0.5;
  Tensor grid({kRoofSamples}), roof({kRoofSamples});
  double step = (hi - lo) / static_cast<double>(kRoofSamples - 1);
  for (std::size_t k = 0; k < kRoofSamples; ++k) {
    grid.data[k] = lo + step * static_cast<double>(k);
    roof.data[k] = libm::log10(roofline(libm::pow(10.0, grid.data[k]), s.bandwidth, s.peak));
  }
  r.tensor("log10_intensity", grid);
  Chart chart{r.t("roofline.chart"), "log10_intensity", {}};
  double window = (hi - lo) / 60.0;  // one chart column either side: every point is drawn
  for (std::size_t k = 0; k < last.size(); ++k) {
    Tensor pt({kRoofSamples});
    for (std::size_t j = 0; j < kRoofSamples; ++j)
      pt.data[j] = std::fabs(grid.data[j] - libm::log10(xs[k])) <= window ? roof.data[j] : NAN;
    std::string name = "at_" + last[k].id;
    r.tensor(name, pt);
    chart.y.push_back(name);
  }
  r.tensor("roof", roof);
  chart.y.push_back("roof");
  r.chart(chart);
  r.note("roofline.note", {{"mha", xs[0]}, {"absorbed", xs[4]}, {"balance", balance}});
  std::size_t above = 0;
  for (double i : xs) above += i >= balance ? 1 : 0;
  r.note("roofline.note_assumed", {{"assumed", s.assumed}, {"bandwidth", s.bandwidth}, {"peak", s.peak}, {"balance", balance},
                                   {"above", above}});
  // Absorbed MLA's folds are paid once per token: at a few cached tokens they dominate its count.
  const std::vector<VariantCost> far = decode_variant_costs(s.v, kLongContext);
  const double folds = 2.0 * static_cast<double>(s.v.H * s.v.Dh * s.v.C);
  const double bpn = static_cast<double>(s.bytes);
  r.note("roofline.note_folds", {{"n", s.d.T}, {"folds", static_cast<std::uint64_t>(folds)},
                                 {"share", 100.0 * folds / static_cast<double>(last[4].macs)}, {"long", kLongContext},
                                 {"share_long", 100.0 * folds / static_cast<double>(far[4].macs)},
                                 {"i_long", arithmetic_intensity(far[4], bpn)}});
  std::size_t gpu_above = 0;
  for (std::size_t k = 0; k < last.size(); ++k)
    gpu_above += (xs[k] >= kGpuBalance || arithmetic_intensity(far[k], bpn) >= kGpuBalance) ? 1 : 0;
  r.value("gpu_balance_point", kGpuBalance);
  r.note("roofline.note_gpu", {{"gpu", kGpuName}, {"gpu_peak", static_cast<std::uint64_t>(kGpuPeakGflops)},
                               {"gpu_bw", static_cast<std::uint64_t>(kGpuBandwidthGbs)}, {"gpu_balance", kGpuBalance},
                               {"gpu_above", gpu_above}, {"n", s.d.T}, {"long", kLongContext}});
}

Trace run(const DecodeOptions& c) {
  LessonRecorder r("decode", c.lang, {"decode"});
  Settings s = resolve(c, r);
  r.config("seed", c.seed);
  r.config("vocab", I(s.d.V));
  r.config("d_model", I(s.d.D));
  r.config("n_heads", I(s.d.H));
  r.config("n_kv_heads", I(s.d.G));
  r.config("layers", I(s.d.L));
  r.config("seq_len", I(s.d.T));
  r.config("latent_dim", I(s.v.C));
  r.config("rope_dim", I(s.v.R));
  r.config("bytes_per_number", I(s.bytes));
  r.config("bandwidth", s.bandwidth);
  r.config("peak", s.peak);
  Decode x = compute(s, static_cast<std::uint64_t>(c.seed));
  step_model(r, s, x);
  step_generate(r, s, x);
  step_exact(r, s, x);
  step_bytes(r, s, x);
  step_macs(r, s, x);
  step_roofline(r, s, x);
  return r.finish();
}

}  // namespace

extern const LessonInfo decode_lesson = lesson_info<DecodeOptions>("decode", bind, run);

}  // namespace attn
