"""Golden fixtures for the `attention` and `mha` lessons, computed with numpy.

    /usr/bin/python3 tests/golden/gen_attention_mha.py
"""
import math

import numpy as np

from attnlab_ref import Rng, causal, softmax_rows, write_fixture


def attention(seed, T, d, dk, is_causal):
    rng = Rng(seed)
    X = rng.randn((T, d))
    W_Q, W_K, W_V = rng.init_weight(d, dk), rng.init_weight(d, dk), rng.init_weight(d, dk)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores = Q @ K.T / math.sqrt(dk)
    if is_causal:
        scores = causal(scores)
    weights = softmax_rows(scores)
    return dict(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V, Q=Q, K=K, V=V, scores=scores, weights=weights, output=weights @ V)


def mha(seed, T, d, h, is_causal):
    dk = d // h
    rng = Rng(seed)
    X = rng.randn((T, d))
    W_Q, W_K, W_V, W_O = (rng.init_weight(d, d) for _ in range(4))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V

    def split(M):  # (T, h*dk) -> (h, T, dk)
        return M.reshape(T, h, dk).transpose(1, 0, 2)

    Qh, Kh, Vh = split(Q), split(K), split(V)
    scores = Qh @ Kh.transpose(0, 2, 1) / math.sqrt(dk)
    if is_causal:
        scores = causal(scores)
    weights = softmax_rows(scores)
    heads = weights @ Vh
    concat = heads.transpose(1, 0, 2).reshape(T, d)
    return dict(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O, Q=Q, K=K, V=V, Q_heads=Qh, K_heads=Kh, V_heads=Vh,
                scores=scores, weights=weights, heads=heads, concat=concat, output=concat @ W_O)


if __name__ == "__main__":
    write_fixture("attention_default", dict(seed=42, seq_len=4, d_model=8, head_dim=4, causal=False),
                  attention(42, 4, 8, 4, False))
    write_fixture("attention_causal", dict(seed=7, seq_len=5, d_model=6, head_dim=3, causal=True),
                  attention(7, 5, 6, 3, True))
    write_fixture("mha_default", dict(seed=42, seq_len=4, d_model=8, heads=2, causal=False), mha(42, 4, 8, 2, False))
    write_fixture("mha_causal", dict(seed=3, seq_len=6, d_model=12, heads=3, causal=True), mha(3, 6, 12, 3, True))
