"""Golden fixture for the chapter's variants as attnlab trains them (src/math/decoder*.cpp), from
PyTorch autograd.

    /usr/bin/python3 tests/golden/gen_decoder_grads.py      (Debian's python3-torch, float64)

Each case is one variant on a tiny model: MHA, GQA (2 groups), MQA, MLA with and without its
decoupled RoPE key; learned positions or RoPE; GELU or SwiGLU; LayerNorm or RMSNorm. The initial
weights are drawn from attnlab's own generator (attnlab_ref.Rng), tensor by tensor in attnlab's
layout order with attnlab's rule (every matrix N(0, 0.02^2), W_O and W_2/W_down
N(0, (0.02/sqrt(2L))^2), norm weights 1, biases 0). The model is then written here with plain
torch ops the way the papers and Hugging Face write it — keys and values repeated to the query
heads (repeat_interleave, as transformers' repeat_kv), RoPE by rotate_half, MLA's key assembled
from the per-head K_C and the shared K_R — and autograd gives the loss's gradient for every
parameter. No code is shared with the C++ it checks.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

from attnlab_ref import HERE, Rng

torch.set_default_dtype(torch.float64)
EPS = 1e-5


def layout(c):
    V, P, C, L, H, hs, Fw = c["vocab"], c["n_positions"], c["d_model"], c["n_layer"], c["n_head"], c["head_dim"], c["d_ff"]
    G = {"mha": H, "gqa": c.get("n_kv_head", 0), "mqa": 1, "mla": H}[c["attention"]]
    Dc, R = c.get("kv_lora_rank", 0), c.get("rope_dim", 0)
    ln = c["norm"] == "layernorm"
    t = [("wte", (V, C))]
    if c["positions"] == "learned":
        t.append(("wpe", (P, C)))
    for l in range(L):
        h = "layers.%d." % l
        t.append((h + "norm_1.weight", (C,)))
        if ln:
            t.append((h + "norm_1.bias", (C,)))
        t.append((h + "attn.W_Q", (C, H * hs)))
        if c["attention"] == "mla":
            t += [(h + "attn.W_DKV", (C, Dc)), (h + "attn.W_UK", (Dc, H * hs)), (h + "attn.W_UV", (Dc, H * hs))]
            if R > 0:
                t += [(h + "attn.W_QR", (C, H * R)), (h + "attn.W_KR", (C, R))]
        else:
            t += [(h + "attn.W_K", (C, G * hs)), (h + "attn.W_V", (C, G * hs))]
        t.append((h + "attn.W_O", (H * hs, C)))
        t.append((h + "norm_2.weight", (C,)))
        if ln:
            t.append((h + "norm_2.bias", (C,)))
        if c["ffn"] == "gelu":
            t += [(h + "ffn.W_1", (C, Fw)), (h + "ffn.W_2", (Fw, C))]
        else:
            t += [(h + "ffn.W_gate", (C, Fw)), (h + "ffn.W_up", (C, Fw)), (h + "ffn.W_down", (Fw, C))]
    t.append(("norm_f.weight", (C,)))
    if ln:
        t.append(("norm_f.bias", (C,)))
    return t, G


def init(seed, lay, L):
    rng = Rng(seed)
    out = {}
    for name, shape in lay:
        if name.endswith("W_O") or name.endswith("W_2") or name.endswith("W_down"):
            v = rng.randn(shape, 0.02 / math.sqrt(2.0 * L))
        elif len(shape) == 2:
            v = rng.randn(shape, 0.02)
        elif name.endswith(".weight"):
            v = [1.0] * shape[0]
        else:
            v = [0.0] * shape[0]
        out[name] = torch.tensor(v, dtype=torch.float64).reshape(shape).requires_grad_(True)
    return out


def norm(c, p, prefix, x):
    if c["norm"] == "layernorm":
        return F.layer_norm(x, (x.shape[-1],), p[prefix + ".weight"], p[prefix + ".bias"], EPS)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * p[prefix + ".weight"]


def rotate_half(x):
    d = x.shape[-1] // 2
    return torch.cat((-x[..., d:], x[..., :d]), dim=-1)


def rope(x, theta):
    """x (..., T, d): rotate_half RoPE, position = index along T."""
    T, d = x.shape[-2], x.shape[-1]
    inv_freq = theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    emb = torch.cat((ang, ang), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


def forward(c, p, tokens, targets, G):
    B, T = tokens.shape
    C, L, H, hs = c["d_model"], c["n_layer"], c["n_head"], c["head_dim"]
    R = c.get("rope_dim", 0)
    use_rope = c["positions"] == "rope"
    theta = 10000.0
    x = p["wte"][tokens]
    if not use_rope:
        x = x + p["wpe"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for l in range(L):
        pre = "layers.%d." % l
        h = norm(c, p, pre + "norm_1", x)
        if c["attention"] != "mla":
            q = (h @ p[pre + "attn.W_Q"]).view(B, T, H, hs).transpose(1, 2)  # (B, H, T, hs)
            k = (h @ p[pre + "attn.W_K"]).view(B, T, G, hs).transpose(1, 2)  # (B, G, T, hs)
            v = (h @ p[pre + "attn.W_V"]).view(B, T, G, hs).transpose(1, 2)
            if use_rope:
                q, k = rope(q, theta), rope(k, theta)
            k = k.repeat_interleave(H // G, dim=1)
            v = v.repeat_interleave(H // G, dim=1)
        else:
            ckv = h @ p[pre + "attn.W_DKV"]                                          # (B, T, Dc)
            kc = (ckv @ p[pre + "attn.W_UK"]).view(B, T, H, hs).transpose(1, 2)       # (B, H, T, hs)
            v = (ckv @ p[pre + "attn.W_UV"]).view(B, T, H, hs).transpose(1, 2)
            qc = (h @ p[pre + "attn.W_Q"]).view(B, T, H, hs).transpose(1, 2)
            if R > 0:
                qr = rope((h @ p[pre + "attn.W_QR"]).view(B, T, H, R).transpose(1, 2), theta)  # (B, H, T, R)
                kr = rope((h @ p[pre + "attn.W_KR"]).view(B, 1, T, R), theta)                   # (B, 1, T, R)
                q = torch.cat((qc, qr), dim=-1)
                k = torch.cat((kc, kr.expand(B, H, T, R)), dim=-1)
            else:
                q, k = qc, kc
        s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        s = s.masked_fill(mask, float("-inf"))
        y = torch.softmax(s, dim=-1) @ v                                             # (B, H, T, hs)
        y = y.transpose(1, 2).reshape(B, T, H * hs)
        x = x + y @ p[pre + "attn.W_O"]
        h2 = norm(c, p, pre + "norm_2", x)
        if c["ffn"] == "gelu":
            f = F.gelu(h2 @ p[pre + "ffn.W_1"], approximate="tanh") @ p[pre + "ffn.W_2"]
        else:
            f = (F.silu(h2 @ p[pre + "ffn.W_gate"]) * (h2 @ p[pre + "ffn.W_up"])) @ p[pre + "ffn.W_down"]
        x = x + f
    x = norm(c, p, "norm_f", x)
    logits = x @ p["wte"].t()
    return F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(-1), ignore_index=-1)


def base(**kw):
    c = dict(vocab=11, n_positions=8, d_model=16, n_layer=2, n_head=4, head_dim=4, d_ff=24)
    c.update(kw)
    return c


CASES = {
    "mha_learned_gelu_layernorm": base(attention="mha", positions="learned", ffn="gelu", norm="layernorm"),
    "mha_rope_swiglu_rmsnorm": base(attention="mha", positions="rope", ffn="swiglu", norm="rmsnorm"),
    "gqa2_rope_swiglu_rmsnorm": base(attention="gqa", n_kv_head=2, positions="rope", ffn="swiglu", norm="rmsnorm"),
    "mqa_rope_gelu_rmsnorm": base(attention="mqa", positions="rope", ffn="gelu", norm="rmsnorm"),
    "gqa2_learned_gelu_layernorm": base(attention="gqa", n_kv_head=2, positions="learned", ffn="gelu", norm="layernorm"),
    "mla_rope_swiglu_rmsnorm": base(attention="mla", kv_lora_rank=6, rope_dim=4, positions="rope", ffn="swiglu",
                                    norm="rmsnorm"),
    "mla_learned_gelu_layernorm": base(attention="mla", kv_lora_rank=6, positions="learned", ffn="gelu",
                                       norm="layernorm", head_dim=6),
}


def main():
    out = {"generator": "tests/golden/gen_decoder_grads.py", "torch": torch.__version__, "cases": {}}
    gen = torch.Generator().manual_seed(5)
    for name, c in CASES.items():
        lay, G = layout(c)
        p = init(7, lay, c["n_layer"])
        B, T = 2, 7
        tokens = torch.randint(0, c["vocab"], (B, T), generator=gen)
        targets = torch.randint(0, c["vocab"], (B, T), generator=gen)
        targets[0, 2] = -1
        targets[1, 6] = -1
        loss = forward(c, p, tokens, targets, G)
        loss.backward()
        out["cases"][name] = {
            "config": c, "seed": 7, "B": B, "T": T,
            "tokens": tokens.reshape(-1).tolist(), "targets": targets.reshape(-1).tolist(),
            "loss": loss.item(),
            "grads": {n: p[n].grad.reshape(-1).tolist() for n, _ in lay},
        }
    path = os.path.join(HERE, "decoder_grads.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print("wrote", path)


if __name__ == "__main__":
    main()
