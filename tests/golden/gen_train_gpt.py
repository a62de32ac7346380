"""Golden fixture for attnlab's GPT-2 training (src/math/gpt*.cpp, adamw.cpp), from PyTorch autograd.

    /usr/bin/python3 tests/golden/gen_train_gpt.py      (Debian's python3-torch 1.13, float64)

The initial weights are drawn from attnlab's own generator, re-implemented in attnlab_ref.Rng,
tensor by tensor in the checkpoint order, as attnlab's gpt_init draws them: every 2-D weight
N(0, 0.02^2), the residual projections (attn.c_proj, mlp.c_proj) N(0, (0.02/sqrt(2L))^2), biases 0,
LayerNorm weights 1. The model is written out here with plain torch ops (embedding + positions,
pre-LN blocks of causal multi-head attention and a tanh-GELU MLP, final LayerNorm, tied
unembedding, cross-entropy with ignore_index -1); autograd gives every gradient, and
torch.optim.AdamW (2-D weights decayed, the rest not) takes a few steps.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

from attnlab_ref import HERE, Rng

torch.set_default_dtype(torch.float64)


def layout(V, P, C, L, mlp):
    t = [("wte.weight", (V, C)), ("wpe.weight", (P, C))]
    for l in range(L):
        h = "h.%d." % l
        t += [(h + "ln_1.weight", (C,)), (h + "ln_1.bias", (C,)),
              (h + "attn.c_attn.weight", (C, 3 * C)), (h + "attn.c_attn.bias", (3 * C,)),
              (h + "attn.c_proj.weight", (C, C)), (h + "attn.c_proj.bias", (C,))]
        if mlp:
            t += [(h + "ln_2.weight", (C,)), (h + "ln_2.bias", (C,)),
                  (h + "mlp.c_fc.weight", (C, 4 * C)), (h + "mlp.c_fc.bias", (4 * C,)),
                  (h + "mlp.c_proj.weight", (4 * C, C)), (h + "mlp.c_proj.bias", (C,))]
    return t + [("ln_f.weight", (C,)), ("ln_f.bias", (C,))]


def init(seed, lay, L):
    rng = Rng(seed)
    out = {}
    for name, shape in lay:
        if name.endswith("c_proj.weight"):
            v = rng.randn(shape, 0.02 / math.sqrt(2.0 * L))
        elif len(shape) == 2:
            v = rng.randn(shape, 0.02)
        elif "ln_" in name and name.endswith(".weight"):
            v = [1.0] * shape[0]
        else:
            v = [0.0] * shape[0]
        out[name] = torch.tensor(v, dtype=torch.float64).reshape(shape).requires_grad_(True)
    return out


def forward(p, tokens, targets, V, C, L, H, mlp):
    B, T = tokens.shape
    hs = C // H
    x = p["wte.weight"][tokens] + p["wpe.weight"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for l in range(L):
        h = "h.%d." % l
        a = F.layer_norm(x, (C,), p[h + "ln_1.weight"], p[h + "ln_1.bias"], 1e-5)
        qkv = a @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]
        q, k, v = qkv.split(C, dim=2)
        q, k, v = (z.view(B, T, H, hs).transpose(1, 2) for z in (q, k, v))
        s = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        w = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
        y = (w @ v).transpose(1, 2).reshape(B, T, C)
        x = x + y @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        if mlp:
            a = F.layer_norm(x, (C,), p[h + "ln_2.weight"], p[h + "ln_2.bias"], 1e-5)
            f = F.gelu(a @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"], approximate="tanh")
            x = x + f @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (C,), p["ln_f.weight"], p["ln_f.bias"], 1e-5)
    logits = x @ p["wte.weight"].T
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-1)


def case(name, V, T, C, L, H, B, mlp, seed, data_seed, lr, steps):
    lay = layout(V, T, C, L, mlp)
    p = init(seed, lay, L)
    rng = Rng(data_seed)
    toks = [rng.next_u64() % V for _ in range(B * T)]
    tokens = torch.tensor(toks, dtype=torch.long).reshape(B, T)
    targets = torch.full((B, T), -1, dtype=torch.long)
    targets[:, :-1] = tokens[:, 1:]
    targets[0, 2] = -1  # a position without a target inside a sequence
    loss = forward(p, tokens, targets, V, C, L, H, mlp)
    loss.backward()
    grads = {n: p[n].grad.detach().reshape(-1).tolist() for n, _ in lay}
    decay = [p[n] for n, s in lay if len(s) == 2]
    no_decay = [p[n] for n, s in lay if len(s) != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.98), eps=1e-8)
    opt.zero_grad()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        l = forward(p, tokens, targets, V, C, L, H, mlp)
        losses.append(l.item())
        l.backward()
        opt.step()
    after = {n: p[n].detach().reshape(-1).tolist() for n, _ in lay}
    return name, {
        "config": {"vocab": V, "n_positions": T, "d_model": C, "n_layer": L, "n_head": H, "batch": B, "mlp": mlp,
                   "seed": seed, "lr": lr, "betas": [0.9, 0.98], "eps": 1e-8, "weight_decay": 0.01,
                   "adamw_steps": steps},
        "tokens": toks,
        "targets": targets.reshape(-1).tolist(),
        "loss": loss.item(),
        "grads": grads,
        "step_losses": losses,
        "after": after,
    }


def main():
    doc = {"generator": "tests/golden/gen_train_gpt.py", "torch": torch.__version__, "cases": {}}
    for name, c in [case("mlp", 11, 8, 8, 2, 2, 3, True, 5, 7, 1e-2, 3),
                    case("attention_only", 13, 7, 12, 2, 3, 2, False, 9, 11, 1e-2, 3)]:
        doc["cases"][name] = c
    with open(os.path.join(HERE, "train_gpt.json"), "w") as f:
        json.dump(doc, f)
        f.write("\n")


if __name__ == "__main__":
    main()
