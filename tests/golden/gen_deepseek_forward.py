"""A tiny MLA checkpoint in the DeepSeek-V2 layout attnlab's trainer writes, and the golden forward of its weights.

    /usr/bin/python3 tests/golden/gen_deepseek_forward.py

Writes (committed; ctest needs neither Python nor PyTorch):
  tests/fixtures/checkpoints/tiny-mla/   model_type deepseek_v2, F32: 2 layers, 3 heads, qk_nope_head_dim =
                                         v_head_dim 4, qk_rope_head_dim 4, kv_lora_rank 5, hidden_size 10,
                                         dense SwiGLU layers, no query latent (q_lora_rank null), no
                                         kv_a_layernorm (config.json: attnlab_mla), an untied lm_head
  tests/golden/checkpoint_mla.json       the forward of the stored weights in float64 (PyTorch): every
                                         layer's input residual, attention weights and the logits

The forward is written here from the published architecture, as transformers' DeepseekV2Attention
computes it (modeling_deepseek.py): q_proj gives per head [q_nope | q_pe]; kv_a_proj_with_mqa gives
[c_KV | k_pe]; kv_b_proj(c_KV) gives per head [k_nope | value]; q_pe and k_pe are stored with RoPE pairs
interleaved (2i, 2i + 1), which DeepSeek-V2's code reorders to (i, i + d/2) before rotate_half; the key
is [k_nope | k_pe] with k_pe shared by every head; scores / sqrt(nope + rope). Plain torch: transformers
is not used and attnlab's code is not read.
"""
import json
import math
import os

import numpy as np
import torch

from gen_llama_forward import write_safetensors

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "checkpoints")

MLA = dict(architectures=["DeepseekV2ForCausalLM"], model_type="deepseek_v2", vocab_size=23, hidden_size=10,
           intermediate_size=14, num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=3,
           q_lora_rank=None, kv_lora_rank=5, qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4,
           n_routed_experts=None, n_shared_experts=None, first_k_dense_replace=2, moe_intermediate_size=14,
           max_position_embeddings=32, hidden_act="silu", rms_norm_eps=1e-5, rope_theta=10000.0, rope_scaling=None,
           attention_bias=False, mlp_bias=False, tie_word_embeddings=False, torch_dtype="float32",
           attnlab_mla=dict(kv_a_layernorm=False, rope_pairs="consecutive"))
TOKEN_IDS = [2, 17, 5, 2, 17, 9, 0, 22, 5, 2, 17]


def make_weights(c, seed):
    rng = np.random.default_rng(seed)
    D, F, V, L, H = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_hidden_layers"], c["num_attention_heads"]
    nope, rope, dv, C = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"]

    def r(*shape, s=0.3, mean=0.0):
        return (rng.standard_normal(shape) * s + mean).astype(np.float32)

    w = {"model.embed_tokens.weight": r(V, D, s=0.6)}
    for i in range(L):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = r(D, s=0.1, mean=1.0)
        w[p + "self_attn.q_proj.weight"] = r(H * (nope + rope), D, s=0.6)
        w[p + "self_attn.kv_a_proj_with_mqa.weight"] = r(C + rope, D, s=0.6)
        w[p + "self_attn.kv_b_proj.weight"] = r(H * (nope + dv), C, s=0.5)
        w[p + "self_attn.o_proj.weight"] = r(D, H * dv, s=0.3)
        w[p + "post_attention_layernorm.weight"] = r(D, s=0.1, mean=1.0)
        w[p + "mlp.gate_proj.weight"] = r(F, D, s=0.3)
        w[p + "mlp.up_proj.weight"] = r(F, D, s=0.3)
        w[p + "mlp.down_proj.weight"] = r(D, F, s=0.2)
    w["model.norm.weight"] = r(D, s=0.1, mean=1.0)
    w["lm_head.weight"] = r(V, D, s=0.4)
    return w


def rms_norm(x, g, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * g


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def deinterleave(x):
    """(…, d) with pairs (2i, 2i + 1) -> (…, d) with pairs (i, i + d/2): DeepSeek-V2's reordering before rotate_half."""
    return torch.cat([x[..., 0::2], x[..., 1::2]], dim=-1)


def forward(c, w, ids):
    D, H, L = c["hidden_size"], c["num_attention_heads"], c["num_hidden_layers"]
    nope, rope, dv, C = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"]
    eps = c["rms_norm_eps"]
    t = {k: torch.tensor(v.astype(np.float64)) for k, v in w.items()}
    T = len(ids)
    inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, rope, 2, dtype=torch.float64) / rope))
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)  # (T, rope)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    x = t["model.embed_tokens.weight"][ids]
    residuals, attn = [], []
    for i in range(L):
        p = f"model.layers.{i}."
        residuals.append(x.clone())
        a = rms_norm(x, t[p + "input_layernorm.weight"], eps)
        q = (a @ t[p + "self_attn.q_proj.weight"].T).reshape(T, H, nope + rope).transpose(0, 1)  # (H, T, nope+rope)
        q_nope, q_pe = q[..., :nope], q[..., nope:]
        ckv = a @ t[p + "self_attn.kv_a_proj_with_mqa.weight"].T  # (T, C + rope)
        c_kv, k_pe = ckv[:, :C], ckv[:, C:]
        kv = (c_kv @ t[p + "self_attn.kv_b_proj.weight"].T).reshape(T, H, nope + dv).transpose(0, 1)
        k_nope, value = kv[..., :nope], kv[..., nope:]
        q_pe, k_pe = deinterleave(q_pe), deinterleave(k_pe)
        q_pe = q_pe * cos + rotate_half(q_pe) * sin
        k_pe = k_pe * cos + rotate_half(k_pe) * sin  # (T, rope): one key for every head
        query = torch.cat([q_nope, q_pe], -1)
        key = torch.cat([k_nope, k_pe.expand(H, T, rope)], -1)
        s = (query @ key.transpose(1, 2)) / math.sqrt(nope + rope)
        wts = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
        attn.append(wts)
        o = (wts @ value).transpose(0, 1).reshape(T, H * dv)
        x = x + o @ t[p + "self_attn.o_proj.weight"].T
        m = rms_norm(x, t[p + "post_attention_layernorm.weight"], eps)
        gate = m @ t[p + "mlp.gate_proj.weight"].T
        hdn = gate * torch.sigmoid(gate) * (m @ t[p + "mlp.up_proj.weight"].T)
        x = x + hdn @ t[p + "mlp.down_proj.weight"].T
    residuals.append(x.clone())
    logits = rms_norm(x, t["model.norm.weight"], eps) @ t["lm_head.weight"].T
    return residuals, attn, logits


def main():
    folder = os.path.join(FIX, "tiny-mla")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        f.write(json.dumps(MLA, indent=2) + "\n")
    w = make_weights(MLA, 7)
    write_safetensors(os.path.join(folder, "model.safetensors"), list(w.items()), "F32")
    residuals, attn, logits = forward(MLA, w, TOKEN_IDS)
    out = {"tiny-mla": {"token_ids": TOKEN_IDS, "residuals": [r.tolist() for r in residuals],
                        "attention": [a.tolist() for a in attn], "logits": logits.tolist()}}
    with open(os.path.join(HERE, "checkpoint_mla.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
