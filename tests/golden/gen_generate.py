"""Greedy generation on the tiny checkpoints, without any KV cache: the golden for `attnlab generate`.

    /usr/bin/python3 tests/golden/gen_generate.py

Writes tests/golden/generate.json (committed). For each checkpoint (tiny-gpt2 from gen_checkpoint.py,
tiny-llama and tiny-qwen2 from gen_llama_forward.py; their weights are rebuilt here from the same
seeds, the fixtures are not rewritten), a prompt and N steps: at every step the whole sequence so
far goes through the independent PyTorch float64 forward of those scripts, the last row's logits
are kept and the largest one (lowest id on a tie) is appended. attnlab's cached decoding must give
the same tokens and the same logits.
"""
import json
import os

import torch

import gen_checkpoint as g2
import gen_llama_forward as gl

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 8


def greedy(forward_logits, prompt, n):
    ids, rows = list(prompt), []
    for _ in range(n):
        last = forward_logits(ids)[-1]  # (V)
        best = int(torch.argmax(last))  # torch.argmax returns the first maximum
        rows.append(last.tolist())
        ids.append(best)
    return ids, rows


def main():
    out = {"source": "tests/golden/gen_generate.py (greedy, full PyTorch float64 forward at every step, no cache)"}
    w = g2.make_weights()
    prompt = g2.TOKEN_IDS[:4]
    ids, rows = greedy(lambda t: g2.forward(w, t)[2], prompt, STEPS)
    out["tiny-gpt2"] = dict(prompt=prompt, ids=ids, logits=rows)
    for name, c, seed, dtype in (("tiny-llama", gl.LLAMA, 2024, "F32"), ("tiny-qwen2", gl.QWEN2, 7, "BF16")):
        wl = gl.make_weights(c, seed, dtype == "BF16")
        prompt = gl.TOKEN_IDS[name][:5]
        ids, rows = greedy(lambda t: gl.forward(c, wl, t)[2], prompt, STEPS)
        out[name] = dict(prompt=prompt, ids=ids, logits=rows)
    with open(os.path.join(HERE, "generate.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
