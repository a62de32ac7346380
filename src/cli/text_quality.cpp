#include "text_quality.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "char_vocab.h"
#include "commands.h"
#include "corpus.h"
#include "input_file.h"
#include "libm.h"
#include "text.h"
#include "text_task.h"

namespace attn::cli {

namespace {
std::vector<int> quality_ids(const CharTokenizer& tok, const std::string& text) {
  std::vector<std::int64_t> v = tok.encode(text);
  return {v.begin(), v.end()};
}
}  // namespace

std::optional<TextQuality> text_quality(const std::string& folder) {
  namespace fs = std::filesystem;
  const std::string cfg_file = folder + "/config.json", log_file = folder + "/training.json", tok_file = folder + "/tokenizer.json";
  if (!fs::is_regular_file(cfg_file) || !fs::is_regular_file(log_file) || !fs::is_regular_file(tok_file)) return std::nullopt;
  const nlohmann::json cfg = nlohmann::json::parse(read_regular_file(cfg_file, std::size_t{4} << 20, "--weights"), nullptr, false);
  const nlohmann::json log = nlohmann::json::parse(read_regular_file(log_file, std::size_t{64} << 20, "--weights"), nullptr, false);
  if (cfg.is_discarded() || log.is_discarded() || !cfg.contains("attnlab_corpus") || !log.contains("text")) return std::nullopt;
  const nlohmann::json& c = cfg["attnlab_corpus"];
  const nlohmann::json& rec = log["text"];
  if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !rec.is_object() || !rec.contains("heldout_bpc") ||
      !rec["heldout_bpc"].is_number())
    return std::nullopt;
  TextQuality q;
  q.corpus = c["name"].get<std::string>();
  if (!has_bundled_corpus(q.corpus)) return std::nullopt;  // only a bundled text is at hand
  q.model_bpc = rec["heldout_bpc"].get<double>();
  const CharTokenizer tok = CharTokenizer::from_tokenizer_json(read_regular_file(tok_file, std::size_t{64} << 20, "--weights"), tok_file);
  // the held-out slice, as split_corpus cuts it
  const std::string text = bundled_corpus(q.corpus);
  const std::size_t at = heldout_start(text);
  const std::vector<int> train = quality_ids(tok, text.substr(0, at)), heldout = quality_ids(tok, text.substr(at));
  q.vocab = tok.vocab_size();
  q.heldout_characters = heldout.size();
  for (int id : heldout) q.heldout_unk += id == tok.unk_id();
  const train::NgramLoss g = train::ngram_loss(train, heldout, q.vocab);
  const double ln2 = libm::log(2.0);
  q.unigram_bpc = g.unigram / ln2;
  q.bigram_bpc = g.bigram / ln2;
  q.trigram_bpc = g.trigram / ln2;
  return q;
}

std::string text_quality_text(const TextQuality& q, const std::string& indent) {
  const Text& t = text();
  const double unk = q.heldout_characters ? 100.0 * static_cast<double>(q.heldout_unk) / static_cast<double>(q.heldout_characters) : 0.0;
  std::string out = indent + t("checkpoint.quality.slice", {{"corpus", q.corpus}, {"n", q.heldout_characters}, {"vocab", q.vocab},
                                                            {"unk", q.heldout_unk}, {"unk_pct", unk}}) + "\n";
  out += indent + "  " + t("checkpoint.quality.model", {{"bpc", q.model_bpc}}) + "\n";
  out += indent + "  " + t("checkpoint.quality.unigram", {{"bpc", q.unigram_bpc}}) + "\n";
  out += indent + "  " + t("checkpoint.quality.bigram", {{"bpc", q.bigram_bpc}}) + "\n";
  out += indent + "  " + t("checkpoint.quality.trigram", {{"bpc", q.trigram_bpc}}) + "\n";
  out += indent + t("checkpoint.quality.verdict", {{"beats", q.model_bpc < q.trigram_bpc}, {"diff", q.trigram_bpc - q.model_bpc},
                                                   {"back", q.model_bpc - q.trigram_bpc}}) + "\n";
  return out;
}

}  // namespace attn::cli
