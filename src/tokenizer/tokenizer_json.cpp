// A Hugging Face tokenizer.json, read by its model.type: byte-level BPE (bpe.h, from_tokenizer_json)
// or a character-level WordLevel (char_vocab.h). The BPE layout:
//   {"model": {"type": "BPE", "vocab": {token: id}, "merges": ["a b", …] or [["a", "b"], …],
//              "ignore_merges": bool, "byte_fallback": false},
//    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": bool, "use_regex": bool}
//                  or {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "…"},
//                      "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "use_regex": false}]},
//    "normalizer": null, {"type": "NFC"} or {"type": "Sequence", "normalizers": [{"type": "NFC"}]},
//    "added_tokens": [{"id": n, "content": "<|…|>"}, …]}
// The WordLevel layout is the one char_tokenizer_json writes (char_vocab.h).
// Every field of the wrong kind (a number where a string belongs, null, a missing key) is the
// UsageError checkpoint.err.tokenizer_json naming the key: nothing here lets nlohmann throw.
#include <nlohmann/json.hpp>

#include "bpe.h"
#include "char_vocab.h"
#include "errors.h"
#include "pattern.h"
#include "utf8.h"

namespace attn {

namespace {

using Json = nlohmann::json;

[[noreturn]] void bad(const std::string& file, const std::string& key) {
  throw UsageError("checkpoint.err.tokenizer_json", {{"file", file}, {"key", key}});
}

const Json& member(const Json& j, const char* key, const std::string& file, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) bad(file, path);
  return j[key];
}

bool flag(const Json& j, const char* key, bool fallback, const std::string& file, const std::string& path) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_boolean()) bad(file, path);
  return j[key].get<bool>();
}

// A string field such as "type": `fallback` when absent; j not an object, or the field anything
// but a string (a number, null): refused naming `path`.
std::string text(const Json& j, const char* key, const std::string& fallback, const std::string& file, const std::string& path) {
  if (!j.is_object()) bad(file, path);
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) bad(file, path);
  return j[key].get<std::string>();
}

Json parse(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::exception&) {  // a syntax error, or a number out of range (1e999)
    bad(file, "(JSON)");
  }
}

// model.type: "BPE" when absent (tokenizers' older files), else a string.
std::string model_type(const Json& j, const std::string& file) {
  const Json& model = member(j, "model", file, "model");
  return text(model, "type", "BPE", file, "model.type");
}

// GPT-2's pattern, as ByteLevel with use_regex true applies it.
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// The normalizer: none (absent or null), {"type": "NFC"} (Qwen2), or a Sequence of NFC alone;
// true when it is NFC. Any other is refused naming the key.
bool reads_nfc(const Json& j, const std::string& file) {
  if (!j.contains("normalizer") || j["normalizer"].is_null()) return false;
  const Json& n = j["normalizer"];
  auto is_nfc = [](const Json& x) { return x.is_object() && x.contains("type") && x["type"] == "NFC"; };
  if (is_nfc(n)) return true;
  if (!n.is_object() || !n.contains("type") || n["type"] != "Sequence") bad(file, "normalizer");
  const Json& list = member(n, "normalizers", file, "normalizer.normalizers");
  if (!list.is_array() || list.empty()) bad(file, "normalizer.normalizers");
  for (std::size_t i = 0; i < list.size(); ++i)
    if (!is_nfc(list[i])) bad(file, "normalizer.normalizers[" + std::to_string(i) + "]");
  return true;
}

}  // namespace

struct TokenizerJsonReader {
  static Gpt2Tokenizer bpe(const Json& j, const std::string& file);
  static CharTokenizer word_level(const Json& j, const std::string& file);
};

Gpt2Tokenizer Gpt2Tokenizer::from_tokenizer_json(const std::string& json, const std::string& file) {
  return TokenizerJsonReader::bpe(parse(json, file), file);
}

CharTokenizer CharTokenizer::from_tokenizer_json(const std::string& json, const std::string& file) {
  return TokenizerJsonReader::word_level(parse(json, file), file);
}

std::shared_ptr<const Tokenizer> read_tokenizer_json(const std::string& json, const std::string& file) {
  Json j = parse(json, file);
  if (model_type(j, file) == "WordLevel") return std::make_shared<const CharTokenizer>(TokenizerJsonReader::word_level(j, file));
  return std::make_shared<const Gpt2Tokenizer>(TokenizerJsonReader::bpe(j, file));
}

Gpt2Tokenizer TokenizerJsonReader::bpe(const Json& j, const std::string& file) {
  Gpt2Tokenizer tok;
  tok.vocab_file_ = file;
  if (model_type(j, file) != "BPE") bad(file, "model.type");
  const Json& model = j["model"];
  if (flag(model, "byte_fallback", false, file, "model.byte_fallback")) bad(file, "model.byte_fallback");
  tok.ignore_merges_ = flag(model, "ignore_merges", false, file, "model.ignore_merges");
  const Json& vocab = member(model, "vocab", file, "model.vocab");
  if (!vocab.is_object()) bad(file, "model.vocab");
  auto add = [&](const std::string& token, const Json& id, const std::string& path) {
    if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= (1u << 24)) bad(file, path);
    auto i = id.get<std::size_t>();
    tok.vocab_[token] = static_cast<std::int64_t>(i);
    if (tok.id_to_token_.size() <= i) tok.id_to_token_.resize(i + 1);
    tok.id_to_token_[i] = token;
  };
  for (auto it = vocab.begin(); it != vocab.end(); ++it) add(it.key(), it.value(), "model.vocab");
  const Json& merges = member(model, "merges", file, "model.merges");
  if (!merges.is_array()) bad(file, "model.merges");
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const Json& m = merges[r];
    std::string path = "model.merges[" + std::to_string(r) + "]";
    if (m.is_string()) {
      std::string s = m.get<std::string>();
      std::size_t sp = s.find(' ');
      if (sp == std::string::npos || sp == 0 || sp + 1 >= s.size() || s.find(' ', sp + 1) != std::string::npos) bad(file, path);
      tok.ranks_.emplace(std::make_pair(s.substr(0, sp), s.substr(sp + 1)), r);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      tok.ranks_.emplace(std::make_pair(m[0].get<std::string>(), m[1].get<std::string>()), r);
    } else {
      bad(file, path);
    }
  }
  if (j.contains("added_tokens") && !j["added_tokens"].is_null()) {  // labels only: "<|endoftext|>" shows as itself
    if (!j["added_tokens"].is_array()) bad(file, "added_tokens");
    for (const Json& a : j["added_tokens"]) {
      if (!a.is_object() || !a.contains("content") || !a["content"].is_string() || !a.contains("id")) bad(file, "added_tokens");
      std::string content = a["content"].get<std::string>();
      if (vocab.contains(content)) continue;  // a token of the model's own vocabulary
      add(content, a["id"], "added_tokens");
      tok.vocab_.erase(content);  // never matched in the text
    }
  }
  tok.nfc_ = reads_nfc(j, file);
  // The pre-tokenizer: ByteLevel alone, or Split(s) then ByteLevel.
  const Json& pre = member(j, "pre_tokenizer", file, "pre_tokenizer");
  std::vector<const Json*> steps;
  if (pre.is_object() && pre.contains("type") && pre["type"] == "Sequence") {
    const Json& list = member(pre, "pretokenizers", file, "pre_tokenizer.pretokenizers");
    if (!list.is_array()) bad(file, "pre_tokenizer.pretokenizers");
    for (const Json& p : list) steps.push_back(&p);
  } else {
    steps.push_back(&pre);
  }
  bool byte_level = false;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Json& p = *steps[i];
    std::string path = "pre_tokenizer" + (steps.size() > 1 ? ".pretokenizers[" + std::to_string(i) + "]" : std::string());
    std::string type = text(p, "type", "", file, path + ".type");
    if (type == "Split" && !byte_level && !tok.split_) {
      const Json& pattern = member(p, "pattern", file, path + ".pattern");
      if (!pattern.is_object() || !pattern.contains("Regex") || !pattern["Regex"].is_string()) bad(file, path + ".pattern");
      if (text(p, "behavior", "", file, path + ".behavior") != "Isolated") bad(file, path + ".behavior");
      if (flag(p, "invert", false, file, path + ".invert")) bad(file, path + ".invert");
      tok.split_ = std::make_shared<const Regex>(pattern["Regex"].get<std::string>(), file);
    } else if (type == "ByteLevel" && !byte_level) {
      byte_level = true;
      tok.add_prefix_space_ = flag(p, "add_prefix_space", false, file, path + ".add_prefix_space");
      bool use_regex = flag(p, "use_regex", true, file, path + ".use_regex");
      if (use_regex && tok.split_) bad(file, path + ".use_regex");  // two patterns in a row: not supported
      if (!tok.split_) tok.split_ = use_regex ? std::make_shared<const Regex>(kGpt2Pattern, file) : std::make_shared<const Regex>();
    } else {
      bad(file, path + ".type");
    }
  }
  if (!byte_level) bad(file, "pre_tokenizer");
  return tok;
}

CharTokenizer TokenizerJsonReader::word_level(const Json& j, const std::string& file) {
  CharTokenizer tok;
  if (model_type(j, file) != "WordLevel") bad(file, "model.type");
  const Json& model = j["model"];
  // The vocab: ids 0…N-1, each once (a hole would be a token with no string).
  const Json& vocab = member(model, "vocab", file, "model.vocab");
  if (!vocab.is_object() || vocab.empty() || vocab.size() > (1u << 24)) bad(file, "model.vocab");
  tok.tokens_.assign(vocab.size(), std::string());
  std::vector<bool> taken(vocab.size(), false);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const Json& id = it.value();
    if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= vocab.size() || taken[id.get<std::size_t>()]) bad(file, "model.vocab");
    taken[id.get<std::size_t>()] = true;
    tok.tokens_[id.get<std::size_t>()] = it.key();
  }
  // The unk token: required (tokenizers refuses a WordLevel without it) and a token of the vocab.
  const Json& unk = member(model, "unk_token", file, "model.unk_token");
  if (!unk.is_string() || !vocab.contains(unk.get<std::string>())) bad(file, "model.unk_token");
  tok.unk_id_ = vocab[unk.get<std::string>()].get<std::int64_t>();
  // Every other token is one character: the pre-tokenizer cuts the text into nothing longer.
  for (std::size_t id = 0; id < tok.tokens_.size(); ++id) {
    const std::string& t = tok.tokens_[id];
    std::size_t i = 0;
    char32_t cp = 0;
    if (static_cast<std::int64_t>(id) != tok.unk_id_ && !(next_utf8(t, i, cp) && i == t.size())) bad(file, "model.vocab");
  }
  tok.index_tokens();
  // Added tokens: searched for in the text before it is split, so each must be a token of the
  // vocab with the same id; only the plain kind (no word boundary or whitespace stripping).
  if (j.contains("added_tokens") && !j["added_tokens"].is_null()) {
    const Json& added = j["added_tokens"];
    if (!added.is_array()) bad(file, "added_tokens");
    for (std::size_t k = 0; k < added.size(); ++k) {
      const Json& a = added[k];
      std::string path = "added_tokens[" + std::to_string(k) + "]";
      const Json& content = member(a, "content", file, path + ".content");
      if (!content.is_string() || content.get<std::string>().empty() || !vocab.contains(content.get<std::string>())) bad(file, path + ".content");
      const Json& id = member(a, "id", file, path + ".id");
      if (!id.is_number_unsigned() || id != vocab[content.get<std::string>()]) bad(file, path + ".id");
      for (const char* plain : {"single_word", "lstrip", "rstrip"})
        if (flag(a, plain, false, file, path + "." + plain)) bad(file, path + "." + plain);
      for (const char* either : {"normalized", "special"}) flag(a, either, false, file, path + "." + either);
      tok.added_.emplace_back(content.get<std::string>(), id.get<std::int64_t>());
    }
    std::stable_sort(tok.added_.begin(), tok.added_.end(), [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
  }
  tok.nfc_ = reads_nfc(j, file);
  // The pre-tokenizer: Split on any one character, each match a piece of its own.
  const Json& pre = member(j, "pre_tokenizer", file, "pre_tokenizer");
  if (text(pre, "type", "", file, "pre_tokenizer.type") != "Split") bad(file, "pre_tokenizer.type");
  const Json& pattern = member(pre, "pattern", file, "pre_tokenizer.pattern");
  if (!pattern.is_object() || pattern.size() != 1 || !pattern.contains("Regex") || pattern["Regex"] != kCharSplitPattern)
    bad(file, "pre_tokenizer.pattern");
  if (text(pre, "behavior", "", file, "pre_tokenizer.behavior") != "Isolated") bad(file, "pre_tokenizer.behavior");
  if (flag(pre, "invert", false, file, "pre_tokenizer.invert")) bad(file, "pre_tokenizer.invert");
  return tok;
}

}  // namespace attn
