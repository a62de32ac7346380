"""An independent reader of attnlab's character-level tokenizer.json, with Python's json module only.

    /usr/bin/python3 tests/golden/char_tokenizer.py

Reads tests/fixtures/char_tokenizer/tokenizer.json (written by attnlab's char_tokenizer_json from
corpus.txt beside it, min_count 2; tests/test_char_tokenizer.cpp checks the writer reproduces it byte
for byte) and writes tests/golden/char_tokenizer.json: the ids of a few strings, which the C++ reader
must give too. The encoding is what Hugging Face `tokenizers` does with such a file (it is not
installed here, so this follows its source):
  1. the added tokens ("<unk>") are found in the raw text first, leftmost, longest first where two
     start at the same place (AddedVocabulary, aho-corasick LeftmostLongest), each one id;
  2. the normalizer is null: the text is used as it is;
  3. pre_tokenizer Split on the Regex [\\s\\S], behavior Isolated: every character (code point, as
     Python's str iterates) is a piece of its own, newline included;
  4. model WordLevel: each piece's id in the vocab, else the id of unk_token.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "char_tokenizer", "tokenizer.json")
OUT = os.path.join(HERE, "char_tokenizer.json")

CASES = [
    "The cat sat on the log.",                      # English, every character in the vocabulary
    "猫说：“你好。”",                                # Chinese
    "the cat\nthe dog\n",                           # newlines are characters too
    "A zebra! \U0001F993",                           # unknown: A z b r ! and a 4-byte emoji
    "a <unk> b<unk>",                               # the unk token written in the text: one id
    "<unk<unk>>",                                   # … found inside other characters
    "",                                             # nothing
    "\t\"Hi,\" said C:\\cats",                      # tab, quote, backslash (escaped in the JSON)
    "猫 sat\r\n",                                    # carriage return: not in the vocabulary
    "cafe\u0301 caf\u00e9",                          # no normalizer: e + U+0301 is two characters
]


def load(path):
    with open(path, encoding="utf-8") as f:
        tok = json.load(f)
    model = tok["model"]
    assert model["type"] == "WordLevel"
    assert tok["normalizer"] is None
    pre = tok["pre_tokenizer"]
    assert pre == {"type": "Split", "pattern": {"Regex": "[\\s\\S]"}, "behavior": "Isolated", "invert": False}
    vocab = model["vocab"]
    assert sorted(vocab.values()) == list(range(len(vocab)))
    unk = model["unk_token"]
    assert unk in vocab
    for key in vocab:
        assert key == unk or len(key) == 1, key
    added = []
    for a in tok.get("added_tokens") or []:
        assert vocab[a["content"]] == a["id"]
        assert not a.get("single_word") and not a.get("lstrip") and not a.get("rstrip")
        added.append((a["content"], a["id"]))
    return vocab, vocab[unk], added


def encode(text, vocab, unk_id, added):
    ids, start, i = [], 0, 0
    while i < len(text):
        hits = [(c, n) for c, n in added if text.startswith(c, i)]
        if not hits:
            i += 1
            continue
        content, token_id = max(hits, key=lambda h: len(h[0]))
        ids += [vocab.get(ch, unk_id) for ch in text[start:i]]
        ids.append(token_id)
        i += len(content)
        start = i
    ids += [vocab.get(ch, unk_id) for ch in text[start:]]
    return ids


def main():
    vocab, unk_id, added = load(FIXTURE)
    cases = [{"text": t, "ids": encode(t, vocab, unk_id, added)} for t in CASES]
    lines = ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in cases)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write('{"tokenizer": "fixtures/char_tokenizer/tokenizer.json", "vocab_size": %d, "cases": [\n%s\n]}\n'
                % (len(vocab), lines))
    print("wrote", OUT, len(cases), "cases")


if __name__ == "__main__":
    main()
