"""Tiny GPT-2 checkpoints in the Hugging Face layouts, and the golden forward of their weights.

    /usr/bin/python3 tests/golden/gen_checkpoint.py

Writes (committed; ctest needs neither Python nor PyTorch):
  tests/fixtures/checkpoints/tiny-gpt2/          config.json + model.safetensors (F32, names as
                                                 GPT2LMHeadModel.save_pretrained writes them:
                                                 "transformer.h.0.attn.c_attn.weight", tied head omitted)
  tests/fixtures/checkpoints/tiny-gpt2-sharded/  the same weights as two shards + model.safetensors.index.json,
                                                 names as the Hub's gpt2 ("h.0.…", with the old
                                                 "h.N.attn.bias" mask buffer), stored as F64
  tests/golden/checkpoint_gpt2.json              the forward of the F32 weights in float64 (PyTorch):
                                                 every layer's input residual, attention weights, logits

The safetensors files are written by hand (8-byte little-endian header size, JSON header, raw
data), so that the format attnlab reads is the one this script spells out. The forward is an
independent PyTorch GPT-2 (Conv1D: y = x W + b; fused c_attn split into Q, K, V; learned
positions; pre-LayerNorm blocks; gelu_new; tied head), not attnlab's code.
"""
import json
import math
import os
import struct

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "checkpoints")

CONFIG = dict(architectures=["GPT2LMHeadModel"], model_type="gpt2", vocab_size=64, n_positions=32, n_ctx=32,
              n_embd=16, n_layer=2, n_head=4, n_inner=None, activation_function="gelu_new",
              layer_norm_epsilon=1e-5, tie_word_embeddings=True)
TOKEN_IDS = [5, 17, 3, 42, 17, 3, 9, 60, 0, 33]

DTYPES = {"F32": ("<f4", 4), "F64": ("<f8", 8)}


def write_safetensors(path, tensors, dtype="F32", metadata=None):
    """tensors: list of (name, numpy array); written in order, back to back."""
    header, blobs, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    np_dtype, size = DTYPES[dtype]
    for name, a in tensors:
        raw = np.ascontiguousarray(a, dtype=np_dtype).tobytes()
        header[name] = dict(dtype=dtype, shape=list(a.shape), data_offsets=[offset, offset + len(raw)])
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the Hub's writer pads the header to 8 bytes with spaces
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def make_weights(seed=1234):
    rng = np.random.default_rng(seed)
    c = CONFIG
    D, L, V, P = c["n_embd"], c["n_layer"], c["vocab_size"], c["n_positions"]
    F = 4 * D
    w = {}

    def r(*shape, s=0.3):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    w["wte.weight"] = r(V, D, s=0.5)
    w["wpe.weight"] = r(P, D, s=0.2)
    for i in range(L):
        p = f"h.{i}."
        w[p + "ln_1.weight"] = (1 + r(D, s=0.1)).astype(np.float32)
        w[p + "ln_1.bias"] = r(D, s=0.1)
        w[p + "attn.c_attn.weight"] = r(D, 3 * D, s=0.4)
        w[p + "attn.c_attn.bias"] = r(3 * D, s=0.1)
        w[p + "attn.c_proj.weight"] = r(D, D, s=0.25)
        w[p + "attn.c_proj.bias"] = r(D, s=0.1)
        w[p + "ln_2.weight"] = (1 + r(D, s=0.1)).astype(np.float32)
        w[p + "ln_2.bias"] = r(D, s=0.1)
        w[p + "mlp.c_fc.weight"] = r(D, F, s=0.25)
        w[p + "mlp.c_fc.bias"] = r(F, s=0.1)
        w[p + "mlp.c_proj.weight"] = r(F, D, s=0.12)
        w[p + "mlp.c_proj.bias"] = r(D, s=0.1)
    w["ln_f.weight"] = (1 + r(D, s=0.1)).astype(np.float32)
    w["ln_f.bias"] = r(D, s=0.1)
    return w


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * g + b


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(w, ids):
    c = CONFIG
    D, H, L, eps = c["n_embd"], c["n_head"], c["n_layer"], c["layer_norm_epsilon"]
    Dh = D // H
    t = {k: torch.tensor(v.astype(np.float64)) for k, v in w.items()}
    T = len(ids)
    x = t["wte.weight"][ids] + t["wpe.weight"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    residuals, attn = [], []
    for i in range(L):
        p = f"h.{i}."
        residuals.append(x.clone())
        a = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        qkv = a @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        q, k, v = qkv.split(D, dim=1)
        q, k, v = (m.reshape(T, H, Dh).transpose(0, 1) for m in (q, k, v))  # (H, T, Dh)
        s = q @ k.transpose(1, 2) / math.sqrt(Dh)
        s = s.masked_fill(mask, float("-inf"))
        wts = torch.softmax(s, dim=-1)
        attn.append(wts)
        heads = (wts @ v).transpose(0, 1).reshape(T, D)
        x = x + heads @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        m = layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        hdn = gelu_new(m @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        x = x + hdn @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
    residuals.append(x.clone())
    final = layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], eps)
    logits = final @ t["wte.weight"].T
    return residuals, attn, logits


def write_gpt2_124m(folder):
    """A random checkpoint of GPT-2 124M's shapes (500 MB of F32), for timing and memory only:
    /usr/bin/python3 tests/golden/gen_checkpoint.py --gpt2-124m /tmp/gpt2-random"""
    global CONFIG
    CONFIG = dict(CONFIG, vocab_size=50257, n_positions=1024, n_ctx=1024, n_embd=768, n_layer=12, n_head=12)
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(0)
    c = CONFIG
    D, V, P = c["n_embd"], c["vocab_size"], c["n_positions"]
    items = [("wte.weight", (V, D)), ("wpe.weight", (P, D))]
    for i in range(c["n_layer"]):
        p = f"h.{i}."
        items += [(p + "ln_1.weight", (D,)), (p + "ln_1.bias", (D,)), (p + "attn.c_attn.weight", (D, 3 * D)),
                  (p + "attn.c_attn.bias", (3 * D,)), (p + "attn.c_proj.weight", (D, D)), (p + "attn.c_proj.bias", (D,)),
                  (p + "ln_2.weight", (D,)), (p + "ln_2.bias", (D,)), (p + "mlp.c_fc.weight", (D, 4 * D)),
                  (p + "mlp.c_fc.bias", (4 * D,)), (p + "mlp.c_proj.weight", (4 * D, D)), (p + "mlp.c_proj.bias", (D,))]
    items += [("ln_f.weight", (D,)), ("ln_f.bias", (D,))]
    tensors = [(n, (rng.standard_normal(s, dtype=np.float32) * 0.02 + (1 if n.endswith("ln_1.weight") or n.endswith("ln_2.weight") or n == "ln_f.weight" else 0)).astype(np.float32)) for n, s in items]
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    with open(os.path.join(folder, "config.json"), "w") as f:
        f.write(json.dumps(CONFIG, indent=2) + "\n")


def main():
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--gpt2-124m":
        write_gpt2_124m(sys.argv[2])
        return
    w = make_weights()
    os.makedirs(os.path.join(FIX, "tiny-gpt2"), exist_ok=True)
    os.makedirs(os.path.join(FIX, "tiny-gpt2-sharded"), exist_ok=True)
    cfg = json.dumps(CONFIG, indent=2) + "\n"
    # 1. one file, GPT2LMHeadModel.save_pretrained's names, F32.
    d = os.path.join(FIX, "tiny-gpt2")
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write(cfg)
    write_safetensors(os.path.join(d, "model.safetensors"), [("transformer." + k, a) for k, a in w.items()],
                      metadata={"format": "pt"})
    # 2. two shards, the Hub's names (with the old causal-mask buffer), F64, index file.
    d = os.path.join(FIX, "tiny-gpt2-sharded")
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write(cfg)
    items = list(w.items())
    P = CONFIG["n_positions"]
    buf = np.tril(np.ones((P, P), dtype=np.float32)).reshape(1, 1, P, P)
    items.insert(1, ("h.0.attn.bias", buf))
    half = len(items) // 2
    shards = [("model-00001-of-00002.safetensors", items[:half]), ("model-00002-of-00002.safetensors", items[half:])]
    weight_map = {}
    for fname, part in shards:
        write_safetensors(os.path.join(d, fname), part, dtype="F64")
        for name, _ in part:
            weight_map[name] = fname
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
        f.write("\n")

    residuals, attn, logits = forward(w, TOKEN_IDS)
    golden = dict(
        source="tests/golden/gen_checkpoint.py (PyTorch float64 forward of the float32 weights)",
        token_ids=TOKEN_IDS,
        residuals=[r.tolist() for r in residuals],  # L+1 of (T, D): the input of each layer, then the last output
        attention=[a.tolist() for a in attn],       # L of (H, T, T)
        logits=logits.tolist(),                     # (T, V)
    )
    with open(os.path.join(HERE, "checkpoint_gpt2.json"), "w") as f:
        json.dump(golden, f)
        f.write("\n")


if __name__ == "__main__":
    main()
