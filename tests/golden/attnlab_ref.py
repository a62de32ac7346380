"""An independent reference for attnlab's golden fixtures, in numpy.

It re-implements attnlab's deterministic generator (SplitMix64 + Box-Muller, drawn in row-major
order) so that a fixture can be built from the seed alone, and then computes every tensor of a
lesson with plain numpy — sharing no code with the C++ it checks.

Run the generators with Debian's python3 (which has python3-numpy):
    /usr/bin/python3 tests/golden/gen_attention_mha.py
"""
import json
import math
import os

import numpy as np

MASK64 = (1 << 64) - 1
HERE = os.path.dirname(os.path.abspath(__file__))


class Rng:
    """SplitMix64 with a Box-Muller normal sampler that uses both values of each pair."""

    def __init__(self, seed):
        self.state = seed & MASK64
        self.spare = None

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next_u64() >> 11) * 2.0 ** -53

    def normal(self):
        if self.spare is not None:
            v, self.spare = self.spare, None
            return v
        u1 = self.uniform()
        while u1 == 0.0:
            u1 = self.uniform()
        u2 = self.uniform()
        r = math.sqrt(-2.0 * math.log(u1))
        theta = 2.0 * math.pi * u2
        self.spare = r * math.sin(theta)
        return r * math.cos(theta)

    def randn(self, shape, std=1.0):
        n = int(np.prod(shape))
        return np.array([std * self.normal() for _ in range(n)], dtype=np.float64).reshape(shape)

    def init_weight(self, d_in, d_out):
        return self.randn((d_in, d_out), 1.0 / math.sqrt(d_in))


def softmax_rows(scores):
    """Row softmax; -inf entries get weight exactly 0."""
    m = np.max(scores, axis=-1, keepdims=True)
    e = np.where(np.isinf(scores), 0.0, np.exp(scores - m))
    return e / e.sum(axis=-1, keepdims=True)


def causal(scores):
    t = scores.shape[-1]
    mask = np.triu(np.ones((t, t), dtype=bool), k=1)
    out = scores.copy()
    out[..., mask] = -np.inf
    return out


def write_fixture(name, config, tensors):
    """tests/golden/<name>.json: {"config": {...}, "tensors": {name: {"shape", "data"}}}."""
    doc = {
        "generator": "tests/golden/" + os.path.basename(__import__("sys").argv[0]),
        "config": config,
        "tensors": {
            k: {
                "shape": list(np.shape(v)),
                "data": [None if math.isinf(x) else float(x) for x in np.asarray(v, dtype=np.float64).ravel()],
            }
            for k, v in tensors.items()
        },
    }
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(doc, f)
        f.write("\n")
    print("wrote", name + ".json", "with", len(tensors), "tensors")
