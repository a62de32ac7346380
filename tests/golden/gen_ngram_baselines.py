#!/usr/bin/python3
"""Golden values for the text models' n-gram baselines (issue 51), computed with numpy alone,
independently of attnlab's C++ (src/train/text_task.cpp ngram_loss, src/tokenizer/corpus.cpp).

For each shipped text model (data/trained/text-*): its corpus (config.json "attnlab_corpus"),
the last floor(N/20) characters held out, both parts read with the model's own tokenizer.json
(a character outside its vocab is <unk>), then in bits per character on the held-out slice:
  unigram  add-one:       (c(b) + 1) / (N + V)
  bigram   Witten-Bell:   (c(a,b) + n(a) P_uni(b)) / (c(a) + n(a)); c(a) = 0: P_uni(b)
  trigram  Witten-Bell:   (c(a,b,c) + n(a,b) P_bi(c|b)) / (c(a,b) + n(a,b)); c(a,b) = 0: P_bi(c|b)
where c(a) and c(a,b) count a context as the first n-1 of an n-gram of the training ids and n(.)
its distinct followers; the first held-out character is scored by the unigram, the second by the
bigram. Also the held-out characters that are <unk>.

And the vocabulary `attnlab train --task text --corpus zh-mix --vocab 4500` builds (the retrain of
text-zh, scripts/retrain-shipped): the training part's characters by descending count (ties by code
point), the characters of data/corpus/sentences.json's zh-mix sentences always kept, the most
frequent others filling the rest of 4,500 places (<unk> included); how many held-out characters it
reads as <unk>, and how many characters of those sentences (0).

Usage: tests/golden/gen_ngram_baselines.py  (writes tests/golden/ngram_baselines.json)
"""
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ZH_MIX_VOCAB = 4500


def split(text):
    n = len(text)
    cut = n - n // 20
    return text[:cut], text[cut:]


def encode(text, vocab, unk):
    return np.array([vocab.get(ch, unk) for ch in text], dtype=np.int64)


def lookup(keys, values, queries):
    """values[keys == q] for each query, 0 where the key is absent (keys sorted)."""
    at = np.searchsorted(keys, queries)
    at_c = np.minimum(at, len(keys) - 1)
    hit = (at < len(keys)) & (keys[at_c] == queries)
    return np.where(hit, values[at_c], 0).astype(np.float64)


def contexts(keys, counts, V):
    """Distinct contexts (key // V) of the distinct n-grams: their counts and distinct followers."""
    ctx = keys // V
    uctx, start, followers = np.unique(ctx, return_index=True, return_counts=True)
    ctx_count = np.add.reduceat(counts, start)
    return uctx, ctx_count.astype(np.float64), followers.astype(np.float64)


def baselines(train, held, V):
    N = float(len(train))
    uni = np.bincount(train, minlength=V).astype(np.float64)
    p_uni = lambda b: (uni[b] + 1.0) / (N + V)
    k2, c2 = np.unique(train[:-1] * V + train[1:], return_counts=True)
    k3, c3 = np.unique((train[:-2] * V + train[1:-1]) * V + train[2:], return_counts=True)
    x2, xc2, xf2 = contexts(k2, c2, V)
    x3, xc3, xf3 = contexts(k3, c3, V)

    def p_bi(a, b):
        ca, na = lookup(x2, xc2, a), lookup(x2, xf2, a)
        cab = lookup(k2, c2.astype(np.float64), a * V + b)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (cab + na * p_uni(b)) / (ca + na)
        return np.where(ca > 0, p, p_uni(b))

    def p_tri(a, b, c):
        ab = a * V + b
        cab, nab = lookup(x3, xc3, ab), lookup(x3, xf3, ab)
        cabc = lookup(k3, c3.astype(np.float64), ab * V + c)
        pb = p_bi(b, c)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (cabc + nab * pb) / (cab + nab)
        return np.where(cab > 0, p, pb)

    h = held
    pu = p_uni(h)
    pb = np.concatenate([pu[:1], p_bi(h[:-1], h[1:])])
    pt = np.concatenate([pb[:2], p_tri(h[:-2], h[1:-1], h[2:])])
    ln2 = np.log(2.0)
    return {"unigram_bpc": float(-np.log(pu).mean() / ln2), "bigram_bpc": float(-np.log(pb).mean() / ln2),
            "trigram_bpc": float(-np.log(pt).mean() / ln2)}


def model_baselines(name):
    folder = ROOT / "data" / "trained" / name
    cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tok = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = tok["model"]["vocab"]
    unk = vocab[tok["model"]["unk_token"]]
    corpus = cfg["attnlab_corpus"]["name"]
    train_text, held_text = split((ROOT / "data" / "corpus" / f"{corpus}.txt").read_text(encoding="utf-8"))
    train, held = encode(train_text, vocab, unk), encode(held_text, vocab, unk)
    out = {"corpus": corpus, "vocab": len(vocab), "heldout_characters": len(held),
           "heldout_unk": int((held == unk).sum())}
    out.update(baselines(train, held, len(vocab)))
    return out


def zh_mix_vocab():
    train_text, held_text = split((ROOT / "data" / "corpus" / "zh-mix.txt").read_text(encoding="utf-8"))
    sentences = json.loads((ROOT / "data" / "corpus" / "sentences.json").read_text(encoding="utf-8"))["zh-mix"]
    required = set("".join(sentences))
    chars, counts = np.unique(np.array([ord(c) for c in train_text], dtype=np.int64), return_counts=True)
    count = {chr(c): int(n) for c, n in zip(chars, counts)}
    ranked = sorted(set(count) | required, key=lambda ch: (-count.get(ch, 0), ord(ch)))
    free = ZH_MIX_VOCAB - 1 - len(required)
    kept = []
    for ch in ranked:
        if ch in required:
            kept.append(ch)
        elif free > 0:
            kept.append(ch)
            free -= 1
    vocab = set(kept)
    held_unk = sum(1 for ch in held_text if ch not in vocab)
    return {"vocab": len(kept) + 1, "heldout_characters": len(held_text), "heldout_unk": held_unk,
            "heldout_coverage": 1 - held_unk / len(held_text),
            "sentence_unk": sum(1 for s in sentences for ch in s if ch not in vocab),
            "required_unseen": sorted(ch for ch in required if count.get(ch, 0) == 0)}


def main():
    doc = {"generator": "tests/golden/gen_ngram_baselines.py (numpy " + np.__version__ + ")",
           "models": {name: model_baselines(name) for name in ("text-en", "text-zh", "mla-en", "induction-text")},
           "zh_mix_vocab_4500": zh_mix_vocab()}
    out = ROOT / "tests" / "golden" / "ngram_baselines.json"
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(doc, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
