// attnlab bench memory | bench decode: this machine's memory read bandwidth (STREAM-like read
// and triad, every core, arrays far larger than the last-level cache) and one layer's decode-time
// attention per variant at a model's dims, timed in float32 (bf16 storage optional). The kernels
// and the exact byte/FLOP counts are in src/math/decode_bench.h; words in catalogs/bench.
#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "decode_bench.h"
#include "errors.h"
#include "model_options.h"
#include "models.h"
#include "parallel.h"
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
  std::int64_t seq_len = 16384, batch = 1, max_cache_mib = 1024;
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

// Each timing repeats for --min-time: bench memory times 2 kernels, bench decode the memory
// kernels and up to 5 variants: 7 timings, so the caps keep a whole run to about a minute.
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

void run_decode(const DecodeOptions& o) {
  const Text& t = text();
  ModelConfig m = pick_model(o);
  require_range(o.seq_len, 1, 1 << 20, "--seq-len");
  require_range(o.batch, 1, 1024, "--batch");
  require_range(o.max_cache_mib, 1, 4096, "--max-cache-mib");  // with the memory kernels' arrays, within 8 GiB
  if (o.dtype != "f32" && o.dtype != "bf16") throw UsageError("bench.err.dtype", {{"flag", "--dtype"}, {"value", o.dtype}});
  require_time(o.min_time, kMaxDecodeMinTime);
  const DecodeKernel chosen = pick_kernel(o.kernel);
  apply_threads(o.threads);
  WhatIfDims w = whatif_dims(m, 0, 0, 0);
  int bytes = o.dtype == "bf16" ? 2 : 4;
  std::uint64_t B = static_cast<std::uint64_t>(o.batch), N = static_cast<std::uint64_t>(o.seq_len);
  for (std::uint64_t x : {w.d_h, w.d_c, w.d_R})
    if (x % 8 != 0) throw UsageError("bench.err.width", {{"width", x}});
  declare_input("--config", o.config);
  declare_report_outputs(o.out);
  // The read bandwidth is measured before and after the variants and the higher one is the
  // reference: on a shared machine one measurement can catch a busier moment than the kernels did.
  MemoryBench before = measure_memory(default_array_mib(), o.min_time);
  std::vector<BenchVariant> vs = bench_variants(w.n_h, w.n_g == 0 ? 1 : w.n_g, w.d_h, w.d_c, w.d_R);
  struct Row {
    const BenchVariant* v;
    std::uint64_t cache;
    bool skipped;
    DecodeBenchResult r;
  };
  std::vector<Row> rows;
  for (const BenchVariant& v : vs) {
    if (v.id == "gqa" && w.n_g == 0) continue;
    std::uint64_t cache = bench_cache_numbers(v, B, N) * static_cast<std::uint64_t>(bytes);
    bool skip = cache > static_cast<std::uint64_t>(o.max_cache_mib) * kMiB;
    rows.push_back({&v, cache, skip, skip ? DecodeBenchResult{} : bench_decode_variant(v, B, N, bytes, 5, o.min_time, chosen)});
  }
  MemoryBench after = measure_memory(default_array_mib(), o.min_time);
  const double mem_gbs = std::max(before.read_gb_s, after.read_gb_s);
  nlohmann::ordered_json jv = nlohmann::ordered_json::array();
  TextTable tb;
  tb.header = {t("bench.decode.col.variant"), t("bench.decode.col.cache"), t("bench.col.min"), t("bench.col.median"),
               "GB/s", t("bench.decode.col.of_memory"), "GFLOP/s", t("bench.decode.col.flop_per_byte")};
  tb.right = {false, true, true, true, true, true, true, true};
  std::vector<std::string> skipped;
  const std::string kernel = decode_kernel_name(chosen);  // also when every variant was skipped
  bool any_in_llc = false, any_over = false;
  for (const Row& row : rows) {
    const BenchVariant& v = *row.v;
    std::string name = t("bench.variant." + v.id, {{"g", v.G}});
    if (row.skipped) {
      tb.rows.push_back({name, binary_size(static_cast<double>(row.cache)), t("bench.decode.skipped"), "", "", "", "", ""});
      skipped.push_back(name);
      jv.push_back({{"name", v.id}, {"bytes_per_token", row.cache}, {"flops_per_token", bench_flops(v, B, N)}, {"skipped", true}});
      continue;
    }
    const DecodeBenchResult& r = row.r;
    double g = static_cast<double>(r.bytes) / r.time.min / 1e9, fl = static_cast<double>(r.flops) / r.time.min / 1e9;
    const bool in_llc = row.cache < 2 * last_level_cache_bytes();  // partly served by the cache
    any_in_llc = any_in_llc || in_llc;
    // Past 100% of the measured bandwidth with a cache too large to sit in the last-level cache:
    // the reference measurement caught a slower moment than the kernel, noise and not a result.
    const bool over = !in_llc && g > mem_gbs;
    any_over = any_over || over;
    tb.rows.push_back({name, binary_size(static_cast<double>(row.cache)), fixed(r.time.min * 1e3, 3), fixed(r.time.median * 1e3, 3),
                       gbs(g), std::string(in_llc ? "*" : over ? "†" : "") + fixed(100.0 * g / mem_gbs, 0) + "%", fixed(fl, 1),
                       fixed(static_cast<double>(r.flops) / static_cast<double>(r.bytes), 2)});
    jv.push_back({{"name", v.id}, {"bytes_per_token", r.bytes}, {"flops_per_token", r.flops}, {"seconds_per_token", r.time.min},
                  {"seconds_median", r.time.median}, {"runs", r.time.seconds.size()}, {"gb_per_s", g}, {"gflop_per_s", fl},
                  {"ratio_to_memory", g / mem_gbs}, {"smaller_than_twice_llc", in_llc}, {"checksum", r.checksum}});
  }
  nlohmann::ordered_json j;
  {
    j["schema"] = "attnlab.bench-decode/1";
    j["model"] = m.name;
    j["seq_len"] = N;
    j["batch"] = B;
    j["dtype"] = o.dtype;
    j["threads"] = thread_count();
    j["memory_gb_per_s"] = mem_gbs;
    j["memory_gb_per_s_before"] = before.read_gb_s;
    j["memory_gb_per_s_after"] = after.read_gb_s;
    j["last_level_cache_bytes"] = last_level_cache_bytes();
    j["kernel"] = kernel;
    j["variants"] = jv;
  }
  std::string out = t("bench.decode.header", {{"model", m.name}, {"heads", w.n_h}, {"d_h", w.d_h},
                                              {"d_c", w.d_c}, {"d_R", w.d_R}, {"seq_len", N}, {"batch", B},
                                              {"dtype", o.dtype}, {"threads", thread_count()}}) + "\n";
  out += "  " + t("bench.decode.memory", {{"gbs", gbs(mem_gbs)}, {"before", gbs(before.read_gb_s)}, {"after", gbs(after.read_gb_s)}}) + "\n";
  out += "  " + t("bench.decode.kernel", {{"kernel", kernel}, {"chosen", o.kernel == "auto" ? "auto" : "flag"}}) + "\n\n";
  out += render_table(tb) + "\n";
  out += "  " + t("bench.decode.note") + "\n";
  // Who reads the least, from the rows' own cache sizes (skipped rows included: their size is known).
  const Row* least = nullptr;
  const Row* absorbed = nullptr;
  for (const Row& row : rows) {
    if (!least || row.cache < least->cache) least = &row;
    if (row.v->id == "mla_absorbed") absorbed = &row;
  }
  if (least && absorbed)
    out += "  " + t("bench.decode.note_least", {{"least_is_mla", least == absorbed || least->cache == absorbed->cache},
                                                {"least", t("bench.variant." + least->v->id, {{"g", least->v->G}})},
                                                {"least_bytes", binary_size(static_cast<double>(least->cache))},
                                                {"mla", binary_size(static_cast<double>(absorbed->cache))},
                                                {"ratio", static_cast<double>(absorbed->cache) / static_cast<double>(least->cache)}}) + "\n";
  if (!skipped.empty()) out += "  " + t("bench.decode.note_skipped", {{"flag", "--max-cache-mib"}, {"max", o.max_cache_mib}}) + "\n";
  if (any_in_llc) out += "  " + t("bench.decode.note_llc", {{"llc", llc_text()}}) + "\n";
  if (any_over) out += "  " + t("bench.decode.note_over") + "\n";
  if (o.out.html) write_html_report(*o.out.html, t("bench.decode.html_title", {{"model", m.name}}), out);
  if (o.out.json) write_json_doc(*o.out.json, "attnlab.bench-decode/1", j.dump(2) + "\n");
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
  dec->add_option("--min-time", dopt->min_time, t("bench.opt.min_time"));
  dec->add_option("--threads", dopt->threads, t("cli.opt.threads"));
  add_report_outputs(dec, dopt->out, t("bench.opt.json_decode"));
  add_lang_option(dec);
  dec->callback([dopt] { run_decode(*dopt); });
}

}  // namespace attn::cli
