"""Golden fixtures for the `transmla` lesson and for src/math/svd.h, computed with numpy.

    /usr/bin/python3 tests/golden/gen_transmla.py

Independent of the C++: GQA heads are einsum axes with the KV group indexed per head (no copy
matrices); the MLA rewrite builds W_UK / W_UV with np.kron; the SVD is LAPACK's
(np.linalg.svd), with attnlab's sign rule (each right singular vector's largest entry positive);
the absorbed path folds W_UK into the queries and W_UV into W_O with einsum.
"""
import math

import numpy as np

from attnlab_ref import Rng, causal, softmax_rows, write_fixture


def softmax_heads(s, is_causal):
    return softmax_rows(causal(s) if is_causal else s)


def gqa(X, W_Q, W_K, W_V, W_O, H, G, is_causal):
    T = X.shape[0]
    Dh = W_K.shape[1] // G
    q = (X @ W_Q).reshape(T, H, Dh)
    k = (X @ W_K).reshape(T, G, Dh)[:, np.arange(H) // (H // G)]
    v = (X @ W_V).reshape(T, G, Dh)[:, np.arange(H) // (H // G)]
    w = softmax_heads(np.einsum("shd,thd->hst", q, k) / math.sqrt(Dh), is_causal)
    heads = np.einsum("hst,thd->shd", w, v).reshape(T, H * Dh)
    return heads @ W_O


def copy_up(H, G, Dh, value_half):
    """(2 G Dh, H Dh): group j's block of the K (or V) half goes to each of its H/G heads."""
    sel = np.zeros((G, H))
    sel[np.arange(H) // (H // G), np.arange(H)] = 1.0
    half = np.kron(sel, np.eye(Dh))  # (G Dh, H Dh)
    zero = np.zeros_like(half)
    return np.vstack([zero, half] if value_half else [half, zero])


def mla(X, W_DKV, W_UK, W_UV, W_Q, W_O, H, Dh, is_causal):
    T = X.shape[0]
    c = X @ W_DKV
    k = (c @ W_UK).reshape(T, H, Dh)
    v = (c @ W_UV).reshape(T, H, Dh)
    q = (X @ W_Q).reshape(T, H, Dh)
    w = softmax_heads(np.einsum("shd,thd->hst", q, k) / math.sqrt(Dh), is_causal)
    return c, np.einsum("hst,thd->shd", w, v).reshape(T, H * Dh) @ W_O


def mla_absorbed(c, W_UK, W_UV, W_Q, W_O, X, H, Dh, is_causal):
    T, C = c.shape
    D = W_O.shape[1]
    q = (X @ W_Q).reshape(T, H, Dh)
    q_abs = np.einsum("shd,chd->hsc", q, W_UK.reshape(C, H, Dh))
    w = softmax_heads(np.einsum("hsc,tc->hst", q_abs, c) / math.sqrt(Dh), is_causal)
    W_UVO = np.einsum("chd,hde->hce", W_UV.reshape(C, H, Dh), W_O.reshape(H, Dh, D))
    return np.einsum("hst,tc,hce->se", w, c, W_UVO)


def svd_signed(A):
    U, S, Vt = np.linalg.svd(A, full_matrices=False)
    for k in range(len(S)):
        at = int(np.argmax(np.abs(Vt[k])))
        if Vt[k, at] < 0:
            Vt[k] *= -1
            U[:, k] *= -1
    return U, S, Vt


def transmla(seed, T, D, H, G, Dh, r, is_causal):
    rng = Rng(seed)
    X = rng.randn((T, D))
    W_Q = rng.init_weight(D, H * Dh)
    W_K = rng.init_weight(D, G * Dh)
    W_V = rng.init_weight(D, G * Dh)
    W_O = rng.init_weight(H * Dh, D)
    out_gqa = gqa(X, W_Q, W_K, W_V, W_O, H, G, is_causal)
    W_DKV = np.hstack([W_K, W_V])
    W_UK, W_UV = copy_up(H, G, Dh, False), copy_up(H, G, Dh, True)
    c, out_mla = mla(X, W_DKV, W_UK, W_UV, W_Q, W_O, H, Dh, is_causal)
    U, S, Vt = svd_signed(W_DKV)

    def low(k):
        return U[:, :k] * S[:k], Vt[:k] @ W_UK, Vt[:k] @ W_UV

    W_DKV_r, W_UK_r, W_UV_r = low(r)
    c_r, out_r = mla(X, W_DKV_r, W_UK_r, W_UV_r, W_Q, W_O, H, Dh, is_causal)
    out_abs = mla_absorbed(c_r, W_UK_r, W_UV_r, W_Q, W_O, X, H, Dh, is_causal)
    K = len(S)
    rel, mx = [], []
    for k in range(1, K + 1):
        a, b, v = low(k)
        _, o = mla(X, a, b, v, W_Q, W_O, H, Dh, is_causal)
        rel.append(np.linalg.norm(o - out_gqa) / np.linalg.norm(out_gqa))
        mx.append(np.max(np.abs(o - out_gqa)))
    return dict(X=X, W_DKV=W_DKV, W_UK=W_UK, W_UV=W_UV, output_gqa=out_gqa, c_KV=c, output_mla=out_mla,
                singular_values=S, W_DKV_r=W_DKV_r, W_UK_r=W_UK_r, W_UV_r=W_UV_r, c_KV_r=c_r, output_r=out_r,
                output_absorbed_r=out_abs, rank=np.arange(1, K + 1, dtype=np.float64),
                cache_share=np.arange(1, K + 1) / (2.0 * G * Dh), rel_error=np.array(rel), max_error=np.array(mx))


if __name__ == "__main__":
    write_fixture("transmla_default", dict(seed=42, seq_len=4, d_model=16, heads=8, kv_heads=2, head_dim=2, latent_dim=4),
                  transmla(42, 4, 16, 8, 2, 2, 4, False))
    write_fixture("transmla_mqa_causal", dict(seed=7, seq_len=5, d_model=12, heads=4, kv_heads=1, head_dim=3, latent_dim=2,
                                              causal=True),
                  transmla(7, 5, 12, 4, 1, 3, 2, True))
    # Matrices for svd_jacobi: tall, wide, square, rank-deficient (a duplicated column) and one with a zero column.
    rng = Rng(2026)
    mats = {"tall": rng.randn((7, 4)), "wide": rng.randn((3, 6)), "square": rng.randn((5, 5))}
    d = rng.randn((6, 3))
    mats["rank_deficient"] = np.hstack([d, d[:, :1] * 2.0])
    z = rng.randn((4, 3))
    z[:, 1] = 0.0
    mats["zero_column"] = z
    tensors = {}
    for name, A in mats.items():
        U, S, Vt = svd_signed(A)
        tensors[name + "_A"] = A
        tensors[name + "_S"] = S
        tensors[name + "_V"] = Vt.T
    write_fixture("svd_cases", dict(generator_note="np.linalg.svd, sign: each V column's largest entry positive"), tensors)
