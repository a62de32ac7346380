// attnlab generate --weights PATH --text "…" --tokens N: greedy decoding on a real checkpoint with
// a KV cache. Per generated token: the token, its logit and probability, and the cache as it grows
// (its size per layer and in all layers, at the checkpoint's dtype and at bf16); then the cache
// layer by layer (from 1, the tensor index beside), the check that the cache changed nothing (its logits
// against a full forward over the same tokens), and the same cache in `attnlab kv-cache`.
// The math is src/checkpoint/generate.h.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "errors.h"
#include "generate.h"
#include "locate.h"
#include "models.h"
#include "real_weights.h"
#include "table.h"
#include "text.h"
#include "text_quality.h"
#include "char_vocab.h"

namespace attn::cli {

namespace {

constexpr std::size_t kMaxPrompt = 1024;   // prompt tokens (the model's positions may cap it lower)
constexpr std::int64_t kMaxGenerate = 256;  // --tokens

struct GenerateOptions {
  std::string weights;
  std::optional<std::string> text, token_ids;
  std::int64_t tokens = 10;
  ReportOutputs out;  // --json FILE|-, --html FILE|-
  double temperature = 0.0;  // --temperature: 0 is greedy
  std::int64_t top_k = 0;    // --top-k: 0 keeps every token
  std::int64_t seed = 42;    // --seed: the sampling draws
};

// What the report shows, computed before anything is printed.
struct GenerateReport {
  RealInput in;
  GenerateRun run;
  std::size_t prompt_len = 0;
  Sampling sampling;
  double max_diff = 0;           // cached logits against the full forward
  DType dtype = DType::F32;      // the checkpoint's: its K projection's
  u64 per_token_layer = 0;       // cache numbers one token adds to one layer: 2·G·Dh
  u64 bridge_bytes = 0;          // attnlab kv-cache's bf16 total for the final cache
  std::optional<TextQuality> quality;  // a text model's held-out figures (text_quality.h)
};

// The dtype of the first K projection tensor (GPT-2's fused c_attn, a Llama's k_proj).
DType cache_dtype(const Checkpoint& ck) {
  for (const TensorEntry* e : ck.all())
    if (e->name.ends_with("h.0.attn.c_attn.weight") || e->name.ends_with("layers.0.self_attn.k_proj.weight")) return e->dtype;
  return DType::F32;
}

GenerateReport compute(const GenerateOptions& o) {
  if (!std::isfinite(o.temperature) || o.temperature < 0 || o.temperature > 100)
    throw UsageError("checkpoint.err.temperature", {{"flag", "--temperature"}, {"value", fmt::format("{}", o.temperature)}});
  if (o.top_k < 0) throw UsageError("cli.err.negative", {{"flag", "--top-k"}, {"value", o.top_k}});
  if (o.seed < 0) throw UsageError("cli.err.seed", {{"flag", "--seed"}, {"value", o.seed}});
  if (o.temperature == 0 && o.top_k > 0) throw UsageError("checkpoint.err.top_k_greedy", {{"flag", "--top-k"}});
  if (o.tokens < 1 || o.tokens > kMaxGenerate)
    throw UsageError("checkpoint.err.generate_tokens", {{"flag", "--tokens"}, {"value", o.tokens}, {"max", kMaxGenerate}});
  GenerateReport r;
  r.in = load_real_input(o.weights, o.text, o.token_ids, kMaxPrompt, true);
  r.prompt_len = r.in.ids.size();
  r.sampling = Sampling{o.temperature, static_cast<std::size_t>(o.top_k), static_cast<std::uint64_t>(o.seed)};
  auto n = static_cast<std::size_t>(o.tokens);
  std::uint64_t max = r.in.max_positions();
  if (max != 0 && r.prompt_len + n - 1 > max)  // the last token is never fed
    throw UsageError("checkpoint.err.generate_positions", {{"flag", "--tokens"}, {"n", n}, {"prompt", r.prompt_len}, {"max", max}});
  const ModelRef model{r.in.model.get(), r.in.llama.get(), r.in.mla.get()};
  // a character model's <unk> is not a character: never chosen (Sampling::masked)
  if (const auto* chars = dynamic_cast<const CharTokenizer*>(r.in.tokenizer.get())) r.sampling.masked = chars->unk_id();
  r.quality = text_quality(r.in.folder);
  r.run = generate_greedy(model, r.in.ids, n, kKeptLayerBytes, r.sampling);
  r.max_diff = cached_vs_full(model, r.run, r.prompt_len);
  const ModelConfig& m = r.in.config();
  r.dtype = cache_dtype(model.llama ? model.llama->checkpoint() : model.mla ? model.mla->checkpoint() : model.gpt2->checkpoint());
  r.per_token_layer = m.mla ? m.d_c + m.d_R : 2 * m.n_g * m.d_h;
  r.bridge_bytes = kv_usage(m, r.run.cache.tokens(), 1, parse_dtype("bf16", "--dtype"), 1).total_bytes;
  return r;
}

// Text to print: UTF-8 kept, a newline kept; any other control character, and bytes that are not
// UTF-8, shown as U+FFFD (a token's bytes may hold an escape sequence).
std::string readable(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && n == 1 && ((c < 0x20 && c != '\n') || c == 0x7F)) ok = false;
    if (ok && n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) ok = false;  // C1 controls
    if (!ok) {
      out += "\uFFFD";
      i += std::max<std::size_t>(1, n == 0 ? 1 : 1);
      continue;
    }
    out.append(s, i, n);
    i += n;
  }
  return out;
}

u64 layer_numbers(const KvCache& c, std::size_t i) { return c.K[i].numel() + c.V[i].numel(); }

std::string step_table(const GenerateReport& r, const Text& t) {
  const char* dt = dtype_name(r.dtype);
  u64 L = r.in.config().l, size = dtype_size(r.dtype);
  TextTable tb;
  tb.header = {t("checkpoint.generate.col.step"), t("checkpoint.generate.col.token"), "id", "logit", t("checkpoint.generate.col.prob"),
               t("checkpoint.generate.col.cache"), t("checkpoint.generate.col.per_layer", {{"dtype", dt}}),
               t("checkpoint.generate.col.total", {{"dtype", dt}}), t("checkpoint.generate.col.total", {{"dtype", "bf16"}})};
  tb.right = {true, false, true, true, true, true, true, true, true};
  for (std::size_t s = 0; s < r.run.steps.size(); ++s) {
    const GenerateStep& g = r.run.steps[s];
    u64 per_layer = r.per_token_layer * g.cache_tokens;
    tb.rows.push_back({std::to_string(s + 1), r.in.label(g.id), std::to_string(g.id), fixed(g.logit, 3), fixed(g.prob, 3),
                       std::to_string(g.cache_tokens), with_commas_u(per_layer * size), with_commas_u(per_layer * size * L),
                       with_commas_u(per_layer * 2 * L)});
  }
  return render_table(tb);
}

std::string layer_table(const GenerateReport& r, const Text& t) {
  const char* dt = dtype_name(r.dtype);
  TextTable tb;
  const bool mla = r.in.config().mla;
  tb.header = {t("checkpoint.heads.col.layer"), mla ? "c_KV" : "K", mla ? "K_R" : "V", t("checkpoint.generate.col.numbers"), dt, "bf16"};
  tb.right = {true, false, false, true, true, true};
  for (std::size_t i = 0; i < r.run.cache.K.size(); ++i) {
    u64 numbers = layer_numbers(r.run.cache, i);
    tb.rows.push_back({t("checkpoint.heads.row.layer", {{"layer", i + 1}, {"l0", i}}), shape_str(r.run.cache.K[i].shape), shape_str(r.run.cache.V[i].shape),
                       with_commas_u(numbers), with_commas_u(numbers * dtype_size(r.dtype)), with_commas_u(numbers * 2)});
  }
  return render_table(tb);
}

u64 total_numbers(const KvCache& c) {
  u64 n = 0;
  for (std::size_t i = 0; i < c.K.size(); ++i) n += layer_numbers(c, i);
  return n;
}

std::string render_text(const GenerateReport& r, const Text& t) {
  const ModelConfig& m = r.in.config();
  std::size_t cached = r.run.cache.tokens(), N = r.run.steps.size();
  std::vector<std::string> generated;
  for (const GenerateStep& g : r.run.steps) generated.push_back(r.in.label(g.id));
  std::string out = t("checkpoint.generate.model", {{"folder", weights_label(r.in.folder)}, {"type", m.model_type}, {"layers", m.l}, {"heads", m.n_h},
                                                    {"kv_heads", m.n_g}, {"d_head", m.d_h}, {"dtype", dtype_name(r.dtype)},
                                                    {"mla", m.mla}, {"d_qk", m.d_nope + m.d_R}, {"d_nope", m.d_nope},
                                                    {"d_R", m.d_R}, {"d_v", m.d_v}, {"d_c", m.d_c}}) + "\n";
  if (r.quality) out += text_quality_text(*r.quality, "  ");
  out += t("checkpoint.generate.prompt", {{"n", r.prompt_len}, {"tokens", fmt::format("{}", fmt::join(r.in.labels, " "))}}) + "\n\n";
  // the cache is described as this model fills it, the choice of token as this run makes it
  out += t("checkpoint.generate.how", {{"prompt", r.prompt_len}, {"mla", m.mla}, {"greedy", r.sampling.temperature == 0},
                                       {"temperature", r.sampling.temperature}, {"top_k", r.sampling.top_k}}) +
         "\n\n" + step_table(r, t) + "\n";
  out += t("checkpoint.generate.generated", {{"tokens", fmt::format("{}", fmt::join(generated, " "))}}) + "\n";
  out += t("checkpoint.generate.mode", {{"temperature", r.sampling.temperature}, {"top_k", r.sampling.top_k}, {"seed", r.sampling.seed},
                                        {"masked", r.sampling.masked >= 0}}) + "\n";
  if (r.sampling.masked >= 0) out += t("checkpoint.generate.unk_masked", {{"id", r.sampling.masked}}) + "\n";
  if (r.in.from_text) {  // the prompt and its continuation as one text, as a reader sees it
    std::string text;
    for (std::int64_t id : r.run.ids) text += r.in.text_of(id);
    text = readable(text);
    out += t("checkpoint.generate.as_text") + "\n";
    std::size_t at = 0;
    while (at <= text.size()) {
      std::size_t nl = text.find('\n', at);
      out += "  │ " + text.substr(at, nl == std::string::npos ? std::string::npos : nl - at) + "\n";
      if (nl == std::string::npos) break;
      at = nl + 1;
    }
  }
  out += "\n";
  out += t(m.mla ? "checkpoint.generate.per_token_mla" : "checkpoint.generate.per_token",
           {{"kv_heads", m.n_g}, {"d_head", m.d_h}, {"per_layer", r.per_token_layer}, {"layers", m.l},
            {"per_token", r.per_token_layer * m.l}, {"dtype", dtype_name(r.dtype)},
            {"bytes", r.per_token_layer * m.l * dtype_size(r.dtype)}, {"bytes_bf16", r.per_token_layer * m.l * 2},
            {"d_c", m.d_c}, {"d_R", m.d_R}, {"heads", m.n_h}, {"d_v", m.d_v}, {"mha", 2 * m.n_h * m.d_v}}) + "\n";
  out += t("checkpoint.generate.layers", {{"t", cached}, {"prompt", r.prompt_len}, {"n", N}, {"mla", m.mla}}) + "\n" + layer_table(r, t) + "\n";
  out += t("checkpoint.generate.check", {{"t", cached}, {"n", N}, {"diff", r.max_diff}}) + "\n\n";
  u64 bf16 = total_numbers(r.run.cache) * 2;
  out += t("checkpoint.generate.bridge", {{"config", r.in.folder + "/config.json"}, {"t", cached}, {"bytes", r.bridge_bytes},
                                          {"same", r.bridge_bytes == bf16}}) + "\n";
  return out;
}

std::string render_json(const GenerateReport& r) {
  const ModelConfig& m = r.in.config();
  nlohmann::ordered_json j;
  j["schema"] = "attnlab.generate/1";
  j["weights"] = weights_label(r.in.folder);
  j["model_type"] = m.model_type;
  j["layers"] = m.l;
  j["heads"] = m.n_h;
  j["kv_heads"] = m.n_g;
  j["head_dim"] = m.d_h;
  j["dtype"] = dtype_name(r.dtype);
  j["prompt"] = {{"token_ids", r.in.ids}, {"tokens", r.in.labels}};
  u64 size = dtype_size(r.dtype);
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const GenerateStep& g : r.run.steps) {
    u64 per_layer = r.per_token_layer * g.cache_tokens;
    steps.push_back({{"id", g.id}, {"token", r.in.label(g.id)}, {"logit", g.logit}, {"prob", g.prob},
                     {"cache_tokens", g.cache_tokens}, {"cache_bytes_per_layer", per_layer * size},
                     {"cache_bytes", per_layer * size * m.l}, {"cache_bytes_bf16", per_layer * 2 * m.l}});
  }
  j["steps"] = steps;
  j["sampling"] = {{"temperature", r.sampling.temperature}, {"top_k", r.sampling.top_k}, {"seed", r.sampling.seed},
                   {"masked_id", r.sampling.masked}};
  if (r.in.from_text) {
    std::string text;
    for (std::int64_t id : r.run.ids) text += r.in.text_of(id);
    j["text"] = readable(text);
  }
  j["token_ids"] = r.run.ids;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.run.cache.K.size(); ++i) {
    u64 numbers = layer_numbers(r.run.cache, i);
    const bool mla = r.in.config().mla;  // MLA caches the latent and the shared RoPE key
    layers.push_back({{"layer", i}, {mla ? "c_KV" : "K", r.run.cache.K[i].shape}, {mla ? "K_R" : "V", r.run.cache.V[i].shape}, {"numbers", numbers},
                      {"bytes", numbers * size}, {"bytes_bf16", numbers * 2}});
  }
  j["cache"] = {{"tokens", r.run.cache.tokens()}, {"numbers_per_token_per_layer", r.per_token_layer}, {"layers", layers},
                {"bytes", total_numbers(r.run.cache) * size}, {"bytes_bf16", total_numbers(r.run.cache) * 2}};
  j["check"] = {{"max_abs_diff_vs_full_forward", r.max_diff}};
  j["kv_cache_bridge"] = {{"command", fmt::format("attnlab kv-cache --config {}/config.json --seq-len {} --dtype bf16", r.in.folder,
                                                  r.run.cache.tokens())},
                          {"bytes", r.bridge_bytes}};
  return j.dump(1) + "\n";
}

void run_generate(const GenerateOptions& o) {
  declare_input_folder("--weights", resolve_weights(o.weights));
  declare_report_outputs(o.out);
  GenerateReport r = compute(o);
  const Text& t = text();
  std::string report = render_text(r, t);
  if (r.in.sample) report = t("common.note_sample_text", {{"text", *r.in.sample}}) + "\n\n" + report;
  if (o.out.html) write_html_report(*o.out.html, t("checkpoint.generate.html_title"), report);
  if (o.out.json) write_json_doc(*o.out.json, "attnlab.generate/1", render_json(r));
  finish_report(o.out, report);
}

}  // namespace

void setup_generate(CLI::App& root) {
  auto opt = std::make_shared<GenerateOptions>();
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("generate", t("checkpoint.generate.description"));
  sub->add_option("--weights", opt->weights, t("cli.opt.weights"))->required();
  sub->add_option("--text", opt->text, t("cli.opt.text"));
  sub->add_option("--token-ids", opt->token_ids, t("cli.opt.token_ids"));
  sub->add_option("--tokens", opt->tokens, t("checkpoint.generate.opt.tokens"));
  add_report_outputs(sub, opt->out, t("checkpoint.generate.opt.json"));
  sub->add_option("--temperature", opt->temperature, t("checkpoint.generate.opt.temperature"));
  sub->add_option("--top-k", opt->top_k, t("checkpoint.generate.opt.top_k"));
  sub->add_option("--seed", opt->seed, t("checkpoint.generate.opt.seed"));
  add_lang_option(sub);
  sub->callback([opt, sub] {
    // greedy decoding draws nothing: a seed given there would be ignored
    if (sub->count("--seed") > 0 && opt->temperature == 0) throw UsageError("checkpoint.err.seed_greedy", {{"flag", "--seed"}});
    run_generate(*opt);
  });
}

}  // namespace attn::cli
