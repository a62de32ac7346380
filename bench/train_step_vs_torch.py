#!/usr/bin/env python3
"""Driver and PyTorch workload for bench/train_step_vs_torch.sh (run that; it documents the comparison).

  train_step_vs_torch.py drive --bench BIN --openblas DIR [--steps N] [--warmup W] [--rounds R] [--vocabs "74 2000"]
  train_step_vs_torch.py torch-step L H C T B V DTYPE THREADS STEPS WARMUP
      one PyTorch process: WARMUP + STEPS training steps, prints every timed step's ms
"""
import argparse
import math
import os
import statistics
import subprocess
import sys
import time

# The shipped text models' shape (data/trained/text-en; text-zh differs only in its vocabulary).
LAYERS, HEADS, D_MODEL, SEQ_LEN, BATCH = 4, 4, 128, 128, 16


def blas_in_use():
    """The BLAS shared libraries this process has mapped (torch loads them on import)."""
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "blas" in path or "lapack" in path:
                libs.add(os.path.realpath(path))
    return ",".join(sorted(libs)) or "none"


def torch_step(L, H, C, T, B, V, dtype, threads, steps, warmup):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(42)
    dt = {"f64": torch.float64, "f32": torch.float32}[dtype]

    class Block(nn.Module):
        """GPT-2's pre-LN block: x + attn(ln_1(x)), then x + mlp(ln_2(x)); Linear layers with biases."""

        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(C, eps=1e-5), nn.LayerNorm(C, eps=1e-5)
            self.c_attn, self.attn_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
            self.c_fc, self.mlp_proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)
            self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)), persistent=False)

        def forward(self, x):
            b, t, c = x.shape
            hs = c // H
            q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
            q = q.view(b, t, H, hs).transpose(1, 2)
            k = k.view(b, t, H, hs).transpose(1, 2)
            v = v.view(b, t, H, hs).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
            att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            x = x + self.attn_proj(y)
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
            self.h = nn.ModuleList(Block() for _ in range(L))
            self.ln_f = nn.LayerNorm(C, eps=1e-5)
            # GPT-2's initialisation: N(0, 0.02²), residual projections N(0, (0.02/√(2L))²), biases 0
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    nn.init.zeros_(p)
                elif p.dim() == 2:
                    std = 0.02 / math.sqrt(2 * L) if name.endswith("proj.weight") else 0.02
                    nn.init.normal_(p, 0.0, std)

        def forward(self, idx, targets):
            pos = torch.arange(idx.shape[1])
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            logits = F.linear(self.ln_f(x), self.wte.weight)  # tied unembedding, no bias
            return F.cross_entropy(logits.view(-1, V), targets.view(-1))

    model = Gpt().to(dt)
    decay = [p for p in model.parameters() if p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.98), eps=1e-8)
    g = torch.Generator().manual_seed(7)
    seq = torch.randint(0, V, (B, T + 1), generator=g)
    idx, targets = seq[:, :-1].contiguous(), seq[:, 1:].contiguous()
    ms, cpu_ms, losses = [], [], []
    for s in range(warmup + steps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = model(idx, targets)
        loss.backward()
        opt.step()
        w = (time.perf_counter() - t0) * 1e3
        c = (time.process_time() - c0) * 1e3  # CPU time of the process, all threads
        losses.append(loss.item())  # after the clock: .item() would not change the work, only the timing
        if s >= warmup:
            ms.append(w)
            cpu_ms.append(c)
    print("steps_ms " + " ".join(f"{w:.3f}" for w in ms))
    print("steps_cpu_ms " + " ".join(f"{c:.3f}" for c in cpu_ms))
    print(f"torch {torch.__version__} {dtype} threads {torch.get_num_threads()} "
          f"params {sum(p.numel() for p in model.parameters())} loss {losses[0]:.4f} -> {losses[-1]:.4f} "
          f"blas {blas_in_use()}")


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def busy_share(seconds=1.0):
    """The share of all CPUs busy over `seconds` (from /proc/stat), before we start anything."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # total, idle + iowait
    t0, i0 = sample()
    time.sleep(seconds)
    t1, i1 = sample()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)


def training_jobs():
    """Running processes whose name starts with attnlab-train (a long training job): pid and command line."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            if not comm.startswith("attnlab-train"):
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            found.append(f"{pid} {cmd}")
        except OSError:
            pass
    return found


def run(cmd, env):
    full_env = dict(os.environ)
    full_env.update(env)
    p = subprocess.run(cmd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    lines = p.stdout.splitlines()

    def series(key):
        return [float(x) for x in next(l for l in lines if l.split()[0] == key).split()[1:]]
    info = next(l for l in lines if not l.startswith("steps_"))
    return series("steps_ms"), series("steps_cpu_ms"), info


def drive(a):
    me = [sys.executable, os.path.abspath(__file__)]
    vocabs = [int(v) for v in a.vocabs.split()]
    threads = (1, 2)
    shape = [str(x) for x in (LAYERS, HEADS, D_MODEL, SEQ_LEN, BATCH)]
    print(f"one training step (forward + backward + AdamW): GPT-2 decoder, {LAYERS} layers x {HEADS} heads, "
          f"d_model {D_MODEL}, seq_len {SEQ_LEN}, batch {BATCH}, vocab {' and '.join(map(str, vocabs))}")
    print(f"{a.steps} timed steps after {a.warmup} warm-up, each contender a fresh process, {a.rounds} rounds interleaved")
    print(f"machine: {os.cpu_count()} CPUs; load average {load()}; CPUs busy before starting: {100 * busy_share():.0f}%")
    jobs = training_jobs()
    for j in jobs:
        print(f"CONTENDED: a training job is running beside this benchmark: {j}")
    if not jobs:
        print("no attnlab-train process running")

    def torch_env(t, passive=False):
        env = {"LD_LIBRARY_PATH": a.openblas, "OPENBLAS_NUM_THREADS": str(t), "OMP_NUM_THREADS": str(t),
               "MKL_NUM_THREADS": str(t)}
        if passive:  # libgomp's idle threads sleep instead of spinning: far faster when other jobs hold the CPUs
            env["OMP_WAIT_POLICY"] = "PASSIVE"
        return env

    contenders = []  # (V, threads, name, command, env)
    for v in vocabs:
        for t in threads:
            for dt in ("f64", "f32"):
                contenders.append((v, t, f"attnlab {dt}", [a.bench, "step"] + shape + [str(v), str(t), str(a.steps), str(a.warmup), dt], {}))
            for dt in ("f64", "f32"):
                cmd = me + ["torch-step"] + shape + [str(v), dt, str(t), str(a.steps), str(a.warmup)]
                contenders.append((v, t, f"PyTorch {dt}", cmd, torch_env(t)))
                if t > 1 and a.passive:
                    contenders.append((v, t, f"PyTorch {dt} P", cmd, torch_env(t, True)))
    times = {c[:3]: [] for c in contenders}
    cpu = {c[:3]: [] for c in contenders}
    infos = {}
    loads = [load()]
    for r in range(a.rounds):
        for v, t, name, cmd, env in contenders:
            ms, cpu_ms, info = run(cmd, env)
            times[(v, t, name)].extend(ms)
            cpu[(v, t, name)].extend(cpu_ms)
            infos[(v, t, name)] = info
            print(f"  round {r + 1}  V {v:4d}  {t} thread{'s' if t > 1 else ' '}  {name:14s} median {statistics.median(ms):8.1f} ms/step"
                  f" wall {statistics.median(cpu_ms):8.1f} CPU   (load {load()})", flush=True)
        loads.append(load())
    print(f"load average (1, 5, 15 min) at the start and after each round: {' | '.join(loads)}")
    jobs_after = training_jobs()
    if jobs or jobs_after:
        print(f"CONTENDED: attnlab-train was running {'throughout' if jobs and jobs_after else 'during part of the run'}: "
              "every figure below shares the CPUs with it")
    for key, info in infos.items():
        if not key[2].startswith("attnlab") and key[1] == 1 and key[0] == vocabs[0]:
            print(f"  {info.split(' blas ')[0]}; BLAS mapped: {info.split(' blas ')[1]}")
    print()
    print(f"{'vocab':>5} {'threads':>7}  {'contender':14s} {'wall ms/step: median':>20} {'range':>17}  {'CPU ms/step':>11}"
          f"  attnlab (same dtype) / this: wall  CPU")
    for v in vocabs:
        for t in threads:
            for name in ("attnlab f64", "PyTorch f64", "PyTorch f64 P", "attnlab f32", "PyTorch f32", "PyTorch f32 P"):
                if (v, t, name) not in times:
                    continue
                xs, cs = times[(v, t, name)], cpu[(v, t, name)]
                med, med_cpu = statistics.median(xs), statistics.median(cs)
                dt = name.split()[1]  # f64 or f32: each PyTorch row is compared with attnlab in its own dtype
                ours = statistics.median(times[(v, t, "attnlab " + dt)])
                ours_cpu = statistics.median(cpu[(v, t, "attnlab " + dt)])
                ratio = "" if name.startswith("attnlab") else f"{ours / med:30.2f}x {ours_cpu / med_cpu:4.2f}x"
                print(f"{v:5d} {t:7d}  {name:14s} {med:20.1f} {min(xs):8.1f} - {max(xs):6.1f}  {med_cpu:11.1f}  {ratio}")
    print("(medians and range over all timed steps of all rounds; CPU = the process's CPU time, all threads;"
          " a ratio > 1 means attnlab is slower)")
    if a.passive:
        print("P: PyTorch with OMP_WAIT_POLICY=PASSIVE (the others use libgomp's default, which spins while waiting)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "torch-step":
        L, H, C, T, B, V = (int(x) for x in sys.argv[2:8])
        torch_step(L, H, C, T, B, V, sys.argv[8], int(sys.argv[9]), int(sys.argv[10]), int(sys.argv[11]))
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["drive"])
    p.add_argument("--bench", required=True)
    p.add_argument("--openblas", required=True)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--vocabs", default="74 2000")
    p.add_argument("--passive", type=int, default=1, help="also time PyTorch at 2 threads with OMP_WAIT_POLICY=PASSIVE")
    drive(p.parse_args())


if __name__ == "__main__":
    main()
