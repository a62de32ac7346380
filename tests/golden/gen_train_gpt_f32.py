"""Golden fixture for attnlab's float32 GPT-2 training (`train --dtype f32`), from PyTorch autograd.

    /usr/bin/python3 tests/golden/gen_train_gpt_f32.py      (Debian's python3-torch 1.13)

The f64 fixture's model and data (gen_train_gpt.py: the same layout, initial weights drawn from
attnlab's generator in double, the same torch ops), with every weight rounded to float32 once and
the whole computation in float32: forward, autograd and torch.optim.AdamW (its moments in float32).
Writes train_gpt_f32.json. A float32 run differs from the exact one by rounding at every op, so the
test compares with a tolerance (tests/test_train_gpt.cpp), not to the bit.
"""
import json
import os

import torch

from attnlab_ref import HERE, Rng
from gen_train_gpt import forward, init, layout

torch.set_num_threads(1)  # one fixed order of sums in torch too: the fixture is the same every run


def f32(values):
    """float32 numbers as 9 significant digits: enough to give back the same float, half the text."""
    return [float("%.9g" % x) for x in values]


def case(name, V, T, C, L, H, B, mlp, seed, data_seed, lr, steps):
    lay = layout(V, T, C, L, mlp)
    p = {n: t.detach().to(torch.float32).requires_grad_(True) for n, t in init(seed, lay, L).items()}
    rng = Rng(data_seed)
    toks = [rng.next_u64() % V for _ in range(B * T)]
    tokens = torch.tensor(toks, dtype=torch.long).reshape(B, T)
    targets = torch.full((B, T), -1, dtype=torch.long)
    targets[:, :-1] = tokens[:, 1:]
    targets[0, 2] = -1  # a position without a target inside a sequence
    loss = forward(p, tokens, targets, V, C, L, H, mlp)
    assert loss.dtype == torch.float32
    loss.backward()
    grads = {n: f32(p[n].grad.detach().reshape(-1).tolist()) for n, _ in lay}
    decay = [p[n] for n, s in lay if len(s) == 2]
    no_decay = [p[n] for n, s in lay if len(s) != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.98), eps=1e-8)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        l = forward(p, tokens, targets, V, C, L, H, mlp)
        losses.append(l.item())
        l.backward()
        opt.step()
    after = {n: f32(p[n].detach().reshape(-1).tolist()) for n, _ in lay}
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
    doc = {"generator": "tests/golden/gen_train_gpt_f32.py", "torch": torch.__version__, "dtype": "float32", "cases": {}}
    # the f64 fixture's two cases, and a wider one whose matmuls take the blocked kernel's float path
    for name, c in [case("mlp", 11, 8, 8, 2, 2, 3, True, 5, 7, 1e-2, 3),
                    case("attention_only", 13, 7, 12, 2, 3, 2, False, 9, 11, 1e-2, 3),
                    case("wide_mlp", 16, 12, 24, 1, 3, 4, True, 3, 13, 1e-2, 3)]:
        doc["cases"][name] = c
    with open(os.path.join(HERE, "train_gpt_f32.json"), "w") as f:
        json.dump(doc, f)
        f.write("\n")


if __name__ == "__main__":
    main()
