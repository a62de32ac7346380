// attnlab flops: multiply-adds of one layer, part by part, for prefill of T tokens and for one
// decode step at context N, per attention variant at a model's dims (src/math/decode_flops.h),
// and the conversation's "h heads cost about one big head" as numbers. Words: catalogs/flops.
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "decode_flops.h"
#include "errors.h"
#include "model_options.h"
#include "models.h"
#include "table.h"
#include "text.h"

namespace attn::cli {

namespace {

struct FlopsOptions {
  ModelSource src;
  std::int64_t seq_len = 4096, context = 4096;
  std::uint64_t kv_heads = 0;
  std::string memory = "80GiB";
  ReportOutputs out;  // --json FILE|-, --html FILE|-
};

const char* kParts[] = {"q_proj", "kv_proj", "scores", "softmax_exp", "weighted_sum", "out_proj", "ffn"};

std::uint64_t part(const LayerFlops& f, std::size_t k) {
  const std::uint64_t v[] = {f.q_proj, f.kv_proj, f.scores, f.softmax_exp, f.weighted_sum, f.out_proj, f.ffn};
  return v[k];
}

FlopDims dims_of(const ModelConfig& m, std::uint64_t kv_heads) {
  WhatIfDims w = whatif_dims(m, kv_heads, 0, 0);
  std::uint64_t F = m.n_routed > 0 ? (m.top_k + m.n_shared) * m.moe_d_ff : m.d_ff;
  return FlopDims{m.d, w.n_h, w.n_g == 0 ? 1 : w.n_g, w.d_h, w.d_c, w.d_R, m.mla ? m.d_cq : 0, F, m.gated_ffn};
}

std::string table_for(const std::vector<LayerFlops>& fs, const Text& t) {
  TextTable tb;
  tb.header = {t("flops.col.part")};
  tb.right = {false};
  for (std::size_t v = 0; v < 5; ++v) {
    tb.header.push_back(t("flops.variant." + fs[v].id));
    tb.right.push_back(true);
  }
  auto add_row = [&](const std::string& label, auto value) {
    std::vector<std::string> row{label};
    for (std::size_t v = 0; v < 5; ++v) row.push_back(with_commas_u(value(fs[v])));
    tb.rows.push_back(row);
  };
  for (std::size_t k = 0; k < 6; ++k)  // the attention's parts, then their subtotals, then the FFN
    add_row(t(std::string("flops.part.") + kParts[k]), [&](const LayerFlops& f) { return part(f, k); });
  add_row(t("flops.row.attention_macs"), [](const LayerFlops& f) { return f.macs() - f.ffn; });
  add_row(t("flops.row.attention_flops"), [](const LayerFlops& f) { return 2 * (f.macs() - f.ffn); });
  add_row(t("flops.part.ffn"), [](const LayerFlops& f) { return f.ffn; });
  add_row(t("flops.row.total"), [](const LayerFlops& f) { return 2 * f.macs(); });
  return render_table(tb);
}

nlohmann::ordered_json json_for(const std::vector<LayerFlops>& fs) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const LayerFlops& f : fs) {
    nlohmann::ordered_json j;
    j["name"] = f.id;
    for (std::size_t k = 0; k < 7; ++k) j[kParts[k]] = part(f, k);
    j["attention_macs"] = f.macs() - f.ffn;  // every part but the FFN; exponentials apart
    j["attention_flops"] = 2 * (f.macs() - f.ffn);
    j["macs"] = f.macs();
    j["flops"] = 2 * f.macs();
    arr.push_back(j);
  }
  return arr;
}

// How many sequences of `context` tokens fit in `memory` next to the bf16 weights, per variant
// (the conversation's "MLA allows several times more concurrency", as a number).
struct Fit {
  std::string name;
  std::uint64_t per_sequence, sequences;
};
struct Concurrency {
  std::uint64_t memory, weights;
  std::vector<Fit> fits;
};
Concurrency concurrency(const ModelConfig& m, std::uint64_t kv_heads, std::uint64_t context, const std::string& memory) {
  Concurrency c;
  c.memory = parse_size(memory, "--memory");
  Dtype bf16 = parse_dtype("bf16", "--memory");
  c.weights = bytes_of(count_params(m).total, bf16, "weights");
  std::uint64_t free = c.memory > c.weights ? c.memory - c.weights : 0;
  for (const KvVariant& v : kv_variants(m, whatif_dims(m, kv_heads, 0, 0), context, 1, bf16))
    c.fits.push_back({v.name, v.total_bytes, v.total_bytes ? free / v.total_bytes : 0});
  return c;
}

std::string concurrency_text(const Concurrency& c, std::uint64_t context, const Text& t) {
  std::string out = t("flops.fit.title", {{"memory", binary_size(static_cast<double>(c.memory))},
                                          {"weights", binary_size(static_cast<double>(c.weights))}, {"n", context}}) + "\n";
  TextTable tb;
  tb.header = {t("flops.col.variant"), t("flops.fit.col.per_sequence"), t("flops.fit.col.sequences")};
  tb.right = {false, true, true};
  std::uint64_t gqa = 0, mla = 0;
  for (const Fit& f : c.fits) {
    tb.rows.push_back({t("flops.variant." + (f.name == "mla" ? std::string("mla_absorbed") : f.name)),
                       binary_size(static_cast<double>(f.per_sequence)), with_commas_u(f.sequences)});
    if (f.name == "gqa") gqa = f.sequences;
    if (f.name == "mla") mla = f.sequences;
  }
  out += render_table(tb);
  if (c.memory <= c.weights) return out + "  " + t("flops.fit.no_room") + "\n";
  if (gqa > 0) out += "  " + t("flops.fit.note", {{"times", static_cast<double>(mla) / static_cast<double>(gqa)}}) + "\n";
  return out;
}

void run_flops(const FlopsOptions& o) {
  const Text& t = text();
  if (o.seq_len < 1 || o.seq_len > (std::int64_t{1} << 24))
    throw UsageError("flops.err.range", {{"flag", "--seq-len"}, {"max", std::int64_t{1} << 24}, {"value", o.seq_len}});
  if (o.context < 1 || o.context > (std::int64_t{1} << 24))
    throw UsageError("flops.err.range", {{"flag", "--context"}, {"max", std::int64_t{1} << 24}, {"value", o.context}});
  declare_input("--config", o.src.config);
  declare_report_outputs(o.out);
  ModelConfig m = select_model(o.src.model, o.src.config, o.src.dims);
  FlopDims d = dims_of(m, o.kv_heads);
  std::uint64_t T = static_cast<std::uint64_t>(o.seq_len), N = static_cast<std::uint64_t>(o.context);
  std::vector<LayerFlops> pre, dec;
  try {
    pre = prefill_flops(d, T);
    dec = decode_flops(d, N);
  } catch (const std::overflow_error&) {
    throw UsageError("flops.err.overflow", {{"model", m.name}, {"T", T}, {"n", N}});
  }
  Concurrency fit = concurrency(m, o.kv_heads, N, o.memory);
  nlohmann::ordered_json j;
  {
    j["schema"] = "attnlab.flops/1";
    j["model"] = m.name;
    j["dims"] = {{"d_model", d.D}, {"heads", d.H}, {"kv_heads", d.G}, {"head_dim", d.Dh}, {"d_c", d.C}, {"d_R", d.R},
                 {"d_cq", d.Cq}, {"d_ff", d.F}, {"gated_ffn", d.gated}};
    j["prefill"] = {{"tokens", T}, {"variants", json_for(pre)}};
    j["decode"] = {{"context", N}, {"variants", json_for(dec)}};
    nlohmann::ordered_json fits = nlohmann::ordered_json::array();
    for (const Fit& f : fit.fits) fits.push_back({{"name", f.name}, {"bytes_per_sequence", f.per_sequence}, {"sequences", f.sequences}});
    j["concurrency"] = {{"memory_bytes", fit.memory}, {"weights_bytes_bf16", fit.weights}, {"context", N}, {"variants", fits}};
  }
  std::string out = t("flops.header", {{"model", m.name}, {"d_model", d.D}, {"heads", d.H}, {"kv_heads", d.G}, {"d_h", d.Dh},
                                       {"d_c", d.C}, {"d_R", d.R}, {"d_ff", d.F}, {"gated", d.gated}}) + "\n\n";
  out += t("flops.prefill", {{"T", T}, {"pairs", T * (T + 1) / 2}}) + "\n" + table_for(pre, t) + "\n";
  out += t("flops.decode", {{"n", N}}) + "\n" + table_for(dec, t) + "\n";
  const LayerFlops &mha = pre[0], &one = pre[5];
  std::uint64_t mm_mha = mha.macs() - mha.ffn, mm_one = one.macs() - one.ffn;
  out += t("flops.one_head.title") + "\n";
  out += "  " + t("flops.one_head.text", {{"heads", d.H}, {"d_h", d.Dh}, {"width", d.H * d.Dh}, {"mha", mm_mha},
                                          {"one", mm_one}, {"same", mm_mha == mm_one}, {"exp_mha", mha.softmax_exp},
                                          {"exp_one", one.softmax_exp}}) + "\n\n";
  out += concurrency_text(fit, N, t);
  if (o.out.html) write_html_report(*o.out.html, t("flops.html_title", {{"model", m.name}}), out);
  if (o.out.json) write_json_doc(*o.out.json, "attnlab.flops/1", j.dump(2) + "\n");
  finish_report(o.out, out);
}

}  // namespace

void setup_flops(CLI::App& root) {
  auto opt = std::make_shared<FlopsOptions>();
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("flops", t("flops.description"));
  bind_model_source(sub, opt->src);
  sub->add_option("--kv-heads", opt->kv_heads, t("flops.opt.kv_heads"));
  sub->add_option("--seq-len", opt->seq_len, t("flops.opt.seq_len"));
  sub->add_option("--context", opt->context, t("flops.opt.context"));
  sub->add_option("--memory", opt->memory, t("flops.opt.memory"));
  add_report_outputs(sub, opt->out, t("flops.opt.json"));
  sub->callback([opt, sub] {
    refuse_dims_with_source(*sub, {"--layers", "--heads", "--head-dim", "--d-ff", "--vocab", "--ffn"});
    FlopsOptions o = *opt;
    if (o.src.dims.d_model > 0) o.src.dims.kv_heads = o.kv_heads;
    run_flops(o);
  });
}

}  // namespace attn::cli
