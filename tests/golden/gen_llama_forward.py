"""Tiny Llama-family checkpoints in the Hugging Face layout, and the golden forward of their weights.

    /usr/bin/python3 tests/golden/gen_llama_forward.py

Writes (committed; ctest needs neither Python nor PyTorch):
  tests/fixtures/checkpoints/tiny-llama/   model_type llama, F32: 3 layers, 4 query heads sharing 2 KV
                                           heads (GQA), head_dim 4 with hidden_size 12 (so H·Dh = 16
                                           differs from D), Llama 3.1's "llama3" rope_scaling, an untied
                                           lm_head
  tests/fixtures/checkpoints/tiny-qwen2/   model_type qwen2, BF16: 2 layers, 6 query heads sharing 2 KV
                                           heads, q/k/v biases, rope_theta 1e6, head tied to embed_tokens
  tests/golden/checkpoint_llama.json       for each: the forward of the stored weights in float64
                                           (PyTorch): every layer's input residual, attention weights,
                                           logits, and the RoPE frequencies after scaling

The forward below is written here from the published architecture (RMSNorm, rotate-half RoPE,
GQA by repeating KV heads, SwiGLU, causal attention), in plain torch: transformers is not used
and attnlab's code is not read. The safetensors files are written by hand, as in gen_checkpoint.py.
"""
import json
import math
import os
import struct

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "checkpoints")

LLAMA = dict(architectures=["LlamaForCausalLM"], model_type="llama", vocab_size=48, hidden_size=12,
             intermediate_size=20, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=4,
             hidden_act="silu", max_position_embeddings=64, rms_norm_eps=1e-5, rope_theta=10000.0,
             rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                               original_max_position_embeddings=16),
             attention_bias=False, mlp_bias=False, tie_word_embeddings=False, torch_dtype="float32")
QWEN2 = dict(architectures=["Qwen2ForCausalLM"], model_type="qwen2", vocab_size=40, hidden_size=24,
             intermediate_size=32, num_hidden_layers=2, num_attention_heads=6, num_key_value_heads=2,
             hidden_act="silu", max_position_embeddings=128, rms_norm_eps=1e-6, rope_theta=1000000.0,
             rope_scaling=None, sliding_window=None, use_sliding_window=False, tie_word_embeddings=True,
             torch_dtype="bfloat16")
TOKEN_IDS = {"tiny-llama": [1, 7, 30, 7, 12, 47, 0, 30, 7, 12, 5], "tiny-qwen2": [3, 39, 11, 3, 39, 20, 8, 0, 15]}


def bf16_round(a):
    """float32 -> the nearest bfloat16 (round half to even), as float32 values and as uint16 bits."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return (bits.astype(np.uint32) << 16).view(np.float32).reshape(a.shape), bits


def write_safetensors(path, tensors, dtype):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, a in tensors:
        if dtype == "F32":
            raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
        else:  # BF16: a already holds bfloat16 values
            raw = bf16_round(a)[1].astype("<u2").tobytes()
        header[name] = dict(dtype=dtype, shape=list(a.shape), data_offsets=[offset, offset + len(raw)])
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def make_weights(c, seed, bf16):
    rng = np.random.default_rng(seed)
    D, F, V, L = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_hidden_layers"]
    H, G = c["num_attention_heads"], c["num_key_value_heads"]
    Dh = c.get("head_dim", D // H)
    bias = c["model_type"] == "qwen2" or c.get("attention_bias", False)

    def r(*shape, s=0.3, mean=0.0):
        a = (rng.standard_normal(shape) * s + mean).astype(np.float32)
        return bf16_round(a)[0] if bf16 else a

    w = {"model.embed_tokens.weight": r(V, D, s=0.6)}
    for i in range(L):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = r(D, s=0.1, mean=1.0)
        w[p + "self_attn.q_proj.weight"] = r(H * Dh, D, s=0.5)
        w[p + "self_attn.k_proj.weight"] = r(G * Dh, D, s=0.5)
        w[p + "self_attn.v_proj.weight"] = r(G * Dh, D, s=0.4)
        if bias:
            w[p + "self_attn.q_proj.bias"] = r(H * Dh, s=0.2)
            w[p + "self_attn.k_proj.bias"] = r(G * Dh, s=0.2)
            w[p + "self_attn.v_proj.bias"] = r(G * Dh, s=0.2)
        w[p + "self_attn.o_proj.weight"] = r(D, H * Dh, s=0.3)
        w[p + "post_attention_layernorm.weight"] = r(D, s=0.1, mean=1.0)
        w[p + "mlp.gate_proj.weight"] = r(F, D, s=0.3)
        w[p + "mlp.up_proj.weight"] = r(F, D, s=0.3)
        w[p + "mlp.down_proj.weight"] = r(D, F, s=0.2)
    w["model.norm.weight"] = r(D, s=0.1, mean=1.0)
    if not c["tie_word_embeddings"]:
        w["lm_head.weight"] = r(V, D, s=0.4)
    return w


def inv_freq_of(c):
    D, H = c["hidden_size"], c["num_attention_heads"]
    Dh = c.get("head_dim", D // H)
    i = torch.arange(0, Dh, 2, dtype=torch.float64)
    inv = 1.0 / (c["rope_theta"] ** (i / Dh))
    sc = c.get("rope_scaling")
    if sc and sc["rope_type"] == "llama3":
        factor, lo, hi, old = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"], sc["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > old / lo, inv / factor, inv)
        s = (old / wavelen - lo) / (hi - lo)
        smooth = (1 - s) * scaled / factor + s * scaled
        medium = (wavelen >= old / hi) & (wavelen <= old / lo)
        inv = torch.where(medium, smooth, scaled)
    return inv


def rms_norm(x, g, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * g


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def forward(c, w, ids):
    D, H, G, L = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["num_hidden_layers"]
    Dh = c.get("head_dim", D // H)
    eps = c["rms_norm_eps"]
    t = {k: torch.tensor(v.astype(np.float64)) for k, v in w.items()}
    T = len(ids)
    inv = inv_freq_of(c)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]  # (T, Dh/2)
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)  # (T, Dh)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    x = t["model.embed_tokens.weight"][ids]
    residuals, attn = [], []

    def lin(a, name):
        y = a @ t[name + ".weight"].T
        return y + t[name + ".bias"] if name + ".bias" in t else y

    for i in range(L):
        p = f"model.layers.{i}."
        residuals.append(x.clone())
        a = rms_norm(x, t[p + "input_layernorm.weight"], eps)
        q = lin(a, p + "self_attn.q_proj").reshape(T, H, Dh).transpose(0, 1)  # (H, T, Dh)
        k = lin(a, p + "self_attn.k_proj").reshape(T, G, Dh).transpose(0, 1)  # (G, T, Dh)
        v = lin(a, p + "self_attn.v_proj").reshape(T, G, Dh).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // G, dim=0)  # query head j reads KV head j // (H/G)
        v = v.repeat_interleave(H // G, dim=0)
        s = (q @ k.transpose(1, 2)) / math.sqrt(Dh)
        wts = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
        attn.append(wts)
        o = (wts @ v).transpose(0, 1).reshape(T, H * Dh)
        x = x + lin(o, p + "self_attn.o_proj")
        m = rms_norm(x, t[p + "post_attention_layernorm.weight"], eps)
        gate = lin(m, p + "mlp.gate_proj")
        hdn = gate * torch.sigmoid(gate) * lin(m, p + "mlp.up_proj")
        x = x + lin(hdn, p + "mlp.down_proj")
    residuals.append(x.clone())
    head = t["lm_head.weight"] if "lm_head.weight" in t else t["model.embed_tokens.weight"]
    logits = rms_norm(x, t["model.norm.weight"], eps) @ head.T
    return residuals, attn, logits, inv


def write_llama32_shaped(folder, layers=2):
    """A random BF16 checkpoint of Llama 3.2 1B's shapes (d 2048, 32 query heads sharing 8 KV heads, head_dim
    64, F 8192, vocab 128256, tied head, llama3 rope_scaling) cut to `layers` layers, for timing and memory only:
    /usr/bin/python3 tests/golden/gen_llama_forward.py --llama32-shaped /tmp/llama32-random"""
    c = dict(LLAMA, vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=layers,
             num_attention_heads=32, num_key_value_heads=8, head_dim=64, max_position_embeddings=131072,
             rope_theta=500000.0, rms_norm_eps=1e-5, tie_word_embeddings=True, torch_dtype="bfloat16",
             rope_scaling=dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                               original_max_position_embeddings=8192))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        f.write(json.dumps(c, indent=2) + "\n")
    rng = np.random.default_rng(0)
    D, F, V, H, G, Dh = 2048, 8192, 128256, 32, 8, 64
    shapes = [("model.embed_tokens.weight", (V, D))]
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes += [(p + "input_layernorm.weight", (D,)), (p + "self_attn.q_proj.weight", (H * Dh, D)),
                   (p + "self_attn.k_proj.weight", (G * Dh, D)), (p + "self_attn.v_proj.weight", (G * Dh, D)),
                   (p + "self_attn.o_proj.weight", (D, H * Dh)), (p + "post_attention_layernorm.weight", (D,)),
                   (p + "mlp.gate_proj.weight", (F, D)), (p + "mlp.up_proj.weight", (F, D)), (p + "mlp.down_proj.weight", (D, F))]
    shapes.append(("model.norm.weight", (D,)))
    tensors = [(n, rng.standard_normal(s, dtype=np.float32) * 0.02 + (1 if len(s) == 1 else 0)) for n, s in shapes]
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors, "BF16")


def main():
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--llama32-shaped":
        write_llama32_shaped(sys.argv[2])
        return
    golden = {"source": "tests/golden/gen_llama_forward.py (PyTorch float64 forward of the stored weights)"}
    for name, c, seed, dtype in (("tiny-llama", LLAMA, 2024, "F32"), ("tiny-qwen2", QWEN2, 7, "BF16")):
        w = make_weights(c, seed, dtype == "BF16")
        d = os.path.join(FIX, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            f.write(json.dumps(c, indent=2) + "\n")
        write_safetensors(os.path.join(d, "model.safetensors"), list(w.items()), dtype)
        residuals, attn, logits, inv = forward(c, w, TOKEN_IDS[name])
        golden[name] = dict(token_ids=TOKEN_IDS[name], inv_freq=inv.tolist(),
                            residuals=[r.tolist() for r in residuals],  # L+1 of (T, D)
                            attention=[a.tolist() for a in attn],       # L of (H, T, T)
                            logits=logits.tolist())                     # (T, V)
    with open(os.path.join(HERE, "checkpoint_llama.json"), "w") as f:
        json.dump(golden, f)
        f.write("\n")


if __name__ == "__main__":
    main()
