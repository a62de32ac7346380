"""A tiny tokenizer.json in the layout Llama 3 writes, for attnlab's tokenizer.json reader.

    /usr/bin/python3 tests/golden/gen_tokenizer_json.py

Writes tests/fixtures/tokenizer_json/llama3-style/tokenizer.json (committed). Python's `tokenizers` is
not installed here, so the expected ids in tests/test_tokenizer_json.cpp are worked by hand from the
table below. The vocabulary: the 256 byte characters of GPT-2's bytes_to_unicode with id = byte value
(so "h" is 104, the space's "Ġ" is 32, newline's "Ċ" is 10), then
    256 "he"     merge 0: h e          259 "hello"  merge 3: hell o
    257 "ll"     merge 1: l l          260 "Ġw"     merge 4: Ġ w
    258 "hell"   merge 2: he ll        261 "12"     merge 5: 1 2
    262 "Ġworld" no merge makes it: only ignore_merges reaches it (the whole piece " world" is a token)
    263 "<|begin_of_text|>" an added (special) token
The pre-tokenizer is Llama 3's: Split on its pattern (numbers in runs of at most 3 digits,
case-insensitive contractions), behavior Isolated, then ByteLevel without a regex of its own.
Merges are written as pairs (["h", "e"]), the newer format; the reader also takes "h e".
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "fixtures", "tokenizer_json", "llama3-style")

LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def bytes_to_unicode():
    """GPT-2's table: printable bytes stand for themselves, the rest for 256, 257, … in byte order."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, n = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


def main():
    chars = bytes_to_unicode()
    vocab = {chars[b]: b for b in range(256)}
    merges = [["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o"], [chars[32], "w"], ["1", "2"]]
    for i, (a, b) in enumerate(merges):
        vocab[a + b] = 256 + i
    vocab[chars[32] + "world"] = 262
    tok = {
        "version": "1.0",
        "added_tokens": [{"id": 263, "content": "<|begin_of_text|>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                  "vocab": vocab, "merges": merges},
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
