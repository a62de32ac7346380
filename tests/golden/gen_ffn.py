"""Golden fixtures for the `ffn`, `swiglu`, `kv-memory` and `gelu` lessons, computed with numpy.

    /usr/bin/python3 tests/golden/gen_ffn.py

Weights are drawn in the order each lesson draws them (x first when it is random, then
W_1, b_1, W_2, b_2 for ffn; W_gate, W_up, W_down, then the standard FFN's W_1, W_2 for swiglu).
GELU is the exact erf form (math.erf), written out here, not taken from attnlab.
"""
import json
import math
import os

import numpy as np

from attnlab_ref import HERE, Rng, write_fixture

DATA = os.path.join(HERE, "..", "..", "data")
CHAPTER_X = [0.47, 0.50, 0.59, 0.29]
BIAS_STD = 0.1

erf = np.vectorize(math.erf)


def gelu(z):
    return 0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))


def gelu_tanh(z):
    return 0.5 * z * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3)))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def silu(z):
    return z * sigmoid(z)


def relu(z):
    return np.maximum(z, 0.0)


ACT = {"gelu": gelu, "gelu-tanh": gelu_tanh, "silu": silu, "relu": relu}


def ffn(seed, d, d_ff, act, x=None):
    rng = Rng(seed)
    x = np.array(x, dtype=np.float64) if x is not None else rng.randn((d,))
    W_1, b_1 = rng.init_weight(d, d_ff), rng.randn((d_ff,), BIAS_STD)
    W_2, b_2 = rng.init_weight(d_ff, d), rng.randn((d,), BIAS_STD)
    z = x @ W_1 + b_1
    h = ACT[act](z)
    return dict(x=x, W_1=W_1, b_1=b_1, z=z, h=h, W_2=W_2, b_2=b_2, y=h @ W_2 + b_2)


def swiglu(seed, d, hidden, x=None):
    rng = Rng(seed)
    x = np.array(x, dtype=np.float64) if x is not None else rng.randn((d,))
    W_gate, W_up, W_down = rng.init_weight(d, hidden), rng.init_weight(d, hidden), rng.init_weight(hidden, d)
    gate_pre = x @ W_gate
    gate = silu(gate_pre)
    up = x @ W_up
    hidden_v = gate * up
    ffn_W_1, ffn_W_2 = rng.init_weight(d, 4 * d), rng.init_weight(4 * d, d)
    ffn_h = gelu(x @ ffn_W_1)
    return dict(x=x, W_gate=W_gate, W_up=W_up, W_down=W_down, gate_pre=gate_pre, gate_fraction=sigmoid(gate_pre),
                gate=gate, up=up, hidden=hidden_v, y=hidden_v @ W_down, ffn_W_1=ffn_W_1, ffn_W_2=ffn_W_2,
                ffn_h=ffn_h, ffn_y=ffn_h @ ffn_W_2)


def kv_memory(seed, d_ff, top_k):
    with open(os.path.join(DATA, "kv_memory", "paris.json")) as f:
        m = json.load(f)
    d, slot = len(m["key"]), m["slot"]
    rng = Rng(seed)
    W_1, b_1 = rng.init_weight(d, d_ff), rng.randn((d_ff,), BIAS_STD)
    W_2, b_2 = rng.init_weight(d_ff, d), rng.randn((d,), BIAS_STD)
    W_1[:, slot], b_1[slot], W_2[slot, :] = m["key"], m["bias"], m["value"]
    out = dict(W_1=W_1, b_1=b_1, W_2=W_2, b_2=b_2)
    for suffix, probe in (("", m["inputs"][0]), ("_other", m["inputs"][1])):
        x = np.array(probe["x"], dtype=np.float64)
        match = x @ W_1 + b_1
        act = gelu(match)
        contribution = act[:, None] * W_2  # row j = act_j * v_j
        order = sorted(range(d_ff), key=lambda j: (-act[j], j))[:top_k]
        out.update({"x" + suffix: x, "match" + suffix: match, "activation" + suffix: act,
                    "contribution" + suffix: contribution, "y" + suffix: contribution.sum(axis=0) + b_2,
                    "top_keys" + suffix: np.array(order, dtype=np.float64)})
    return out


def gelu_values(values):
    v = np.array(values, dtype=np.float64)
    return dict(values=v, gelu=gelu(v), gelu_tanh=gelu_tanh(v), silu=silu(v), relu=relu(v),
                gelu_tanh_error=gelu_tanh(v) - gelu(v))


if __name__ == "__main__":
    write_fixture("ffn_default", dict(seed=42, d_model=4, d_ff=16, activation="gelu"), ffn(42, 4, 16, "gelu", CHAPTER_X))
    write_fixture("ffn_random_x_silu", dict(seed=7, d_model=6, d_ff=10, activation="silu"), ffn(7, 6, 10, "silu"))
    write_fixture("ffn_custom_x_tanh", dict(seed=3, x="1 -2 0.5", d_ff=5, activation="gelu-tanh"),
                  ffn(3, 3, 5, "gelu-tanh", [1.0, -2.0, 0.5]))
    write_fixture("swiglu_default", dict(seed=42, d_model=4, hidden=10), swiglu(42, 4, 10, CHAPTER_X))
    # d_model 8, --multiple-of 8: floor(8*8/3) = 21, rounded up to 24
    write_fixture("swiglu_d8_multiple8", dict(seed=5, d_model=8, multiple_of=8, hidden=24), swiglu(5, 8, 24))
    write_fixture("kv_memory_default", dict(seed=42, d_ff=8, top_k=3), kv_memory(42, 8, 3))
    write_fixture("gelu_chapter", dict(values="chapter"), gelu_values([1.2, -0.5, 0.8, 0.0, -1.1, 0.3]))
