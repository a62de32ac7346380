#!/usr/bin/env python3
"""Check an attnlab mha (or gqa/mqa) trace with numpy, from its own X and weights.

    attnlab lesson mha --heads 4 --d-model 16 --causal --json trace.json
    python3 examples/check_mha_trace.py trace.json

Recomputes Q, K, V, the head split, scores, the causal mask, softmax, the heads, concat and
W_O from the trace's X and W_* alone, and prints the largest difference per tensor.
"""
import json
import sys

import numpy as np


def tensor(doc, name):
    t = doc["tensors"][name]
    data = [-np.inf if x is None else x for x in t["data"]]
    return np.array(data, dtype=np.float64).reshape(t["shape"])


def main(path):
    with open(path) as f:
        doc = json.load(f)
    X, W_Q, W_K, W_V, W_O = (tensor(doc, n) for n in ["X", "W_Q", "W_K", "W_V", "W_O"])
    h = doc["tensors"]["Q_heads"]["shape"][0]
    g = doc["tensors"]["K_heads"]["shape"][0]
    T, dk = X.shape[0], W_Q.shape[1] // h

    def split(M, n):  # (T, n*dk) -> (n, T, dk)
        return M.reshape(T, n, dk).transpose(1, 0, 2)

    Qh, Kh, Vh = split(X @ W_Q, h), split(X @ W_K, g), split(X @ W_V, g)
    group = np.arange(h) // (h // g)  # query head i reads KV group i / (h / g)
    scores = Qh @ Kh[group].transpose(0, 2, 1) / np.sqrt(dk)
    if doc["config"].get("causal"):
        scores[:, np.triu(np.ones((T, T), dtype=bool), k=1)] = -np.inf
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    heads = weights @ Vh[group]
    concat = heads.transpose(1, 0, 2).reshape(T, h * dk)
    mine = {"Q_heads": Qh, "K_heads": Kh, "V_heads": Vh, "weights": weights, "heads": heads,
            "concat": concat, "output": concat @ W_O}
    worst = 0.0
    for name, value in mine.items():
        diff = float(np.max(np.abs(value - tensor(doc, name))))
        worst = max(worst, diff)
        print(f"{name:8s} {'OK' if diff < 1e-12 else 'NOT OK'}  max diff {diff:.2e}")
    return 0 if worst < 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/dev/stdin"))
