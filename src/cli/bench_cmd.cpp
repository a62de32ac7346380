// attnlab bench memory | bench decode: this machine's memory read bandwidth (STREAM-like read
// and triad, every core, arrays far larger than the last-level cache) and one layer's decode-time
// attention per variant at a model's dims, timed in float32 (bf16 storage optional). The kernels
// are in src/math/decode_bench.h, their timers, rounds and roofline in src/bench; words in catalogs/bench.
#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "decode_bench.h"
#include "decode_rounds.h"
#include "errors.h"
#include "machine.h"
#include "memory_bench.h"
#include "model_options.h"
#include "models.h"
#include "parallel.h"
#include "roofline.h"
#include "table.h"
#include "text.h"

namespace attn::cli {

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

struct MemoryOptions {
  std::optional<std::int64_t> size_mib;  // default: default_array_mib()
  double min_time = 0.5;
  std::optional<std::int64_t> threads;
  ReportOutputs out;  // --json FILE|-, --html FILE|-
};

struct DecodeOptions {
  std::string model, config, dtype = "f32", kernel = "auto";
  std::optional<std::int64_t> seq_len;  // default: the longest context up to 16,384 that fits --max-cache-mib
  std::int64_t batch = 1, max_cache_mib = 1024, rounds = 7;
  double min_time = 0.5;
  std::optional<std::int64_t> threads;
  ReportOutputs out;  // --json FILE|-, --html FILE|-
};

void apply_threads(const std::optional<std::int64_t>& threads) {
  if (threads && (*threads < 1 || *threads > 1024))
    throw UsageError("cli.err.threads", {{"flag", "--threads"}, {"value", *threads}});
  if (threads) set_threads(static_cast<std::size_t>(*threads));
}

void require_range(std::int64_t v, std::int64_t lo, std::int64_t hi, const char* flag) {
  if (v < lo || v > hi) throw UsageError("bench.err.range", {{"flag", flag}, {"min", lo}, {"max", hi}, {"value", v}});
}

// Arrays far larger than the last-level cache: 4 times it, 256 MiB at least, 2 GiB at most (the
// triad's three arrays then stay within 6 GiB). A 2-core VM on an Intel host can share a 300 MiB
// L3 with the whole host: 256 MiB arrays would partly be read from it.
std::int64_t default_array_mib() {
  std::uint64_t mib = (4 * last_level_cache_bytes() + kMiB - 1) / kMiB;
  mib = (mib + 63) / 64 * 64;
  return static_cast<std::int64_t>(std::clamp<std::uint64_t>(mib, 256, 2048));
}

MemoryBench measure_memory(std::int64_t size_mib, double min_time) {
  return bench_memory(static_cast<std::size_t>(size_mib) * kMiB / sizeof(float), 5, min_time);
}

// bench memory repeats each of its 2 kernels for --min-time; bench decode spends --min-time on each
// variant over its rounds, as long on the stream read of its own cache, and as long on the separate
// array's reads: the caps keep a run to minutes.
constexpr double kMaxMemoryMinTime = 25.0, kMaxDecodeMinTime = 8.0;

void require_time(double v, double max) {
  if (!(v >= 0.0 && v <= max)) throw UsageError("bench.err.min_time", {{"flag", "--min-time"}, {"value", v}, {"max", max}});
}

std::string gbs(double x) { return fixed(x, 1); }
std::string llc_text() {
  std::uint64_t b = last_level_cache_bytes();
  return b == 0 ? "?" : binary_size(static_cast<double>(b));
}

void run_memory(const MemoryOptions& o) {
  const std::int64_t size_mib = o.size_mib.value_or(default_array_mib());
  require_range(size_mib, 64, 2048, "--size-mib");
  require_time(o.min_time, kMaxMemoryMinTime);
  apply_threads(o.threads);
  const Text& t = text();
  declare_report_outputs(o.out);
  MemoryBench m = measure_memory(size_mib, o.min_time);
  nlohmann::ordered_json j;
  {
    j["schema"] = "attnlab.bench-memory/1";
    j["threads"] = thread_count();
    j["array_bytes"] = m.array_bytes;
    j["last_level_cache_bytes"] = last_level_cache_bytes();
    j["memory_gb_per_s"] = m.read_gb_s;
    j["read"] = {{"gb_per_s", m.read_gb_s}, {"seconds_min", m.read.min}, {"seconds_median", m.read.median}, {"runs", m.read.seconds.size()}};
    j["triad"] = {{"gb_per_s", m.triad_gb_s}, {"seconds_min", m.triad.min}, {"seconds_median", m.triad.median}, {"runs", m.triad.seconds.size()}};
  }
  std::string out = t("bench.memory.header", {{"threads", thread_count()}, {"size", binary_size(static_cast<double>(m.array_bytes))},
                                             {"llc", llc_text()}}) + "\n\n";
  TextTable tb;
  tb.header = {t("bench.memory.col.kernel"), t("bench.memory.col.moved"), t("bench.col.min"), t("bench.col.median"),
               t("bench.col.runs"), "GB/s"};
  tb.right = {false, true, true, true, true, true};
  auto row = [&](const char* id, std::uint64_t bytes, const Timing& tm, double g) {
    tb.rows.push_back({t(std::string("bench.memory.") + id), binary_size(static_cast<double>(bytes)), fixed(tm.min * 1e3, 2),
                       fixed(tm.median * 1e3, 2), std::to_string(tm.seconds.size()), gbs(g)});
  };
  row("read", m.array_bytes, m.read, m.read_gb_s);
  row("triad", 3 * m.array_bytes, m.triad, m.triad_gb_s);
  out += render_table(tb) + "\n  " + t("bench.memory.note") + "\n";
  if (o.out.html) write_html_report(*o.out.html, t("bench.memory.html_title"), out);
  if (o.out.json) write_json_doc(*o.out.json, "attnlab.bench-memory/1", j.dump(2) + "\n");
  finish_report(o.out, out);
}

// --kernel: auto (the fastest this CPU runs) or one by name, refused if this CPU cannot run it.
DecodeKernel pick_kernel(const std::string& name) {
  static const std::pair<const char*, DecodeKernel> kNames[] = {
      {"auto", DecodeKernel::Automatic}, {"avx512", DecodeKernel::Avx512}, {"avx2", DecodeKernel::Avx2}, {"portable", DecodeKernel::Portable}};
  for (const auto& [n, k] : kNames)
    if (name == n) {
      if (!decode_kernel_available(k)) throw UsageError("bench.err.kernel_missing", {{"flag", "--kernel"}, {"value", name}});
      return k;
    }
  throw UsageError("bench.err.kernel", {{"flag", "--kernel"}, {"value", name}});
}

ModelConfig pick_model(const DecodeOptions& o) {
  if (o.model.empty() == o.config.empty()) throw UsageError("bench.err.model_or_config");
  return o.config.empty() ? load_preset(o.model) : load_config_file(o.config);
}

constexpr std::uint64_t kLongestDefaultContext = 16384;

std::string percent(double x) { return fixed(100.0 * x, 0) + "%"; }

void run_decode(const DecodeOptions& o) {
  const Text& t = text();
  ModelConfig m = pick_model(o);
  if (o.seq_len) require_range(*o.seq_len, 1, 1 << 20, "--seq-len");
  require_range(o.batch, 1, 1024, "--batch");
  require_range(o.max_cache_mib, 1, 4096, "--max-cache-mib");  // with the memory kernels' arrays, within 8 GiB
  require_range(o.rounds, 1, 50, "--rounds");
  if (o.dtype != "f32" && o.dtype != "bf16") throw UsageError("bench.err.dtype", {{"flag", "--dtype"}, {"value", o.dtype}});
  require_time(o.min_time, kMaxDecodeMinTime);
  const DecodeKernel chosen = pick_kernel(o.kernel);
  apply_threads(o.threads);
  WhatIfDims w = whatif_dims(m, 0, 0, 0);
  int bytes = o.dtype == "bf16" ? 2 : 4;
  const std::uint64_t B = static_cast<std::uint64_t>(o.batch), cap = static_cast<std::uint64_t>(o.max_cache_mib) * kMiB;
  for (std::uint64_t x : {w.d_h, w.d_c, w.d_R})
    if (x % 8 != 0) throw UsageError("bench.err.width", {{"width", x}});
  declare_input("--config", o.config);
  declare_report_outputs(o.out);
  const LoadAverage load = load_average();  // before this run adds its own
  std::vector<BenchVariant> vs;
  for (const BenchVariant& v : bench_variants(w.n_h, w.n_g == 0 ? 1 : w.n_g, w.d_h, w.d_c, w.d_R))
    if (!(v.id == "gqa" && w.n_g == 0)) vs.push_back(v);
  // The context: --seq-len, else the longest up to 16,384 at which every variant's cache (MHA's
  // or naive MLA's, the largest) fits --max-cache-mib, so MHA, the baseline, is always measured.
  const std::uint64_t fit = longest_context_within(vs, B, bytes, cap, kLongestDefaultContext);
  const std::string chosen_by = o.seq_len ? "flag" : fit == kLongestDefaultContext ? "default" : fit > 0 ? "cap" : "none";
  const std::uint64_t N = o.seq_len ? static_cast<std::uint64_t>(*o.seq_len) : fit > 0 ? fit : 64;
  const BenchVariant* largest = &vs.front();
  for (const BenchVariant& v : vs)
    if (bench_cache_numbers(v, B, N) > bench_cache_numbers(*largest, B, N)) largest = &v;
  const std::uint64_t largest_bytes = bench_cache_numbers(*largest, B, N) * static_cast<std::uint64_t>(bytes);

  struct Row {
    const BenchVariant* v;
    std::uint64_t cache, flops;
    bool skipped;
    std::size_t step = 0;  // index into steps
  };
  std::vector<Row> rows;
  std::vector<DecodeStep> steps;
  for (const BenchVariant& v : vs) {
    std::uint64_t cache = bench_cache_numbers(v, B, N) * static_cast<std::uint64_t>(bytes);
    bool skip = cache > cap;
    rows.push_back({&v, cache, bench_flops(v, B, N), skip, steps.size()});
    if (!skip) steps.emplace_back(v, B, N, bytes, chosen);
  }
  // The bandwidth and the compute peak are measured in the same rounds as the variants: a stream
  // read of a separate array twice a round (the machine's figure, for the roofline) and of each
  // variant's own cache right after it (its share), the decode kernel over cached rows in L2 once
  // a round.
  StreamRead read(static_cast<std::size_t>(default_array_mib()) * kMiB / sizeof(float));
  // The peak on absorbed MLA's shape (h query heads over rows of d_c + d_R), the variant the
  // roofline question is about; about 400 MFLOP a thread per run (a few milliseconds).
  const BenchVariant& latent = vs.back();
  const std::uint64_t width = latent.Dk;
  ComputeLoop compute(latent, static_cast<std::size_t>(std::max<std::uint64_t>(1, 400'000'000 / ComputeLoop::call_flops(latent))),
                      chosen);
  const std::size_t R = static_cast<std::size_t>(o.rounds);
  Rounds rr = run_rounds(steps, read, compute, R, o.min_time / static_cast<double>(R));
  const double rb = static_cast<double>(read.bytes()), cf = static_cast<double>(compute.flops());
  const double mem_gbs = rb / rr.read.median / 1e9, mem_lo = rb / rr.read.max / 1e9, mem_hi = rb / rr.read.min / 1e9;
  // The peak is the fastest round (a peak is what the kernel can reach; a slower round is the
  // machine's other work): bench memory quotes its best run the same way.
  const double peak = cf / rr.compute.min / 1e9, peak_median = cf / rr.compute.median / 1e9, peak_lo = cf / rr.compute.max / 1e9;
  const double balance = peak / mem_gbs;
  const std::string kernel = decode_kernel_name(chosen);  // also when every variant was skipped

  nlohmann::ordered_json jv = nlohmann::ordered_json::array();
  TextTable tb;
  tb.header = {t("bench.decode.col.variant"), t("bench.decode.col.cache"), t("bench.col.median"), t("bench.col.range"),
               "GB/s", t("bench.decode.col.of_memory"), "GFLOP/s", t("bench.decode.col.flop_per_byte"), t("bench.decode.col.bound")};
  tb.right = {false, true, true, true, true, true, true, true, false};
  std::vector<std::string> skipped;
  bool any_in_llc = false, any_over = false;
  std::vector<double> median_s(rows.size(), 0.0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& row = rows[k];
    const BenchVariant& v = *row.v;
    const std::string name = t("bench.variant." + v.id, {{"g", v.G}});
    const double fpb = flop_per_byte(row.flops, row.cache);
    const Bound bound = bound_of(fpb, balance);
    const double floor_s = roofline_seconds(row.cache, row.flops, mem_gbs, peak);
    const std::string bound_text = t("bench.decode.bound", {{"bound", bound_name(bound)}});
    nlohmann::ordered_json jr = {{"name", v.id}, {"bytes_per_step", row.cache}, {"flops_per_step", row.flops},
                                 {"flop_per_byte", fpb}, {"bound", bound_name(bound)}, {"roofline_seconds", floor_s}};
    if (row.skipped) {
      tb.rows.push_back({name, binary_size(static_cast<double>(row.cache)), t("bench.decode.skipped"), "", "", "", "",
                         fixed(fpb, 2), bound_text});
      skipped.push_back(name);
      jr["skipped"] = true;
      jv.push_back(jr);
      continue;
    }
    const Timing& tm = rr.steps[row.step];
    median_s[k] = tm.median;
    const double cb = static_cast<double>(row.cache);
    const double g = cb / tm.median / 1e9, fl = static_cast<double>(row.flops) / tm.median / 1e9;
    // Its share: of the stream read of its own cache in the same rounds, the same pages (on a VM,
    // two arrays can read at rates a fifth apart: a share of another array's rate mixes where
    // each landed into the kernel's efficiency).
    const Timing& own = rr.own_reads[row.step];
    const std::uint64_t own_bytes = steps[row.step].read_cache_bytes();
    const double ob = static_cast<double>(own_bytes);
    const double own_gbs = ob / own.median / 1e9;
    const bool in_llc = row.cache < 2 * last_level_cache_bytes();  // partly served by the cache
    const BandwidthMark mark = bandwidth_mark(g, own_gbs, in_llc);
    any_in_llc = any_in_llc || mark == BandwidthMark::InCache;
    any_over = any_over || mark == BandwidthMark::Over;
    const std::string sign = mark == BandwidthMark::InCache ? "*" : mark == BandwidthMark::Over ? "†" : "";
    tb.rows.push_back({name, binary_size(cb), fixed(tm.median * 1e3, 3),
                       fixed(tm.min * 1e3, 3) + "–" + fixed(tm.max * 1e3, 3), gbs(g), sign + percent(g / own_gbs),
                       fixed(fl, 1), fixed(fpb, 2), bound_text});
    jr["skipped"] = false;
    jr["seconds_median"] = tm.median;
    jr["seconds_min"] = tm.min;
    jr["seconds_max"] = tm.max;
    jr["rounds"] = tm.seconds.size();
    jr["gb_per_s"] = g;
    jr["gb_per_s_min"] = cb / tm.max / 1e9;
    jr["gb_per_s_max"] = cb / tm.min / 1e9;
    jr["gflop_per_s"] = fl;
    jr["ratio_to_memory"] = g / mem_gbs;
    jr["own_read"] = {{"gb_per_s", own_gbs}, {"gb_per_s_min", ob / own.max / 1e9}, {"gb_per_s_max", ob / own.min / 1e9},
                      {"bytes", own_bytes}, {"samples", own.seconds.size()}};
    jr["ratio_to_own_read"] = g / own_gbs;
    jr["mark"] = mark == BandwidthMark::InCache ? "llc" : mark == BandwidthMark::Over ? "over" : "";
    jr["smaller_than_twice_llc"] = in_llc;
    jr["checksum"] = rr.checksums[row.step];
    jv.push_back(jr);
  }
  nlohmann::ordered_json j;
  {
    j["schema"] = "attnlab.bench-decode/2";
    j["model"] = m.name;
    j["seq_len"] = N;
    j["context"] = {{"seq_len", N}, {"chosen_by", chosen_by}, {"largest_variant", largest->id},
                    {"largest_bytes", largest_bytes}, {"max_cache_bytes", cap}};
    j["batch"] = B;
    j["dtype"] = o.dtype;
    j["threads"] = thread_count();
    j["rounds"] = R;
    j["kernel"] = kernel;
    j["load_average"] = load.known ? nlohmann::ordered_json::array({load.one, load.five, load.fifteen}) : nlohmann::ordered_json();
    j["memory_gb_per_s"] = mem_gbs;
    j["memory"] = {{"gb_per_s", mem_gbs}, {"gb_per_s_min", mem_lo}, {"gb_per_s_max", mem_hi},
                   {"samples", rr.read.seconds.size()}, {"array_bytes", read.bytes()}};
    j["compute"] = {{"gflop_per_s", peak}, {"gflop_per_s_median", peak_median}, {"gflop_per_s_min", peak_lo},
                    {"samples", rr.compute.seconds.size()}, {"width", width},
                    {"heads", latent.H / latent.G}, {"rows", 64}};
    j["balance_flop_per_byte"] = balance;
    j["last_level_cache_bytes"] = last_level_cache_bytes();
    j["variants"] = jv;
  }
  std::string out = t("bench.decode.header", {{"model", m.name}, {"heads", w.n_h}, {"d_h", w.d_h},
                                              {"d_c", w.d_c}, {"d_R", w.d_R}, {"seq_len", N}, {"batch", B},
                                              {"dtype", o.dtype}, {"threads", thread_count()}}) + "\n";
  out += "  " + t("bench.decode.context", {{"chosen_by", chosen_by}, {"seq_len", N}, {"longest", kLongestDefaultContext},
                                           {"flag", "--max-cache-mib"}, {"max", o.max_cache_mib},
                                           {"largest", t("bench.variant." + largest->id, {{"g", largest->G}})},
                                           {"largest_bytes", binary_size(static_cast<double>(largest_bytes))}}) + "\n";
  if (load.known)
    out += "  " + t("bench.decode.load", {{"one", fixed(load.one, 2)}, {"five", fixed(load.five, 2)}, {"fifteen", fixed(load.fifteen, 2)},
                                          {"threads", thread_count()}, {"busy", load.one >= 0.5}}) + "\n";
  out += "  " + t("bench.decode.rounds", {{"rounds", R}}) + "\n";
  out += "  " + t("bench.decode.memory", {{"gbs", gbs(mem_gbs)}, {"lo", gbs(mem_lo)}, {"hi", gbs(mem_hi)},
                                          {"size", binary_size(rb)}, {"samples", rr.read.seconds.size()}}) + "\n";
  out += "  " + t("bench.decode.compute", {{"gflops", fixed(peak, 1)}, {"lo", fixed(peak_lo, 1)}, {"median", fixed(peak_median, 1)},
                                           {"width", width}, {"heads", latent.H / latent.G}, {"balance", fixed(balance, 2)}}) + "\n";
  out += "  " + t("bench.decode.kernel", {{"kernel", kernel}, {"chosen", o.kernel == "auto" ? "auto" : "flag"}}) + "\n\n";
  out += render_table(tb) + "\n";
  out += "  " + t("bench.decode.note") + "\n";
  out += "  " + t("bench.decode.note_share") + "\n";
  // Who reads the least, from the rows' own cache sizes (skipped rows included: their size is known).
  const Row* least = nullptr;
  const Row* absorbed = nullptr;
  const Row* mha = nullptr;
  for (const Row& row : rows) {
    if (!least || row.cache < least->cache) least = &row;
    if (row.v->id == "mla_absorbed") absorbed = &row;
    if (row.v->id == "mha") mha = &row;
  }
  if (least && absorbed)
    out += "  " + t("bench.decode.note_least", {{"least_is_mla", least == absorbed || least->cache == absorbed->cache},
                                                {"least", t("bench.variant." + least->v->id, {{"g", least->v->G}})},
                                                {"least_bytes", binary_size(static_cast<double>(least->cache))},
                                                {"mla", binary_size(static_cast<double>(absorbed->cache))},
                                                {"ratio", static_cast<double>(absorbed->cache) / static_cast<double>(least->cache)}}) + "\n";
  // Why a cache N× smaller buys only M×: the roofline's least times of MHA and absorbed MLA, from
  // the bandwidth and compute peak measured above, beside the measured medians.
  if (mha && absorbed && !mha->skipped && !absorbed->skipped) {
    const double fpb_a = flop_per_byte(absorbed->flops, absorbed->cache);
    const double floor_m = roofline_seconds(mha->cache, mha->flops, mem_gbs, peak);
    const double floor_a = roofline_seconds(absorbed->cache, absorbed->flops, mem_gbs, peak);
    const double med_m = median_s[static_cast<std::size_t>(mha - rows.data())];
    const double med_a = median_s[static_cast<std::size_t>(absorbed - rows.data())];
    j["mha_vs_absorbed"] = {{"cache_ratio", static_cast<double>(mha->cache) / static_cast<double>(absorbed->cache)},
                            {"roofline_speedup", floor_m / floor_a}, {"measured_speedup", med_m / med_a},
                            {"mha_of_roofline", floor_m / med_m}, {"absorbed_of_roofline", floor_a / med_a}};
    out += "  " + t("bench.decode.note_why", {{"n", fixed(static_cast<double>(mha->cache) / static_cast<double>(absorbed->cache), 1)},
                                              {"bound", bound_name(bound_of(fpb_a, balance))},
                                              {"fpb", fixed(fpb_a, 1)}, {"balance", fixed(balance, 2)},
                                              {"gflops", fixed(peak, 1)}, {"gbs", gbs(mem_gbs)},
                                              {"floor_mha", fixed(floor_m * 1e3, 3)}, {"floor_mla", fixed(floor_a * 1e3, 3)},
                                              {"m", floor_m / floor_a}, {"measured", med_m / med_a},
                                              {"mha_share", percent(floor_m / med_m)}, {"mla_share", percent(floor_a / med_a)}}) + "\n";
  }
  if (!skipped.empty()) out += "  " + t("bench.decode.note_skipped", {{"flag", "--max-cache-mib"}, {"max", o.max_cache_mib}}) + "\n";
  if (any_in_llc) {  // both figures named: the last-level cache, and twice it (the bound a marked cache is under)
    const std::uint64_t llc = last_level_cache_bytes();
    out += "  " + t("bench.decode.note_llc", {{"llc", llc_text()}, {"twice", llc == 0 ? std::string("?") : binary_size(2.0 * static_cast<double>(llc))}}) + "\n";
  }
  if (any_over) out += "  " + t("bench.decode.note_over") + "\n";
  if (o.out.html) write_html_report(*o.out.html, t("bench.decode.html_title", {{"model", m.name}}), out);
  if (o.out.json) write_json_doc(*o.out.json, "attnlab.bench-decode/2", j.dump(2) + "\n");
  finish_report(o.out, out);
}

}  // namespace

void setup_bench(CLI::App& root) {
  const Text& t = text();
  CLI::App* bench = root.add_subcommand("bench", t("bench.description"));
  bench->require_subcommand(1);
  add_lang_option(bench);

  auto mo = std::make_shared<MemoryOptions>();
  CLI::App* mem = bench->add_subcommand("memory", t("bench.memory.description"));
  mem->add_option("--size-mib", mo->size_mib, t("bench.opt.size_mib"));
  mem->add_option("--min-time", mo->min_time, t("bench.opt.min_time"));
  mem->add_option("--threads", mo->threads, t("cli.opt.threads"));
  add_report_outputs(mem, mo->out, t("bench.opt.json_memory"));
  add_lang_option(mem);
  mem->callback([mo] { run_memory(*mo); });

  auto dopt = std::make_shared<DecodeOptions>();
  CLI::App* dec = bench->add_subcommand("decode", t("bench.decode.description"));
  dec->add_option("--model", dopt->model, t("calc.opt.model"));
  dec->add_option("--config", dopt->config, t("calc.opt.config"));
  dec->add_option("--seq-len", dopt->seq_len, t("bench.opt.seq_len"));
  dec->add_option("--batch", dopt->batch, t("bench.opt.batch"));
  dec->add_option("--dtype", dopt->dtype, t("bench.opt.dtype"));
  dec->add_option("--kernel", dopt->kernel, t("bench.opt.kernel"));
  dec->add_option("--max-cache-mib", dopt->max_cache_mib, t("bench.opt.max_cache_mib"));
  dec->add_option("--rounds", dopt->rounds, t("bench.opt.rounds"));
  dec->add_option("--min-time", dopt->min_time, t("bench.opt.min_time_decode"));
  dec->add_option("--threads", dopt->threads, t("cli.opt.threads"));
  add_report_outputs(dec, dopt->out, t("bench.opt.json_decode"));
  add_lang_option(dec);
  dec->callback([dopt] { run_decode(*dopt); });
}

}  // namespace attn::cli
