"""Golden answer keys for `attnlab exercise`, computed independently with numpy and the bundled
model configs (data/models/*.json read as plain JSON), at three seeds each.

The exercises draw their tiny inputs the way lessons/exercise.h documents (ExerciseDraw): SplitMix64
seeded with seed*64 + n, each draw next_u64() mod a count. This script draws the same numbers with
attnlab_ref.Rng and works every key out from scratch: no attnlab code runs here. A multiple-choice
("why") key is the letter the chapter supports, written here by hand from the seeds' argument.

    /usr/bin/python3 tests/golden/gen_exercises.py      # writes tests/golden/exercises.json
"""
import json
import math
import os

import numpy as np

from attnlab_ref import HERE, MASK64, Rng

SEEDS = [1, 7, 20261207]
MODELS = os.path.join(HERE, "..", "..", "data", "models")


class Draw:
    def __init__(self, seed, n):
        self.rng = Rng((seed * 64 + n) & MASK64)

    def integer(self, lo, hi):
        return lo + self.rng.next_u64() % (hi - lo + 1)

    def grid(self, lo, hi, step):
        return lo + float(self.integer(0, round((hi - lo) / step))) * step

    def pick(self, items):
        return items[self.integer(0, len(items) - 1)]


def preset(name):
    with open(os.path.join(MODELS, name + ".json")) as f:
        c = json.load(f)
    d = c.get("hidden_size") or c.get("n_embd")
    h = c.get("num_attention_heads") or c.get("n_head")
    g = 1 if c.get("multi_query") else (c.get("num_key_value_heads") or h)
    return {
        "d": d, "h": h, "g": g, "d_h": c.get("head_dim") or d // h,
        "layers": c.get("num_hidden_layers") or c.get("n_layer"),
        "d_ff": c.get("intermediate_size") or c.get("n_inner") or 4 * d,
    }


def softmax(v):
    e = np.exp(v - np.max(v))
    return e / e.sum()


def gelu(x):
    return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))


def silu(x):
    return x / (1.0 + math.exp(-x))


def nonzero_point(d):
    x = d.grid(0.2, 3.0, 0.1)
    return x if d.integer(0, 1) == 0 else -x


# ---- attention ----
def attention_1(seed):
    d = Draw(seed, 1)
    q = np.array([d.grid(-2, 2, 1) for _ in range(2)])
    K = np.array([d.grid(-2, 2, 1) for _ in range(4)]).reshape(2, 2)
    return float(softmax(K @ q / math.sqrt(2))[0])


def attention_2(seed):
    d = Draw(seed, 2)
    q = np.array([d.grid(-2, 2, 1) for _ in range(2)])
    K = np.array([d.grid(-2, 2, 1) for _ in range(4)]).reshape(2, 2)
    v = np.array([d.grid(-3, 3, 1) for _ in range(2)])
    return float(softmax(K @ q / math.sqrt(2)) @ v)


def attention_3(seed):
    T = Draw(seed, 3).integer(3, 12)
    return T * (T - 1) // 2  # the entries above the diagonal


# ---- mha ----
def mha_1(seed):
    d = Draw(seed, 1)
    H = d.pick([2, 4, 6, 8, 12, 16])
    Dh = d.pick([8, 16, 32, 64])
    return 4 * (H * Dh) ** 2


def mha_2(seed):
    m = preset(Draw(seed, 2).pick(["gpt2", "llama-2-7b", "gpt-3-175b", "llama-3-8b"]))
    return m["d"] // m["h"]


# ---- gqa ----
def gqa_1(seed):
    d = Draw(seed, 1)
    H, G = d.pick([(12, 4), (8, 2), (16, 4), (32, 8), (12, 3), (24, 6), (16, 8)])
    head = d.integer(1, H)
    return math.ceil(head / (H // G))


def gqa_2(seed):
    T = Draw(seed, 2).pick([4096, 8192, 32768, 65536])
    m = preset("llama-3-8b")
    return 2 * m["g"] * m["d_h"] * m["layers"] * 2 * T


def gqa_3(seed):
    H, G = Draw(seed, 3).pick([(12, 4), (32, 8), (64, 8), (16, 2), (40, 8), (28, 4), (96, 8)])
    return 100.0 * (H - G) / H


# ---- mqa ----
def mqa_1(seed):
    return Draw(seed, 1).pick([8, 12, 16, 32, 40, 64, 71, 96])


def mqa_2(seed):
    m = preset("falcon-7b")
    return 2 * 1 * m["d_h"] * m["layers"] * 2


# ---- ffn ----
def ffn_1(seed):
    D = Draw(seed, 1).pick([4, 8, 16, 32, 64, 128, 256, 768])
    return 8 * D * D + 5 * D


def ffn_2(seed):
    d = Draw(seed, 2)
    x = np.array([d.grid(-2, 2, 1) for _ in range(2)])
    W1 = np.array([d.grid(-2, 2, 1) for _ in range(4)]).reshape(2, 2)
    b1 = np.array([d.grid(-1, 1, 1) for _ in range(2)])
    W2 = np.array([d.grid(-2, 2, 1) for _ in range(2)])
    return float(np.maximum(x @ W1 + b1, 0) @ W2)


def ffn_3(seed):
    m = preset("gpt2")
    return m["layers"] * (2 * m["d"] * m["d_ff"] + m["d_ff"] + m["d"])


# ---- gelu ----
def gelu_1(seed):
    return gelu(nonzero_point(Draw(seed, 1)))


def gelu_2(seed):
    return silu(nonzero_point(Draw(seed, 2)))


def gelu_3(seed):
    x = Draw(seed, 3).pick([0.1, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, -0.5, -1.0])
    return 100.0 * 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


# ---- swiglu ----
def swiglu_1(seed):
    D = Draw(seed, 1).pick([2048, 3072, 4096, 5120, 6656, 8192])
    raw = 8 * D // 3
    return -(-raw // 256) * 256


def swiglu_2(seed):
    d = Draw(seed, 2)
    x = np.array([d.grid(-2, 2, 1) for _ in range(2)])
    g = np.array([d.grid(-1, 1, 0.5) for _ in range(2)])
    u = np.array([d.grid(-1, 1, 0.5) for _ in range(2)])
    w = d.grid(-2, 2, 1)
    if x[0] == 0 and x[1] == 0:
        x[0] = 1.0
    if x @ u == 0:
        u[0 if x[0] != 0 else 1] += 0.5
    if w == 0:
        w = 1.0
    return float(w * silu(float(x @ g)) * float(x @ u))


def swiglu_3(seed):
    D = 3 * Draw(seed, 3).integer(2, 40)
    return 3 * D * (8 * D // 3)


# ---- qkv-roles ----
def qkv_roles_1(seed):
    d = Draw(seed, 1)
    X = np.array([d.grid(-2, 2, 1) for _ in range(4)]).reshape(2, 2)
    if X[0, 0] == 0 and X[0, 1] == 0:
        X[0, 0] = 1
    return float(softmax(X @ X[0] / math.sqrt(2))[0])


def qkv_roles_2(seed):
    d = Draw(seed, 2)
    T = d.integer(3, 5)
    v = [d.grid(-4, 4, 1) for _ in range(T)]
    d.integer(1, T)  # the token asked about: every token gets the same mean
    return float(np.mean(v))


# ---- symmetry ----
def symmetry_1(seed):
    d = Draw(seed, 1)
    x, w, t = d.grid(-2, 2, 0.5), d.grid(-1, 1, 0.5), d.grid(-2, 2, 1)
    if x == 0:
        x = 1.0
    return (2 * x * w - t) * x


# ---- kv-memory ----
def memory(seed, n):
    d = Draw(seed, n)
    x = np.array([d.grid(-2, 2, 1) for _ in range(2)])
    W1 = np.array([d.grid(-2, 2, 1) for _ in range(6)]).reshape(2, 3)  # keys are columns
    W2 = np.array([d.grid(-3, 3, 1) for _ in range(3)])
    return x, W1, W2


def kv_memory_1(seed):
    x, W1, _ = memory(seed, 1)
    return int(np.argmax(x @ W1)) + 1  # argmax: the first of equal largest


def kv_memory_2(seed):
    x, W1, W2 = memory(seed, 2)
    return float(np.maximum(x @ W1, 0) @ W2)


# ---- block ----
def block_1(seed):
    d = Draw(seed, 1)
    x = np.array([d.grid(-4, 4, 1) for _ in range(4)])
    if np.all(x == x[0]):
        x[3] += 2
    return float((x[0] - x.mean()) / math.sqrt(x.var() + 1e-5))


def block_2(seed):
    m = preset("gpt2")
    d, f = m["d"], m["d_ff"]
    return (4 * d * d + 4 * d) + (2 * d * f + f + d) + 2 * 2 * d


# ---- mla ----
def mla_1(seed):
    with open(os.path.join(MODELS, "deepseek-v3.json")) as fh:
        c = json.load(fh)
    return c["kv_lora_rank"] + c["qk_rope_head_dim"]


def mla_2(seed):
    d = Draw(seed, 2)
    H, Dh, dc, dR = d.pick([16, 32, 64, 128]), d.pick([64, 128]), d.pick([256, 512]), d.pick([32, 64])
    return 2 * H * Dh / (dc + dR)


# ---- gate ----
def gate_1(seed):
    d = Draw(seed, 1)
    x1, x2, g1, g2 = d.grid(-2, 2, 1), d.grid(-2, 2, 1), d.grid(-1, 1, 0.5), d.grid(-1, 1, 0.5)
    head = d.grid(-3, 3, 1)
    if head == 0:
        head = 2.0
    return head / (1.0 + math.exp(-(x1 * g1 + x2 * g2)))


def gate_2(seed):
    d = Draw(seed, 2)
    H, Dh, D = d.pick([8, 16, 32]), d.pick([64, 128, 256]), d.pick([1024, 2048, 4096])
    return D * H * Dh


# ---- decode ----
def decode_1(seed):
    m = preset(Draw(seed, 1).pick(["llama-3-8b", "llama-2-7b", "qwen3-8b", "gpt2"]))
    return 2 * m["g"] * m["d_h"] * m["layers"]


def decode_2(seed):
    H, G = Draw(seed, 2).pick([(32, 8), (32, 32), (32, 1), (64, 8), (16, 4), (40, 8)])
    Dh, n = 128, 4096
    flop = 2 * (n * H * Dh + n * H * Dh)  # scores and weighted sum, 2 FLOP a multiply-add
    return flop / (2 * G * Dh * n * 2)


# ---- transmla ----
def transmla_1(seed):
    H, G, Dh = Draw(seed, 1).pick([(32, 8, 128), (64, 8, 128), (28, 4, 128), (16, 4, 64), (40, 8, 128), (12, 4, 64)])
    return 2 * G * Dh


def transmla_2(seed):
    H, G, Dh = Draw(seed, 2).pick([(4, 2, 2), (6, 3, 2), (8, 2, 4), (8, 4, 2), (4, 1, 4), (6, 2, 3)])
    W = np.zeros((2 * G * Dh, H * Dh))  # the copy matrix, built from its definition
    for i in range(H):
        j = i // (H // G)
        for a in range(Dh):
            W[j * Dh + a, i * Dh + a] = 1
    return int(W.sum())


# ---- induction ----
def induction_1(seed):
    d = Draw(seed, 1)
    pool = list(range(1, 10))
    toks = []
    for _ in range(5):
        toks.append(pool.pop(d.integer(0, len(pool) - 1)))
    r = d.integer(2, 4)
    toks += toks[:r]
    t = len(toks) - 1
    # the latest j < t - 2 with toks[j] == toks[t] and toks[j-1] == toks[t-1]: copy from j + 1
    j = max(j for j in range(1, t - 2) if toks[j] == toks[t] and toks[j - 1] == toks[t - 1])
    return toks[j + 1]


# ---- specialize ----
def specialize_1(seed):
    d = Draw(seed, 1)
    x = [d.integer(0, 15) for _ in range(6)]
    t = d.integer(1, 5)
    return (x[t - 1] - x[0]) % 16


# ---- tradeoffs ----
def tradeoffs_1(seed):
    d = Draw(seed, 1)
    H, Dh = d.pick([4, 8, 12, 16]), d.pick([16, 32, 64])
    return 2 * (H * Dh) * (H - 1) * Dh


NUMERIC = {
    "attention.1": attention_1, "attention.2": attention_2, "attention.3": attention_3,
    "mha.1": mha_1, "mha.2": mha_2,
    "gqa.1": gqa_1, "gqa.2": gqa_2, "gqa.3": gqa_3,
    "mqa.1": mqa_1, "mqa.2": mqa_2,
    "ffn.1": ffn_1, "ffn.2": ffn_2, "ffn.3": ffn_3,
    "gelu.1": gelu_1, "gelu.2": gelu_2, "gelu.3": gelu_3,
    "swiglu.1": swiglu_1, "swiglu.2": swiglu_2, "swiglu.3": swiglu_3,
    "qkv-roles.1": qkv_roles_1, "qkv-roles.2": qkv_roles_2,
    "symmetry.1": symmetry_1,
    "kv-memory.1": kv_memory_1, "kv-memory.2": kv_memory_2,
    "block.1": block_1, "block.2": block_2,
    "mla.1": mla_1, "mla.2": mla_2,
    "gate.1": gate_1, "gate.2": gate_2,
    "decode.1": decode_1, "decode.2": decode_2,
    "transmla.1": transmla_1, "transmla.2": transmla_2,
    "induction.1": induction_1,
    "specialize.1": specialize_1,
    "tradeoffs.1": tradeoffs_1,
}

# The "why" keys, from the chapter and the conversation (the reasons are in the catalogs).
CHOICE = {
    "attention.4": "b",  # √d_k keeps the scores' variance near 1: softmax does not saturate
    "mha.3": "c",        # splitting into heads adds no parameters
    "mha.4": "a",        # W_O mixes the heads
    "gqa.4": "d",        # each head keeps its own W_Q
    "mqa.3": "b",        # one K/V for all heads costs quality; GQA is the compromise
    "ffn.4": "c",        # more key-value patterns in the wide middle
    "gelu.4": "b",       # GELU is a smooth weighting near 0, not a switch
    "swiglu.4": "a",     # three matrices at 8d/3 = the 8d² of two at 4d
    "qkv-roles.3": "b",  # Q, K, V are activations; W_Q, W_K, W_V are the parameters
    "symmetry.2": "c",   # identical heads get identical gradients and stay identical
    "symmetry.3": "a",   # every gradient passes through a zero weight or activation
    "kv-memory.3": "d",  # row vectors: key j = column j of W_1, value j = row j of W_2
    "block.3": "b",      # the residual stream passes the input through; sublayers add to it
    "mla.3": "c",        # a position-dependent rotation between W_UK and the cache
    "gate.3": "b",       # a gate lets a token take in nothing
    "decode.3": "d",     # a few FLOP per byte read: far below a GPU's balance point
    "transmla.3": "a",   # the position's rotation sits between W_UK and the cache
    "induction.2": "c",  # the induction head's keys need what the previous-token head wrote
    "induction.3": "b",  # two heads useful only together: the phase change
    "specialize.2": "d", # one head: one weighted average per position
    "specialize.3": "a", # roles emerge in training
    "tradeoffs.2": "c",  # matched parameters leave the variant as the only difference
    "tradeoffs.3": "b",  # a difference inside the seed range is not a result
}


def main():
    out = {}
    for ex, f in NUMERIC.items():
        out[ex] = {str(s): f(s) for s in SEEDS}
    for ex, c in CHOICE.items():
        out[ex] = {"choice": c}
    path = os.path.join(HERE, "exercises.json")
    with open(path, "w") as fh:
        json.dump({"seeds": SEEDS, "keys": dict(sorted(out.items()))}, fh, indent=1)
        fh.write("\n")
    print(f"wrote {path}: {len(out)} exercises")


if __name__ == "__main__":
    main()
