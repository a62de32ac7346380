"""Golden fixtures for the `mla` lesson, computed with numpy.

    /usr/bin/python3 tests/golden/gen_mla.py

Independent of the C++: heads are einsum axes (as in DeepSeek-V3's inference/model.py, which we
read but do not copy); RoPE multiplies consecutive pairs, viewed as complex numbers, by
exp(i * pos * theta); the absorbed path reshapes W_UK / W_UV to (C, H, Dh) and folds them with
einsum.
"""
import math

import numpy as np

from attnlab_ref import Rng, causal, softmax_rows, write_fixture


def rope(x, width):
    """x (T, n*width): every width-wide block, pairs (2i, 2i+1) as complex numbers, times e^{i t theta_i}."""
    T = x.shape[0]
    theta = 10000.0 ** (-2.0 * np.arange(width // 2) / width)
    z = x.reshape(T, -1, width // 2, 2)
    zc = (z[..., 0] + 1j * z[..., 1]) * np.exp(1j * np.arange(T)[:, None, None] * theta[None, None, :])
    return np.stack([zc.real, zc.imag], axis=-1).reshape(x.shape)


def mask(scores, is_causal):
    return causal(scores) if is_causal else scores


def mla(seed, T, D, H, Dh, C, Cq, R, is_causal):
    rng = Rng(seed)
    X = rng.randn((T, D))
    t = dict(X=X)
    t["W_DKV"] = rng.init_weight(D, C)
    t["W_UK"] = rng.init_weight(C, H * Dh)
    t["W_UV"] = rng.init_weight(C, H * Dh)
    if Cq == 0:
        t["W_Q"] = rng.init_weight(D, H * Dh)
    else:
        t["W_DQ"] = rng.init_weight(D, Cq)
        t["W_UQ"] = rng.init_weight(Cq, H * Dh)
    if R > 0:
        t["W_QR"] = rng.init_weight(D if Cq == 0 else Cq, H * R)
        t["W_KR"] = rng.init_weight(D, R)
    t["W_O"] = rng.init_weight(H * Dh, D)

    # naive: expand the latent, MHA per head
    c_KV = X @ t["W_DKV"]
    K_C, V_C = c_KV @ t["W_UK"], c_KV @ t["W_UV"]
    if Cq == 0:
        Q_C = X @ t["W_Q"]
    else:
        t["c_Q"] = X @ t["W_DQ"]
        Q_C = t["c_Q"] @ t["W_UQ"]
    q, k, v = (M.reshape(T, H, Dh) for M in (Q_C, K_C, V_C))
    scores = np.einsum("shd,thd->hst", q, k)
    if R > 0:
        t["rope_theta"] = 10000.0 ** (-2.0 * np.arange(R // 2) / R)
        t["K_R_raw"] = X @ t["W_KR"]
        t["Q_R"] = rope((X if Cq == 0 else t["c_Q"]) @ t["W_QR"], R)
        t["K_R"] = rope(t["K_R_raw"], R)
        rope_part = np.einsum("shr,tr->hst", t["Q_R"].reshape(T, H, R), t["K_R"])
        scores = scores + rope_part
    scores = mask(scores / math.sqrt(Dh + R), is_causal)
    weights = softmax_rows(scores)
    heads = np.einsum("hst,thd->hsd", weights, v)
    concat = heads.transpose(1, 0, 2).reshape(T, H * Dh)
    t.update(c_KV=c_KV, K_C=K_C, V_C=V_C, Q_C=Q_C, scores=scores, weights=weights, heads=heads, concat=concat,
             output=concat @ t["W_O"])

    # absorbed: only the cache (c_KV, K_R) and the queries
    W_UK = t["W_UK"].reshape(C, H, Dh)
    W_UV = t["W_UV"].reshape(C, H, Dh)
    q_abs = np.einsum("shd,chd->hsc", q, W_UK)
    s_abs = np.einsum("hsc,tc->hst", q_abs, c_KV)
    if R > 0:
        s_abs = s_abs + rope_part
    s_abs = mask(s_abs / math.sqrt(Dh + R), is_causal)
    w_abs = softmax_rows(s_abs)
    W_UVO = np.einsum("chd,hde->hce", W_UV, t["W_O"].reshape(H, Dh, D))
    ctx = np.einsum("hst,tc->hsc", w_abs, c_KV)
    t.update(q_absorbed=q_abs, scores_absorbed=s_abs, W_UVO=W_UVO, context_latent=ctx,
             output_absorbed=np.einsum("hsc,hce->se", ctx, W_UVO))

    # RoPE applied to the compressed keys: what it means, and what one absorbed W_UK can do
    q_rot = rope(Q_C, Dh).reshape(T, H, Dh)
    k_rot = rope(K_C, Dh).reshape(T, H, Dh)
    s_rol = mask(np.einsum("shd,thd->hst", q_rot, k_rot) / math.sqrt(Dh), is_causal)
    s_rol_abs = mask(np.einsum("hsc,tc->hst", np.einsum("shd,chd->hsc", q_rot, W_UK), c_KV) / math.sqrt(Dh),
                     is_causal)
    with np.errstate(invalid="ignore"):
        diff = np.where(np.isinf(s_rol) & np.isinf(s_rol_abs), 0.0, np.abs(s_rol - s_rol_abs))
    t.update(scores_rope_on_latent=s_rol, scores_rope_on_latent_absorbed=s_rol_abs,
             rope_on_latent_mismatch_by_key=diff.max(axis=(0, 1)))
    return t


if __name__ == "__main__":
    write_fixture("mla_default", dict(seed=42, seq_len=4, d_model=8, heads=2, head_dim=4, latent_dim=4,
                                      q_latent_dim=0, rope_dim=2, causal=False),
                  mla(42, 4, 8, 2, 4, 4, 0, 2, False))
    write_fixture("mla_norope", dict(seed=11, seq_len=5, d_model=10, heads=3, head_dim=2, latent_dim=3,
                                     q_latent_dim=0, rope_dim=0, causal=False),
                  mla(11, 5, 10, 3, 2, 3, 0, 0, False))
    write_fixture("mla_qlatent_causal", dict(seed=7, seq_len=6, d_model=12, heads=3, head_dim=4, latent_dim=5,
                                             q_latent_dim=6, rope_dim=4, causal=True),
                  mla(7, 6, 12, 3, 4, 5, 6, 4, True))
