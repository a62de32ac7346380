"""Golden fixtures for the `qkv-roles`, `gate` and `block` lessons, computed with numpy.

    /usr/bin/python3 tests/golden/gen_qkv_gate_block.py

Each function draws its numbers in the same order as the lesson (see lessons/*.cpp) and computes
every checked tensor independently of the C++.
"""
import math

import numpy as np

from attnlab_ref import Rng, causal, softmax_rows, write_fixture


def qkv_roles(seed, T, d):
    rng = Rng(seed)
    X = rng.randn((T, d))
    W_Q, W_K, W_V = rng.init_weight(d, d), rng.init_weight(d, d), rng.init_weight(d, d)
    X_other = rng.randn((T, d))
    # (a) no projections
    scores_raw = X @ X.T / math.sqrt(d)
    weights_raw = softmax_rows(scores_raw)
    # (b) only W_V: uniform weights
    weights_only_v = np.full((T, T), 1.0 / T)
    V = X @ W_V
    # (c) W_Q, W_K with V = X; (d) all three
    Q, K = X @ W_Q, X @ W_K
    scores_qk = Q @ K.T / math.sqrt(d)
    weights_qk = softmax_rows(scores_qk)
    return dict(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V, X_other=X_other, Q=Q, Q_other=X_other @ W_Q,
                scores_raw=scores_raw, weights_raw=weights_raw, output_raw=weights_raw @ X,
                weights_only_v=weights_only_v, output_only_v=weights_only_v @ V,
                scores_qk=scores_qk, weights_qk=weights_qk, output_qk=weights_qk @ X,
                weights_full=weights_qk, output_full=weights_qk @ V)


def mha_concat(X, W_Q, W_K, W_V, h, is_causal):
    T, d = X.shape
    dk = d // h

    def split(M):
        return M.reshape(T, h, dk).transpose(1, 0, 2)

    Qh, Kh, Vh = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    scores = Qh @ Kh.transpose(0, 2, 1) / math.sqrt(dk)
    if is_causal:
        scores = causal(scores)
    weights = softmax_rows(scores)
    return (weights @ Vh).transpose(1, 0, 2).reshape(T, d), weights


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gate(seed, T, d, h, is_causal):
    rng = Rng(seed)
    X = rng.randn((T, d))
    W_Q, W_K, W_V, W_O = (rng.init_weight(d, d) for _ in range(4))
    W_G_random = rng.init_weight(d, d)
    s = int(np.argmin(sigmoid(X @ W_G_random).mean(axis=1)))
    # shut token s's gate: u is the least-norm vector with X u = e_s (numpy's pseudo-inverse)
    u = np.linalg.pinv(X)[:, s]
    W_G = W_G_random + np.outer(u, -6.0 - X[s] @ W_G_random)
    concat, _ = mha_concat(X, W_Q, W_K, W_V, h, is_causal)
    g = sigmoid(X @ W_G)
    return dict(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O, W_G_random=W_G_random, W_G=W_G, concat=concat,
                gate=g, gated=concat * g, output=(concat * g) @ W_O, output_ungated=concat @ W_O)


def layernorm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def gelu(x):
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def block(seed, T, d, h, f, is_causal, act):
    rng = Rng(seed)
    X = rng.randn((T, d))
    p = {}
    p["ln1_gamma"] = 1.0 + rng.randn((d,), 0.1)
    p["ln1_beta"] = rng.randn((d,), 0.1)
    for m in ("W_Q", "W_K", "W_V", "W_O"):
        p[m] = rng.init_weight(d, d)
    for b in ("b_Q", "b_K", "b_V", "b_O"):
        p[b] = rng.randn((d,), 0.1)
    p["ln2_gamma"] = 1.0 + rng.randn((d,), 0.1)
    p["ln2_beta"] = rng.randn((d,), 0.1)
    p["W_1"] = rng.init_weight(d, f)
    p["b_1"] = rng.randn((f,), 0.1)
    p["W_2"] = rng.init_weight(f, d)
    p["b_2"] = rng.randn((d,), 0.1)

    ln1_out = layernorm(X, p["ln1_gamma"], p["ln1_beta"])
    Q, K, V = (ln1_out @ p["W_" + n] + p["b_" + n] for n in "QKV")
    dk = d // h

    def split(M):
        return M.reshape(T, h, dk).transpose(1, 0, 2)

    scores = split(Q) @ split(K).transpose(0, 2, 1) / math.sqrt(dk)
    if is_causal:
        scores = causal(scores)
    weights = softmax_rows(scores)
    concat = (weights @ split(V)).transpose(1, 0, 2).reshape(T, d)
    attn_out = concat @ p["W_O"] + p["b_O"]
    resid1 = X + attn_out
    ln2_out = layernorm(resid1, p["ln2_gamma"], p["ln2_beta"])
    ffn_hidden = ln2_out @ p["W_1"] + p["b_1"]
    ffn_out = act(ffn_hidden) @ p["W_2"] + p["b_2"]
    return dict(X=X, **p, ln1_out=ln1_out, attn_weights=weights, attn_out=attn_out, resid1=resid1,
                ln2_out=ln2_out, ffn_hidden=ffn_hidden, ffn_out=ffn_out, output=resid1 + ffn_out)


if __name__ == "__main__":
    write_fixture("qkv_roles_default", dict(seed=42, seq_len=4, d_model=8, heads=2), qkv_roles(42, 4, 8))
    write_fixture("qkv_roles_wide", dict(seed=5, seq_len=6, d_model=12, heads=3), qkv_roles(5, 6, 12))
    write_fixture("gate_default", dict(seed=42, seq_len=4, d_model=8, heads=2, causal=False), gate(42, 4, 8, 2, False))
    write_fixture("gate_causal", dict(seed=9, seq_len=5, d_model=12, heads=3, causal=True), gate(9, 5, 12, 3, True))
    write_fixture("block_default", dict(seed=42, seq_len=4, d_model=8, heads=2, d_ff=32, causal=False,
                                        activation="gelu"), block(42, 4, 8, 2, 32, False, gelu))
    write_fixture("block_causal_tanh", dict(seed=11, seq_len=5, d_model=12, heads=3, d_ff=20, causal=True,
                                            activation="gelu-tanh"), block(11, 5, 12, 3, 20, True, gelu_tanh))
