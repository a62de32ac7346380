// attnlab heads --weights PATH --text "…": every head of a real GPT-2 checkpoint, scored for the
// chapter's roles (section 1.4): previous-token, first-token (sentence start), self, and induction
// (on the text repeated twice). A grid per role (layers down, heads across), the top heads of
// each, or --json. Layers and heads count from 1 as the learner reads them, the tensor names'
// index (from 0, L5H1 in TransformerLens) beside; the JSON holds the indices from 0 (numpy's).
// The scores are defined in src/checkpoint/head_roles.h.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "html.h"
#include "errors.h"
#include "head_roles.h"
#include "locate.h"
#include "real_weights.h"
#include "table.h"
#include "text.h"

namespace attn::cli {

namespace {

// Attention weights kept at once: L·H·T² doubles (2^25 = 256 MiB), on the doubled text too.
constexpr std::size_t kHeadsBudget = std::size_t{1} << 25;

struct HeadsOptions {
  std::string weights;
  std::optional<std::string> text, token_ids;
  std::int64_t top = 5;
  ReportOutputs out;  // --json FILE|-, --html FILE|-
};

struct HeadsReport {
  RealInput in;
  HeadRoleScores s;
  bool induction = false;
};

const char* const kRoles[] = {"previous", "first", "self", "induction", "repeat"};

const Tensor& role_grid(const HeadRoleScores& s, const std::string& role) {
  if (role == "previous") return s.previous;
  if (role == "first") return s.first;
  if (role == "self") return s.self;
  if (role == "repeat") return s.repeat;
  return s.induction;
}

// Whether a role was measured on this text: induction needs the doubled text to fit, repeat a token
// that occurs twice.
bool role_measured(const HeadsReport& r, const std::string& role) {
  if (role == "induction") return r.induction;
  if (role == "repeat") return r.s.repeat_queries > 0;
  return true;
}

// What an evenly spread head would score for the role on this text.
double role_even(const HeadsReport& r, const std::string& role) {
  const std::size_t T = r.in.ids.size();
  if (role == "induction") return even_share(2 * T, T);
  if (role == "repeat") return r.s.repeat_even;
  return even_share(T, 1);
}

std::string grid_text(const Tensor& g, const Text& t) {
  TextTable tb;
  tb.header.push_back(t("checkpoint.heads.col.layer"));
  tb.right.push_back(true);
  for (std::size_t h = 0; h < g.dim(1); ++h) {
    tb.header.push_back(t("checkpoint.heads.col.head", {{"head", h + 1}}));
    tb.right.push_back(true);
  }
  for (std::size_t l = 0; l < g.dim(0); ++l) {
    std::vector<std::string> row{t("checkpoint.heads.row.layer", {{"layer", l + 1}, {"l0", l}})};
    for (std::size_t h = 0; h < g.dim(1); ++h) row.push_back(fixed(g(l, h), 2));
    tb.rows.push_back(row);
  }
  return render_table(tb);
}

std::string render_text(const HeadsReport& r, std::size_t top, const Text& t) {
  const ModelConfig& m = r.in.config();
  std::string out = (r.in.llama ? t("llama.heads.model", {{"folder", weights_label(r.in.folder)}, {"type", m.model_type}, {"layers", m.l},
                                                           {"heads", m.n_h}, {"kv_heads", m.n_g}, {"d_model", m.d}})
                     : r.in.mla ? t("llama.heads.model_mla", {{"folder", weights_label(r.in.folder)}, {"type", m.model_type}, {"layers", m.l},
                                                              {"heads", m.n_h}, {"d_model", m.d}, {"d_c", m.d_c}, {"d_R", m.d_R}})
                                : t("checkpoint.heads.model", {{"folder", weights_label(r.in.folder)}, {"layers", m.l}, {"heads", m.n_h}, {"d_model", m.d}})) + "\n";
  out += t("checkpoint.heads.tokens", {{"n", r.in.ids.size()}, {"tokens", fmt::format("{}", fmt::join(r.in.labels, " "))}}) + "\n";
  if (r.in.tokens_given > 0) out += t("checkpoint.heads.cut", {{"given", r.in.tokens_given}, {"n", r.in.ids.size()}}) + "\n";
  out += t(r.in.llama ? "llama.heads.counting" : r.in.mla ? "llama.heads.counting_mla" : "checkpoint.heads.counting") + "\n\n";
  for (const std::string role : kRoles) {
    if (!role_measured(r, role)) {
      out += t(role == "induction" ? "checkpoint.heads.no_induction" : "checkpoint.heads.no_repeat", {{"n", r.in.ids.size()}}) + "\n";
      continue;
    }
    const Tensor& g = role_grid(r.s, role);
    out += t("checkpoint.heads.role." + role, {{"queries", r.s.repeat_queries}}) + "\n" + grid_text(g, t);
    std::vector<std::string> best;
    for (const HeadRef& h : top_heads(g, top)) best.push_back(head_ref(h.layer, h.head) + " " + fixed(h.score, 2));
    out += "  " + t("checkpoint.heads.top", {{"n", best.size()}, {"heads", join_list(best)}}) + "\n\n";
  }
  out += t("checkpoint.heads.reading") + "\n\n";
  // The roles named from the scores: each head whose score passes the rule (head_roles.h)
  out += t("checkpoint.heads.roles_title", {{"share", kRoleShare}, {"times", kRoleOverEven}}) + "\n";
  for (const std::string role : kRoles) {
    if (!role_measured(r, role)) continue;
    const double even = role_even(r, role);
    std::vector<std::string> named;
    for (const HeadRef& h : heads_with_role(role_grid(r.s, role), role_threshold(even)))
      named.push_back(head_ref(h.layer, h.head) + " " + fixed(h.score, 2));
    out += "  " + t("checkpoint.heads.role_named", {{"role", role}, {"any", !named.empty()}, {"heads", join_list(named)},
                                                    {"even", even}, {"threshold", role_threshold(even)}}) + "\n";
  }
  return out;
}

nlohmann::json grid_json(const Tensor& g) {
  nlohmann::json a = nlohmann::json::array();
  for (std::size_t l = 0; l < g.dim(0); ++l) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t h = 0; h < g.dim(1); ++h) row.push_back(g(l, h));
    a.push_back(row);
  }
  return a;
}

std::string render_json(const HeadsReport& r, std::size_t top) {
  const ModelConfig& m = r.in.config();
  nlohmann::json j;
  j["schema"] = "attnlab.heads/1";
  j["weights"] = weights_label(r.in.folder);
  if (r.in.sample) j["sample_text"] = *r.in.sample;  // no --text: the shipped model's own sentence
  j["layers"] = m.l;
  j["heads"] = m.n_h;
  j["d_model"] = m.d;
  if (r.in.llama) {  // the Llama family: its type and its KV heads (GPT-2's output is unchanged)
    j["model_type"] = m.model_type;
    j["kv_heads"] = m.n_g;
  }
  if (r.in.mla) {  // MLA: its type and what it caches per token and layer
    j["model_type"] = m.model_type;
    j["kv_lora_rank"] = m.d_c;
    j["qk_rope_head_dim"] = m.d_R;
  }
  j["token_ids"] = r.in.ids;
  j["tokens"] = r.in.labels;
  if (r.in.tokens_given > 0) j["tokens_given"] = r.in.tokens_given;  // the text was cut to these first tokens
  j["repeat_queries"] = r.s.repeat_queries;
  for (const std::string role : kRoles) {
    if (!role_measured(r, role)) {
      j["scores"][role] = nullptr;
      continue;
    }
    const Tensor& g = role_grid(r.s, role);
    j["scores"][role] = grid_json(g);
    nlohmann::json best = nlohmann::json::array();
    for (const HeadRef& h : top_heads(g, top)) best.push_back({{"layer", h.layer}, {"head", h.head}, {"score", h.score}});
    j["top"][role] = best;
    const double threshold = role_threshold(role_even(r, role));
    nlohmann::json named = nlohmann::json::array();
    for (const HeadRef& h : heads_with_role(g, threshold)) named.push_back({{"layer", h.layer}, {"head", h.head}, {"score", h.score}});
    j["named"][role] = {{"threshold", threshold}, {"heads", named}};
  }
  return j.dump(1) + "\n";
}

void run_heads(const HeadsOptions& o) {
  if (o.top < 1) throw UsageError("checkpoint.err.top", {{"flag", "--top"}});
  HeadsReport r;
  declare_input_folder("--weights", resolve_weights(o.weights));
  declare_report_outputs(o.out);
  // The cap is checked against the model once it is known (it needs L and H).
  // A text longer than the model's positions or the work cap is scored on its first tokens that fit.
  r.in = load_real_input(o.weights, o.text, o.token_ids, SIZE_MAX, true, false, true);
  const ModelConfig& m = r.in.config();
  const std::size_t max_t = tokens_within(m.l, m.n_h, 1, kHeadsBudget);
  if (r.in.ids.size() > max_t) {
    if (r.in.tokens_given == 0) r.in.tokens_given = r.in.ids.size();
    r.in.ids.resize(max_t);
  }
  if (r.in.labels.size() > r.in.ids.size()) r.in.labels.resize(r.in.ids.size());
  std::size_t T = r.in.ids.size();
  if (T < 2) throw UsageError("checkpoint.err.two_tokens", {{"flag", o.text ? "--text" : "--token-ids"}});
  const std::vector<Tensor> weights = real_attention(r.in, r.in.ids);  // one (H, T, T) per layer
  score_positional_roles(weights, r.s);
  score_inner_repeats(weights, r.in.ids, r.s);
  r.induction = 2 * T <= (r.in.max_positions() == 0 ? max_t : std::min<std::size_t>(r.in.max_positions(), max_t));
  if (r.induction) {
    std::vector<std::int64_t> twice = r.in.ids;
    twice.insert(twice.end(), r.in.ids.begin(), r.in.ids.end());
    r.s.induction = induction_scores(real_attention(r.in, twice), T);
  }
  auto top = static_cast<std::size_t>(std::min<std::int64_t>(o.top, static_cast<std::int64_t>(m.l * m.n_h)));
  const Text& t = text();
  std::string report = render_text(r, top, t);
  if (r.in.sample) report = t("common.note_sample_text", {{"text", *r.in.sample}}) + "\n\n" + report;
  if (o.out.html) write_html_report(*o.out.html, t("checkpoint.heads.html_title"), report);  // the grids, preformatted
  if (o.out.json) write_json_doc(*o.out.json, "attnlab.heads/1", render_json(r, top));
  finish_report(o.out, report);
}

}  // namespace

void setup_heads(CLI::App& root) {
  auto opt = std::make_shared<HeadsOptions>();
  const Text& t = text();
  CLI::App* sub = root.add_subcommand("heads", t("checkpoint.heads.description"));
  sub->add_option("--weights", opt->weights, t("cli.opt.weights"))->required();
  sub->add_option("--text", opt->text, t("cli.opt.text"));
  sub->add_option("--token-ids", opt->token_ids, t("cli.opt.token_ids"));
  sub->add_option("--top", opt->top, t("checkpoint.heads.opt.top"));
  add_report_outputs(sub, opt->out, t("checkpoint.heads.opt.json"));
  add_lang_option(sub);
  sub->callback([opt] { run_heads(*opt); });
}

}  // namespace attn::cli
