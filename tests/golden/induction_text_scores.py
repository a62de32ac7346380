"""The text step of `lesson induction`, computed independently: reads a checkpoint that
`attnlab train --task text --save DIR` wrote (json + numpy, read_train_checkpoint.py's forward),
splits the text into characters with tokenizer.json's vocabulary, and scores every head.

    /usr/bin/python3 tests/golden/induction_text_scores.py DIR "Then Eli called Samuel, and said, Samuel, my son."

Prints JSON: the ids, each position's induction target (the position after the latest earlier
occurrence of the same pair of characters, "A B ... A B", never the previous token, or -1), every head's attention (L, H, T, T)
and its mean weight on the targets (L, H). tests/test_induction.cpp compares them with the lesson.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_train_checkpoint import forward, read_safetensors  # noqa: E402


def pair_targets(ids):
    out = [-1] * len(ids)
    for t in range(3, len(ids)):
        for j in range(t - 3, 0, -1):
            if ids[j] == ids[t] and ids[j - 1] == ids[t - 1]:
                out[t] = j + 1
                break
    return out


def main():
    d, text = sys.argv[1], sys.argv[2]
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(d, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    vocab, unk = tok["model"]["vocab"], tok["model"]["unk_token"]
    ids = [vocab.get(ch, vocab[unk]) for ch in text]
    _, tensors = read_safetensors(os.path.join(d, "model.safetensors"))
    p = {k: v for k, (_, v) in tensors.items()}
    weights = []
    forward(cfg, p, ids, weights)
    att = np.stack(weights)  # (L, H, T, T)
    targets = pair_targets(ids)
    rows = [t for t in range(len(ids)) if targets[t] >= 0]
    scores = np.array([[np.mean([att[l, h, t, targets[t]] for t in rows]) for h in range(att.shape[1])]
                       for l in range(att.shape[0])])
    json.dump({"ids": ids, "targets": targets, "attention": att.tolist(), "scores": scores.tolist()}, sys.stdout)


if __name__ == "__main__":
    main()
