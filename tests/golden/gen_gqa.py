"""Golden fixtures for the `gqa` and `mqa` lessons, computed with numpy.

    /usr/bin/python3 tests/golden/gen_gqa.py

Independent of the C++: K and V are indexed per query head with numpy fancy indexing
(K_heads[group_of_head]), and the MHA-with-copied-weights path builds the copied matrices
with np.repeat on the (D, G, Dk) view.
"""
import math

import numpy as np

from attnlab_ref import Rng, causal, softmax_rows, write_fixture


def split(M, n):
    """(T, n*dk) -> (n, T, dk)"""
    T = M.shape[0]
    return M.reshape(T, n, -1).transpose(1, 0, 2)


def attend(Qh, Kh, Vh, W_O, is_causal):
    """Per-head attention on (H, T, dk) tensors; returns scores, weights, heads, concat, output."""
    H, T, dk = Qh.shape
    scores = Qh @ Kh.transpose(0, 2, 1) / math.sqrt(dk)
    if is_causal:
        scores = causal(scores)
    weights = softmax_rows(scores)
    heads = weights @ Vh
    concat = heads.transpose(1, 0, 2).reshape(T, H * dk)
    return scores, weights, heads, concat, concat @ W_O


def gqa(seed, T, d, h, g, is_causal):
    dk = d // h
    rng = Rng(seed)
    X = rng.randn((T, d))
    W_Q = rng.init_weight(d, h * dk)
    W_K = rng.init_weight(d, g * dk)
    W_V = rng.init_weight(d, g * dk)
    W_O = rng.init_weight(h * dk, d)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Qh, Kh, Vh = split(Q, h), split(K, g), split(V, g)
    group = np.arange(h) // (h // g)
    Ke, Ve = Kh[group], Vh[group]
    scores, weights, heads, concat, output = attend(Qh, Ke, Ve, W_O, is_causal)
    # MHA on weights whose K/V head blocks are copies within each group
    W_K_copied = np.repeat(W_K.reshape(d, g, dk), h // g, axis=1).reshape(d, h * dk)
    W_V_copied = np.repeat(W_V.reshape(d, g, dk), h // g, axis=1).reshape(d, h * dk)
    mha = attend(split(X @ W_Q, h), split(X @ W_K_copied, h), split(X @ W_V_copied, h), W_O, is_causal)
    return dict(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O, Q=Q, K=K, V=V, Q_heads=Qh, K_heads=Kh, V_heads=Vh,
                group_of_head=group.astype(np.float64), K_expanded=Ke, V_expanded=Ve, scores=scores,
                weights=weights, heads=heads, concat=concat, output=output, W_K_copied=W_K_copied,
                output_mha_copied=mha[4], output_by_group=output)


if __name__ == "__main__":
    write_fixture("gqa_default", dict(seed=42, seq_len=4, d_model=8, heads=4, kv_heads=2, causal=False),
                  gqa(42, 4, 8, 4, 2, False))
    write_fixture("gqa_chapter_causal", dict(seed=5, seq_len=5, d_model=24, heads=12, kv_heads=4, causal=True),
                  gqa(5, 5, 24, 12, 4, True))
    write_fixture("mqa_default", dict(seed=42, seq_len=4, d_model=8, heads=4, kv_heads=1, causal=False),
                  gqa(42, 4, 8, 4, 1, False))
    write_fixture("mqa_causal", dict(seed=9, seq_len=6, d_model=12, heads=3, kv_heads=1, causal=True),
                  gqa(9, 6, 12, 3, 1, True))
