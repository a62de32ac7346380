// libFuzzer: the tokenizer-file readers. The input is a tokenizer.json (a WordLevel character
// tokenizer as `attnlab train --task text` writes it, or a byte-level BPE one); when it reads, a
// fixed text in English and Chinese and one made of the input's own first bytes are encoded and
// every id is labelled and decoded. Any input must end in a tokenizer or a UsageError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "errors.h"
#include "tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  try {
    auto tok = attn::read_tokenizer_json(json, "fuzz/tokenizer.json");
    for (const std::string& text : {std::string("In the beginning 天地玄黄\n"), json.substr(0, 64)}) {
      try {
        for (std::int64_t id : tok->encode(text)) {
          (void)tok->label(id);
          (void)tok->decode_bytes(id);
        }
      } catch (const attn::UsageError&) {  // text that is not UTF-8
      }
    }
    (void)tok->label(static_cast<std::int64_t>(tok->vocab_size()));  // one past the end
  } catch (const attn::UsageError&) {
  }
  return 0;
}
