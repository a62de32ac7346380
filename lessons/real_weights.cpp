// Loading a real checkpoint and the learner's sentence. See real_weights.h.
#include "real_weights.h"

#include <algorithm>

#include "bpe.h"
#include "errors.h"
#include "lesson.h"
#include "locate.h"

namespace attn {

namespace {

// --text longer than this is refused before tokenizing (BPE is quadratic in a piece's length).
constexpr std::size_t kMaxTextBytes = 16384;

std::vector<std::int64_t> parse_ids(const std::string& s) {
  std::vector<std::int64_t> ids;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ',' || s[i] == ' ')) ++i;
    if (i >= s.size()) break;
    std::size_t j = i;
    while (j < s.size() && s[j] != ',' && s[j] != ' ') ++j;
    std::string word = s.substr(i, j - i);
    bool digits = !word.empty() && word.size() <= 9;
    for (char c : word) digits = digits && c >= '0' && c <= '9';
    if (!digits) throw UsageError("checkpoint.err.token_id", {{"flag", "--token-ids"}, {"value", word}});
    ids.push_back(std::stoll(word));
    i = j;
  }
  return ids;
}


}  // namespace

std::vector<Tensor> real_attention(const RealInput& in, const std::vector<std::int64_t>& ids) {
  if (in.llama) return llama_forward(*in.llama, ids, false).attention;
  if (in.mla) return mla_forward(*in.mla, ids, false).attention;
  return gpt2_forward(*in.model, ids, false).attention;
}

std::size_t tokens_within(std::size_t layers, std::size_t heads, std::size_t count, std::size_t budget) {
  std::size_t per = std::max<std::size_t>(1, layers * heads * count), T = 1;
  while ((T + 1) * (T + 1) <= budget / per) ++T;
  return T;
}

std::size_t checkpoint_layer(const std::optional<std::int64_t>& flag, std::size_t layers) {
  const std::int64_t n = flag.value_or(1);
  if (n < 1 || static_cast<std::uint64_t>(n) > layers)
    throw UsageError("checkpoint.err.layer", {{"flag", "--layer"}, {"value", n}, {"layers", layers}});
  return static_cast<std::size_t>(n - 1);
}

std::size_t checkpoint_head(const std::optional<std::int64_t>& flag, std::size_t heads) {
  const std::int64_t n = flag.value_or(1);
  if (n < 1 || static_cast<std::uint64_t>(n) > heads)
    throw UsageError("checkpoint.err.head", {{"flag", "--head"}, {"value", n}, {"heads", heads}});
  return static_cast<std::size_t>(n - 1);
}

RealInput load_real_input(const std::string& weights, const std::optional<std::string>& text,
                          const std::optional<std::string>& token_ids, std::size_t max_tokens, bool allow_mla,
                          bool is_sample, bool cut_to_fit) {
  if (text && token_ids) throw UsageError("checkpoint.err.text_and_ids", {});
  std::optional<std::string> sample;
  if (!text && !token_ids) {
    sample = builtin_sample_text(weights);
    if (!sample) throw UsageError("checkpoint.err.no_text", {});
    return load_real_input(weights, sample, std::nullopt, max_tokens, allow_mla, true, cut_to_fit);
  }
  RealInput in;
  in.folder = resolve_weights(weights);
  std::string type = config_model_type(in.folder);
  if (!type.empty() && type != "gpt2" && !is_llama_family(type) && !is_mla_family(type))
    throw UsageError("llama.err.arch", {{"file", in.folder + "/config.json"}, {"type", type}});
  if (is_mla_family(type) && !allow_mla) throw UsageError("llama.err.mla_only", {{"folder", in.folder}});
  if (is_llama_family(type)) in.llama = std::make_unique<LlamaModel>(in.folder);
  else if (is_mla_family(type)) in.mla = std::make_unique<MlaModel>(in.folder);
  else in.model = std::make_unique<Gpt2Model>(in.folder);
  const ModelConfig& m = in.config();
  bool has_tokenizer = Gpt2Tokenizer::folder_has_tokenizer(in.folder);
  std::shared_ptr<const Tokenizer> tok;
  if (text) {
    if (text->size() > kMaxTextBytes) throw UsageError("checkpoint.err.text_long", {{"flag", "--text"}, {"max", kMaxTextBytes}});
    if (!has_tokenizer) throw UsageError("checkpoint.err.no_tokenizer", {{"folder", in.folder}});
    tok = load_tokenizer(in.folder);
    in.ids = tok->encode(*text);
    in.from_text = true;
    if (is_sample) in.sample = *text;
    if (in.ids.empty()) throw UsageError("checkpoint.err.empty_text", {{"flag", "--text"}});
  } else {
    if (token_ids->size() > kMaxTextBytes) throw UsageError("checkpoint.err.text_long", {{"flag", "--token-ids"}, {"max", kMaxTextBytes}});
    in.ids = parse_ids(*token_ids);
    if (in.ids.empty()) throw UsageError("checkpoint.err.empty_text", {{"flag", "--token-ids"}});
    if (has_tokenizer) tok = load_tokenizer(in.folder);
  }
  for (std::int64_t id : in.ids)
    if (id < 0 || static_cast<std::uint64_t>(id) >= m.vocab)
      throw UsageError("checkpoint.err.id_range", {{"id", id}, {"vocab", m.vocab}, {"from_text", text.has_value()}, {"folder", in.folder}});
  std::size_t limit = in.max_positions() == 0 ? max_tokens : std::min<std::size_t>(max_tokens, in.max_positions());
  if (in.ids.size() > limit && cut_to_fit) {
    in.tokens_given = in.ids.size();
    in.ids.resize(limit);
  }
  if (in.ids.size() > limit)
    throw UsageError("checkpoint.err.too_many_tokens", {{"flag", text ? "--text" : "--token-ids"}, {"n", in.ids.size()}, {"max", limit}});
  in.tokenizer = std::move(tok);
  // The forward through every layer, one layer's weights held at a time as doubles; `heads` runs it
  // on the tokens and on them twice over (3T in all). A layer of a model too large to hold (a
  // 405B's, 2.6·10^9 numbers) is refused here, up front, with the flags that size it.
  double D = static_cast<double>(m.d), F = static_cast<double>(m.d_ff), L = static_cast<double>(m.l);
  double H = static_cast<double>(m.n_h), G = static_cast<double>(m.n_g), Dh = static_cast<double>(m.d_h);
  double layer = D * (H + 2.0 * G) * Dh + H * Dh * D + (m.gated_ffn ? 3.0 : 2.0) * D * F;
  const char* flag = text ? "--text" : "--token-ids";
  require_work([&](double t) {
    t *= 3.0;
    return Work{L * (t * layer + 2.0 * t * t * H * Dh), layer + L * H * t * t + t * (4.0 * D + 2.0 * F)};
  }, in.ids.size(), flag, std::string(flag) + ", --weights");
  for (std::int64_t id : in.ids) in.labels.push_back(in.label(id));
  return in;
}

}  // namespace attn
