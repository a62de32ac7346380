"""Golden fixtures for the `decode` lesson, computed with numpy.

    /usr/bin/python3 tests/golden/gen_decode.py

Independent of the C++: no KV cache at all. Each next token is the argmax of the last row of a
full causal forward over the prefix, recomputed from scratch at every step (the quadratic way a
cache avoids); the fixture's `logits` are the last rows of those prefix forwards, so they check
the C++'s token-by-token run with the cache, and the keys/values of the final full forward
check its cache. Also the per-variant byte and multiply-add counts, from the formulas.
"""
import math

import numpy as np

from attnlab_ref import Rng, causal, softmax_rows, write_fixture


def forward(E, P, layers, W_U, tokens, h, g):
    T = len(tokens)
    X = E[tokens] + P[:T]
    Ks, Vs = [], []
    for W_Q, W_K, W_V, W_O in layers:
        dh = W_Q.shape[1] // h
        Q = (X @ W_Q).reshape(T, h, dh).transpose(1, 0, 2)
        K = X @ W_K
        V = X @ W_V
        Ks.append(K)
        Vs.append(V)
        group = np.arange(h) // (h // g)
        Kh = K.reshape(T, g, dh).transpose(1, 0, 2)[group]
        Vh = V.reshape(T, g, dh).transpose(1, 0, 2)[group]
        scores = causal(Q @ Kh.transpose(0, 2, 1) / math.sqrt(dh))
        heads = softmax_rows(scores) @ Vh
        X = X + heads.transpose(1, 0, 2).reshape(T, h * dh) @ W_O
    return X, X @ W_U, Ks, Vs


def decode(seed, generate, vocab, d, h, g, n_layers):
    T = generate + 1
    dh = d // h
    rng = Rng(seed)
    E = rng.randn((vocab, d))
    P = rng.randn((T, d))
    layers = [tuple(rng.init_weight(a, b) for a, b in ((d, h * dh), (d, g * dh), (d, g * dh), (h * dh, d)))
              for _ in range(n_layers)]
    W_U = rng.init_weight(d, vocab)
    tokens = [0]
    logits = []
    for t in range(T):
        _, lg, _, _ = forward(E, P, layers, W_U, tokens, h, g)
        logits.append(lg[-1])
        if len(tokens) < T:
            tokens.append(int(np.argmax(lg[-1])))
    hidden, lg_full, Ks, Vs = forward(E, P, layers, W_U, tokens, h, g)
    return dict(E=E, W_U=W_U, W_K_1=layers[0][1], tokens=np.array(tokens, dtype=np.float64), logits=np.array(logits),
                logits_full=lg_full, K_cache_1=Ks[0], V_cache_1=Vs[0])


def costs(h, g, dh, c, r, n, nbytes):
    """Bytes read per layer for one token with n cached tokens, per variant (the lesson's bytes_*)."""
    per = [2 * h * dh, 2 * g * dh, 2 * dh, h * (dh + r) + h * dh, c + r]
    return [p * n * nbytes for p in per]


if __name__ == "__main__":
    t = decode(42, 7, 16, 32, 8, 2, 2)
    T = 8
    table = np.array([costs(8, 2, 4, 8, 2, n, 2) for n in range(1, T + 1)], dtype=np.float64)
    for k, name in enumerate(["mha", "gqa", "mqa", "mla_naive", "mla_absorbed"]):
        t["bytes_" + name] = table[:, k]
    t["context"] = np.arange(1, T + 1, dtype=np.float64)
    write_fixture("decode_default", dict(seed=42, generate=7, vocab=16, d_model=32, heads=8, kv_heads=2, layers=2,
                                         latent_dim=8, rope_dim=2, bytes_per_number=2), t)
    write_fixture("decode_mha_3layers", dict(seed=7, generate=11, vocab=24, d_model=24, heads=4, kv_heads=4, layers=3),
                  {k: v for k, v in decode(7, 11, 24, 24, 4, 4, 3).items()})
