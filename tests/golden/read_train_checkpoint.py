"""Reads a checkpoint written by `attnlab train --save DIR` with plain json + numpy, as another
tool would, and runs Hugging Face GPT-2's forward pass on it (written out here in numpy).

    /usr/bin/python3 tests/golden/read_train_checkpoint.py DIR 1,2,3,...

Prints JSON: config.json as read, every tensor {dtype, shape, data} in file order, and the logits
(T, vocab_size) of the token sequence. tests/test_train_cli.cpp compares them with the model
attnlab trained, so the names, the Conv1D layouts and the byte order are all checked.
"""
import json
import math
import os
import struct
import sys

import numpy as np


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    end_seen = 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dt = {"F32": "<f4", "F64": "<f8"}[info["dtype"]]
        b, e = info["data_offsets"]
        arr = np.frombuffer(blob[base + b:base + e], dtype=dt).reshape(info["shape"])
        assert arr.nbytes == e - b
        end_seen = max(end_seen, e)
        out[name] = (info["dtype"], arr.astype(np.float64))
    assert base + end_seen == len(blob), "trailing or missing bytes"
    return header, out


def layer_norm(x, w, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def gelu_new(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(cfg, p, tokens, weights=None):
    """The logits (T, vocab); with a list `weights`, each layer's attention (H, T, T) appended to it."""
    C, H, eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    hs = C // H
    T = len(tokens)
    x = p["wte.weight"][tokens] + p["wpe.weight"][:T]
    for l in range(cfg["n_layer"]):
        h = "h.%d." % l
        a = layer_norm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"], eps)
        qkv = a @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]
        q, k, v = qkv[:, :C], qkv[:, C:2 * C], qkv[:, 2 * C:]
        y = np.zeros((T, C))
        if weights is not None:
            weights.append(np.zeros((H, T, T)))
        for i in range(H):
            sl = slice(i * hs, (i + 1) * hs)
            s = q[:, sl] @ k[:, sl].T / math.sqrt(hs)
            s[np.triu(np.ones((T, T), dtype=bool), 1)] = -np.inf
            w = np.exp(s - s.max(-1, keepdims=True))
            w /= w.sum(-1, keepdims=True)
            if weights is not None:
                weights[-1][i] = w
            y[:, sl] = w @ v[:, sl]
        x = x + y @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        if not cfg.get("attnlab_attention_only", False):
            a = layer_norm(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"], eps)
            x = x + gelu_new(a @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"]) @ p[h + "mlp.c_proj.weight"] \
                + p[h + "mlp.c_proj.bias"]
    x = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"], eps)
    return x @ p["wte.weight"].T


def main():
    d, tokens = sys.argv[1], [int(t) for t in sys.argv[2].split(",")]
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    header, tensors = read_safetensors(os.path.join(d, "model.safetensors"))
    p = {k: v for k, (_, v) in tensors.items()}
    json.dump({
        "config": cfg,
        "metadata": header.get("__metadata__", {}),
        "tensors": {k: {"dtype": dt, "shape": list(v.shape), "data": v.reshape(-1).tolist()} for k, (dt, v) in tensors.items()},
        "logits": forward(cfg, p, tokens).tolist(),
    }, sys.stdout)


if __name__ == "__main__":
    main()
