// GPT-2 byte-level BPE. See bpe.h.
#include "bpe.h"

#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "input_file.h"
#include "json_input.h"
#include "nfc.h"
#include "pattern.h"

namespace attn {

namespace {

// GPT-2's pattern (encoder.py), verbatim.
constexpr const char* kPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

std::string utf8(std::uint32_t cp) {
  std::string s;
  if (cp < 0x80) s += static_cast<char>(cp);
  else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

// bytes_to_unicode: byte b -> the character encoder.py gives it, as UTF-8.
const std::vector<std::string>& byte_chars() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    std::uint32_t n = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[b] = utf8(printable ? static_cast<std::uint32_t>(b) : 256 + n++);
    }
    return t;
  }();
  return table;
}

const std::unordered_map<std::string, unsigned char>& char_bytes() {
  static const std::unordered_map<std::string, unsigned char> m = [] {
    std::unordered_map<std::string, unsigned char> r;
    for (int b = 0; b < 256; ++b) r[byte_chars()[b]] = static_cast<unsigned char>(b);
    return r;
  }();
  return m;
}

// Split a byte-mapped string into its characters (UTF-8 sequences).
std::vector<std::string> chars_of(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

// vocab.json and merges.txt are about 1 MB and 0.5 MB for GPT-2; tokenizer.json a few MB
constexpr std::size_t kMaxTokenizerBytes = std::size_t{64} << 20;

std::string read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UsageError("checkpoint.err.tokenizer_missing", {{"file", path}});
  return read_regular_file(path, kMaxTokenizerBytes, "--weights");  // a regular file; read errors as such
}

}  // namespace

#ifndef ATTNLAB_NO_PCRE2
Regex::Regex(const std::string& pattern, const std::string& file) {
  int err = 0;
  PCRE2_SIZE off = 0;
  code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &err, &off, nullptr);
  if (code == nullptr) throw UsageError("checkpoint.err.tokenizer_regex", {{"file", file}, {"at", static_cast<std::uint64_t>(off)}});
}

Regex::~Regex() { pcre2_code_free(code); }

std::vector<std::string> split_pieces(const Regex& re, const std::string& text, bool isolated) {
  std::vector<std::string> out;
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(
      pcre2_match_data_create_from_pattern(re.code, nullptr), &pcre2_match_data_free);
  PCRE2_SIZE at = 0;
  auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::uint32_t options = 0;  // the first match checks the whole text's UTF-8; later ones need not
  while (at < text.size()) {
    int rc = pcre2_match(re.code, subject, text.size(), at, options, md.get(), nullptr);
    options = PCRE2_NO_UTF_CHECK;  // (checking again at every piece made encoding quadratic)
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)  // where the bad byte is
      throw UsageError("checkpoint.err.utf8", {{"at", static_cast<std::uint64_t>(pcre2_get_startchar(md.get()))}});
    if (rc < 0) throw UsageError("checkpoint.err.utf8", {{"at", static_cast<std::uint64_t>(at)}});
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    if (ov[1] == ov[0]) break;  // byte-level patterns never match empty; guard anyway
    if (isolated && ov[0] > at) out.push_back(text.substr(at, ov[0] - at));
    out.push_back(text.substr(ov[0], ov[1] - ov[0]));
    at = ov[1];
  }
  if (isolated && at < text.size()) out.push_back(text.substr(at));
  return out;
}

#else
Regex::Regex(const std::string&, const std::string&) { throw UsageError("checkpoint.err.no_regex", {}); }
Regex::~Regex() = default;
std::vector<std::string> split_pieces(const Regex&, const std::string&, bool) { throw UsageError("checkpoint.err.no_regex", {}); }
#endif

std::vector<std::string> gpt2_pretokenize(const std::string& text) {
  static const Regex re(kPattern, "gpt2");
  return split_pieces(re, text, false);
}

namespace {
// stat, not open: a FIFO named vocab.json must not block the check (read_regular_file refuses it)
bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}
}  // namespace

bool Gpt2Tokenizer::folder_has_tokenizer(const std::string& folder) {
  return (file_exists(folder + "/vocab.json") && file_exists(folder + "/merges.txt")) || file_exists(folder + "/tokenizer.json");
}

Gpt2Tokenizer Gpt2Tokenizer::from_folder(const std::string& folder) {
  if (!(file_exists(folder + "/vocab.json") && file_exists(folder + "/merges.txt")) && file_exists(folder + "/tokenizer.json"))
    return from_tokenizer_json(read_file(folder + "/tokenizer.json"), folder + "/tokenizer.json");
  return Gpt2Tokenizer(read_file(folder + "/vocab.json"), read_file(folder + "/merges.txt"), folder);
}

std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& folder) {
  // as from_folder chooses: vocab.json + merges.txt first; a tokenizer.json by its model.type
  if (!(file_exists(folder + "/vocab.json") && file_exists(folder + "/merges.txt")) && file_exists(folder + "/tokenizer.json"))
    return read_tokenizer_json(read_file(folder + "/tokenizer.json"), folder + "/tokenizer.json");
  return std::make_shared<const Gpt2Tokenizer>(Gpt2Tokenizer::from_folder(folder));
}

Gpt2Tokenizer::Gpt2Tokenizer(const std::string& vocab_json, const std::string& merges_txt, const std::string& where)
    : vocab_file_(where + "/vocab.json") {
  std::string vfile = where + "/vocab.json";
  nlohmann::json v = parse_json_input(vocab_json, vfile);  // depth, numbers and syntax checked
  if (!v.is_object()) throw UsageError("checkpoint.err.vocab", {{"file", vfile}});
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it.value().is_number_unsigned() || it.value().get<std::uint64_t>() >= (1u << 24))
      throw UsageError("checkpoint.err.vocab", {{"file", vfile}});
    auto id = it.value().get<std::int64_t>();
    vocab_[it.key()] = id;
    if (id_to_token_.size() <= static_cast<std::size_t>(id)) id_to_token_.resize(static_cast<std::size_t>(id) + 1);
    id_to_token_[static_cast<std::size_t>(id)] = it.key();
  }
  std::istringstream in(merges_txt);
  std::string line;
  std::size_t rank = 0, lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (lineno == 1 && line.rfind("#version", 0) == 0)) continue;
    std::size_t sp = line.find(' ');
    if (sp == std::string::npos || sp == 0 || sp + 1 >= line.size() || line.find(' ', sp + 1) != std::string::npos)
      throw UsageError("checkpoint.err.merges", {{"file", where + "/merges.txt"}, {"line", static_cast<std::uint64_t>(lineno)}});
    ranks_.emplace(std::make_pair(line.substr(0, sp), line.substr(sp + 1)), rank++);
  }
}

std::vector<std::string> Gpt2Tokenizer::bpe(const std::string& piece) const {
  std::vector<std::string> word = chars_of(piece);
  while (word.size() > 1) {
    std::size_t best = SIZE_MAX, at = 0;
    for (std::size_t i = 0; i + 1 < word.size(); ++i) {
      auto it = ranks_.find({word[i], word[i + 1]});
      if (it != ranks_.end() && it->second < best) {
        best = it->second;
        at = i;
      }
    }
    if (best == SIZE_MAX) break;
    // Merge every occurrence of the best pair, left to right, as encoder.py does.
    std::string a = word[at], b = word[at + 1];
    std::vector<std::string> next;
    for (std::size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == a && word[i + 1] == b) {
        next.push_back(a + b);
        i += 2;
      } else {
        next.push_back(word[i++]);
      }
    }
    word.swap(next);
  }
  return word;
}

std::vector<std::int64_t> Gpt2Tokenizer::encode(const std::string& text) const {
  std::vector<std::int64_t> ids;
  std::string input = nfc_ ? nfc(text) : text;  // the normalizer, then the pre-tokenizer
  if (add_prefix_space_ && !input.empty() && input[0] != ' ') input = " " + input;
  std::vector<std::string> pieces = !split_ ? gpt2_pretokenize(input)
                                            : split_->code == nullptr ? std::vector<std::string>{input} : split_pieces(*split_, input, true);
  for (const std::string& piece : pieces) {
    std::string mapped;
    for (unsigned char c : piece) mapped += byte_chars()[c];
    // ignore_merges (Llama 3): a piece that is a token of its own is taken whole.
    std::vector<std::string> symbols = ignore_merges_ && vocab_.count(mapped) ? std::vector<std::string>{mapped} : bpe(mapped);
    for (const std::string& sym : symbols) {
      auto it = vocab_.find(sym);
      if (it == vocab_.end()) throw UsageError("checkpoint.err.no_token", {{"file", vocab_file_}, {"token", sym}});
      ids.push_back(it->second);
    }
  }
  return ids;
}

std::string Gpt2Tokenizer::decode_bytes(std::int64_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= id_to_token_.size()) return "";
  std::string out;
  for (const std::string& ch : chars_of(id_to_token_[static_cast<std::size_t>(id)])) {
    auto it = char_bytes().find(ch);
    if (it != char_bytes().end()) out += static_cast<char>(it->second);
    else out += ch;  // a special token written as itself
  }
  return out;
}

std::string Gpt2Tokenizer::label(std::int64_t id) const { return token_label(decode_bytes(id)); }

}  // namespace attn
