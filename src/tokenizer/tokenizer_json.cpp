// A Hugging Face tokenizer.json read as byte-level BPE. See bpe.h (from_tokenizer_json).
//   {"model": {"type": "BPE", "vocab": {token: id}, "merges": ["a b", …] or [["a", "b"], …],
//              "ignore_merges": bool, "byte_fallback": false},
//    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": bool, "use_regex": bool}
//                  or {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "…"},
//                      "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "use_regex": false}]},
//    "normalizer": null, {"type": "NFC"} or {"type": "Sequence", "normalizers": [{"type": "NFC"}]},
//    "added_tokens": [{"id": n, "content": "<|…|>"}, …]}
#include <nlohmann/json.hpp>

#include "bpe.h"
#include "errors.h"
#include "pattern.h"

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

// GPT-2's pattern, as ByteLevel with use_regex true applies it.
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// The normalizer: none (absent or null), {"type": "NFC"} (Qwen2), or a Sequence of NFC alone;
// true when it is NFC. Any other is refused naming the key.
bool reads_nfc(const Json& j, const std::string& file) {
  if (!j.contains("normalizer") || j["normalizer"].is_null()) return false;
  const Json& n = j["normalizer"];
  auto is_nfc = [](const Json& x) { return x.is_object() && x.value("type", std::string()) == "NFC"; };
  if (is_nfc(n)) return true;
  if (!n.is_object() || n.value("type", std::string()) != "Sequence") bad(file, "normalizer");
  const Json& list = member(n, "normalizers", file, "normalizer.normalizers");
  if (!list.is_array() || list.empty()) bad(file, "normalizer.normalizers");
  for (std::size_t i = 0; i < list.size(); ++i)
    if (!is_nfc(list[i])) bad(file, "normalizer.normalizers[" + std::to_string(i) + "]");
  return true;
}

}  // namespace

Gpt2Tokenizer Gpt2Tokenizer::from_tokenizer_json(const std::string& text, const std::string& file) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error&) {
    bad(file, "(JSON)");
  }
  Gpt2Tokenizer tok;
  tok.vocab_file_ = file;
  const Json& model = member(j, "model", file, "model");
  if (!model.is_object() || model.value("type", std::string("BPE")) != "BPE") bad(file, "model.type");
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
  if (pre.is_object() && pre.value("type", std::string()) == "Sequence") {
    const Json& list = member(pre, "pretokenizers", file, "pre_tokenizer.pretokenizers");
    if (!list.is_array()) bad(file, "pre_tokenizer.pretokenizers");
    for (const Json& p : list) steps.push_back(&p);
  } else {
    steps.push_back(&pre);
  }
  bool byte_level = false;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Json& p = *steps[i];
    std::string type = p.is_object() ? p.value("type", std::string()) : "";
    std::string path = "pre_tokenizer" + (steps.size() > 1 ? ".pretokenizers[" + std::to_string(i) + "]" : std::string());
    if (type == "Split" && !byte_level && !tok.split_) {
      const Json& pattern = member(p, "pattern", file, path + ".pattern");
      if (!pattern.is_object() || !pattern.contains("Regex") || !pattern["Regex"].is_string()) bad(file, path + ".pattern");
      if (p.value("behavior", std::string()) != "Isolated") bad(file, path + ".behavior");
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

}  // namespace attn
