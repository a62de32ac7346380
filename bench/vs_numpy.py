#!/usr/bin/env python3
"""Driver and numpy workloads for bench/vs_numpy.sh (run that; it documents the comparison).

  vs_numpy.py drive --openblas DIR      run every comparison, interleaved, and print a report
  vs_numpy.py np-matmul M K N REPS      numpy float64 matmul: prints best seconds and GFLOP/s
  vs_numpy.py np-mha D H T              numpy doing the mha lesson's math (RNG included)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ATTNLAB = os.path.join(ROOT, "build", "attnlab")
BENCH = os.path.join(ROOT, "build", "attnlab_bench")


def blas_in_use():
    """The BLAS shared library this process has mapped (numpy loads it on import)."""
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "blas" in path or "lapack" in path:
                libs.add(os.path.realpath(path))
    return ", ".join(sorted(libs)) or "none found"


def np_matmul(m, k, n, reps):
    import numpy as np
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    a @ b  # warm-up
    best, best_cpu = float("inf"), float("inf")
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        a @ b
        best_cpu = min(best_cpu, time.process_time() - c0)
        best = min(best, time.perf_counter() - t0)
    flops = 2.0 * m * n * k
    print(f"seconds {best:.6f} gflops {flops / best / 1e9:.3f} cpu_gflops {flops / best_cpu / 1e9:.3f} blas {blas_in_use()}")


def np_mha(d, h, t):
    """The lesson's math in numpy. Prints the whole process's seconds so far (interpreter start and
    numpy's import excluded only by the driver's own clock) and, timed inside the process, the wall
    and CPU seconds of the RNG and the math alone: the in-process figure."""
    import numpy as np
    t_start, c_start = time.perf_counter(), time.process_time()
    dk = d // h
    rng = np.random.default_rng(42)
    x = rng.standard_normal((t, d))
    w_q, w_k, w_v, w_o = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(4))
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    direct = [x @ w_q[:, i * dk:(i + 1) * dk] for i in range(h)]  # the per-head check
    qh = np.ascontiguousarray(q.reshape(t, h, dk).transpose(1, 0, 2))
    kh = np.ascontiguousarray(k.reshape(t, h, dk).transpose(1, 0, 2))
    vh = np.ascontiguousarray(v.reshape(t, h, dk).transpose(1, 0, 2))
    scores = (qh @ kh.transpose(0, 2, 1)) * (1.0 / np.sqrt(dk))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    heads = weights @ vh
    concat = np.ascontiguousarray(heads.transpose(1, 0, 2)).reshape(t, d)
    out = concat @ w_o
    contributions = np.stack([heads[i] @ w_o[i * dk:(i + 1) * dk] for i in range(h)])
    head_sum = contributions.sum(axis=0)
    check = float(np.abs(head_sum - out).max()) + float(np.abs(direct[0] - qh[0]).max())
    print(f"seconds {time.perf_counter() - t_start:.6f} cpu {time.process_time() - c_start:.6f} "
          f"check {check:.3g} blas {blas_in_use()}")


def run(cmd, env=None, stdout=subprocess.DEVNULL):
    """Runs cmd; returns (wall s, cpu s = user + sys of the child, peak RSS MiB, stdout text)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=full_env, stdout=subprocess.PIPE if stdout is None else stdout)
    out = proc.stdout.read().decode() if stdout is None else ""
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, out


def run_sys(cmd, env=None):
    """Runs cmd; returns (wall s, CPU s, system s) of the child."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=full_env, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}")
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime, ru.ru_stime


def sys_too(r):
    return {"w": r[0], "c": r[1], "s": r[2]}


def stats(xs):
    return min(xs), statistics.median(xs), max(xs)


def fmt3(xs, unit="s", digits=3):
    lo, med, hi = stats(xs)
    return f"min {lo:.{digits}f} / median {med:.{digits}f} / max {hi:.{digits}f} {unit}"


def interleaved(contenders, reps):
    """contenders: {name: zero-arg function returning a dict of measurements}; runs them in turn,
    then prints the 1-minute load average before and after the runs (every section's figures carry it)."""
    before = os.getloadavg()[0]
    results = {name: [] for name in contenders}
    for _ in range(reps):
        for name, f in contenders.items():
            results[name].append(f())
    cpus = os.cpu_count()
    print(f"  load average {before:.2f} before, {os.getloadavg()[0]:.2f} after "
          f"({cpus} CPUs: a load near {cpus} means the runs were contended)")
    return results


def thread_ratio(res, indent):
    """attnlab at every core against --threads 1 (contenders "attnlab", "attnlab 1 thread"): the medians' wall ratio."""
    ratio = statistics.median(column(res["attnlab"], "w")) / statistics.median(column(res["attnlab 1 thread"], "w"))
    print(f"{indent}attnlab {os.cpu_count()} threads / 1 thread: wall {ratio:.2f} (medians; the issue's target: at most 0.6)")


def column(rows, key):
    return [r[key] for r in rows]


def drive(openblas):
    reps = int(os.environ.get("REPS", "5"))
    base = os.environ.get("ATTNLAB_BASE")
    base_bench = os.environ.get("ATTNLAB_BASE_BENCH")  # an older build's attnlab_bench, for (a)
    only = os.environ.get("ONLY", "abcde")  # the sections to run
    np_env = {"LD_LIBRARY_PATH": openblas}
    me = [sys.executable, os.path.abspath(__file__)]
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; runs per contender: {reps}")
    balloon = "/sys/bus/virtio/drivers/virtio_balloon"
    if os.path.isdir(balloon) and any(e.startswith("virtio") for e in os.listdir(balloon)):
        print("memory: a virtio balloon is bound (a VM that may take freed memory back: a run that starts after a pause "
              "pays the host's first touch of its pages as system time; see 'back to back' in (b))")
    _, _, _, blas = run(me + ["np-matmul", "8", "8", "8", "1"], np_env, stdout=None)
    print(f"numpy BLAS: {blas.split('blas ', 1)[1].strip()}")

    def parse(out, key):
        words = out.split()
        return float(words[words.index(key) + 1])

    # (a) the kernel alone
    if "a" in only:
        section_a(reps, base_bench, np_env, me, parse)
    if "b" in only:
        section_b(reps, base, np_env, me, parse)
    if "c" in only:
        section_c(reps, base)
    if "d" in only:
        section_d(reps, base)
    if "e" in only:
        section_e()


def section_a(reps, base_bench, np_env, me, parse):
    print("\n(a) matmul (1024, 768) @ (768, 768), float64, GFLOP/s (best of 5 products per process)")
    contenders = {}
    for t in (1, 2):
        def ours(binary, t=t):
            out = run([binary, "1024", "768", "768", str(t), "5"], stdout=None)[3]
            return {"g": float(out.split("(")[1].split()[0]), "cpu": parse(out, "cpu_gflops") if "cpu_gflops" in out else float("nan")}
        contenders[f"attnlab {t} thread"] = (lambda t=t: ours(BENCH, t))
        contenders[f"OpenBLAS {t} thread"] = (lambda t=t: (lambda out: {"g": parse(out, "gflops"), "cpu": parse(out, "cpu_gflops")})(
            run(me + ["np-matmul", "1024", "768", "768", "5"], dict(np_env, OPENBLAS_NUM_THREADS=str(t)), stdout=None)[3]))
        if base_bench:
            contenders[f"base {t} thread"] = (lambda t=t: ours(base_bench, t))
    res = interleaved(contenders, reps)
    for name, rows in res.items():
        print(f"  {name:20s} {fmt3(column(rows, 'g'), 'GFLOP/s', 1)}")
    print("  one thread in CPU time (the best product's rate while the core was the process's; base builds without")
    print("  cpu_gflops show nan):")
    for name in [n for n in res if n.endswith(" 1 thread")]:
        print(f"  {name:20s} {fmt3(column(res[name], 'cpu'), 'GFLOP/s', 1)}")
    a1, o1 = statistics.median(column(res["attnlab 1 thread"], "cpu")), statistics.median(column(res["OpenBLAS 1 thread"], "cpu"))
    print(f"  1 thread, CPU time: attnlab / OpenBLAS = {a1 / o1:.2f} (medians)")
    for t in (1, 2):
        a, o = statistics.median(column(res[f"attnlab {t} thread"], "g")), statistics.median(column(res[f"OpenBLAS {t} thread"], "g"))
        print(f"  {t} thread: attnlab / OpenBLAS = {a / o:.2f} (medians)")
        if base_bench:
            print(f"  {t} thread: attnlab / base = {a / statistics.median(column(res[f'base {t} thread'], 'g')):.2f} (medians)")
    print(f"  load average after: {os.getloadavg()[0]:.2f}")


def section_b(reps, base, np_env, me, parse):
    # (b) a whole lesson at real size, measured two ways
    print("\n(b) mha d_model 768, 12 heads, seq_len 1024")
    mha = ["lesson", "mha", "--d-model", "768", "--heads", "12", "--seq-len", "1024"]
    contenders = {"attnlab": lambda: dict(zip("wcr", run([ATTNLAB] + mha)[:3])),
                  "attnlab 1 thread": lambda: sys_too(run_sys([ATTNLAB] + mha + ["--threads", "1"]))}
    # The same run right after another one: on a VM whose balloon takes freed memory back (virtio
    # free page reporting), a run after a pause pays the host's first touch of every page it
    # writes, in its system time; back to back, the pages the first run freed are still the guest's.
    def back_to_back():
        run_sys([ATTNLAB] + mha + ["--threads", "1"])
        return sys_too(run_sys([ATTNLAB] + mha + ["--threads", "1"]))
    contenders["attnlab 1 thread, back to back"] = back_to_back
    if base:
        contenders["attnlab (base)"] = lambda: dict(zip("wcr", run([base] + mha)[:3]))
        contenders["attnlab (base) 1 thread"] = lambda: sys_too(run_sys([base] + mha + ["--threads", "1"]))
    contenders["numpy+OpenBLAS"] = lambda: dict(zip("wcr", run(me + ["np-mha", "768", "12", "1024"], dict(np_env, OPENBLAS_NUM_THREADS="2"))[:3]))

    def in_process():
        out = run(me + ["np-mha", "768", "12", "1024"], dict(np_env, OPENBLAS_NUM_THREADS="1"), stdout=None)[3]
        return {"w": parse(out, "seconds"), "c": parse(out, "cpu")}
    contenders["numpy in-process 1 thread"] = in_process
    res = interleaved(contenders, reps)
    print("  whole process (interpreter start, numpy's import and OpenBLAS's two spinning threads included):")
    for name in [n for n in res if "1 thread" not in n]:
        rows = res[name]
        print(f"    {name:16s} wall {fmt3(column(rows, 'w'))}; CPU {fmt3(column(rows, 'c'))}; peak RSS {statistics.median(column(rows, 'r')):.0f} MiB")
    for name in [n for n in res if "1 thread" not in n and n != "numpy+OpenBLAS"]:
        print(f"    {name} / numpy: wall {statistics.median(column(res[name], 'w')) / statistics.median(column(res['numpy+OpenBLAS'], 'w')):.2f}, "
              f"CPU {statistics.median(column(res[name], 'c')) / statistics.median(column(res['numpy+OpenBLAS'], 'c')):.2f} (medians)")
    print("  in-process, one thread each (numpy: RNG + math timed inside Python; attnlab: its whole run):")
    for name in [n for n in res if "1 thread" in n]:
        rows = res[name]
        extra = f"; system {fmt3(column(rows, 's'))} ({100 * statistics.median(column(rows, 's')) / statistics.median(column(rows, 'c')):.0f}% of CPU)" if "s" in rows[0] else ""
        print(f"    {name:26s} CPU {fmt3(column(rows, 'c'))}{extra}")
    # attnlab's own parallel speed-up: its default (every core) against --threads 1, wall clock
    print(f"    attnlab wall: {os.cpu_count()} threads {fmt3(column(res['attnlab'], 'w'))}; 1 thread {fmt3(column(res['attnlab 1 thread'], 'w'))}")
    thread_ratio(res, "    ")
    np_cpu = statistics.median(column(res["numpy in-process 1 thread"], "c"))
    for name in [n for n in res if "1 thread" in n and n.startswith("attnlab")]:
        print(f"    {name} / numpy in-process: CPU {statistics.median(column(res[name], 'c')) / np_cpu:.2f} (medians; the issue's target: at most 1.2)")

    print(f"  load average after: {os.getloadavg()[0]:.2f}")


def section_c(reps, base):
    # (c) the JSON trace
    print("\n(c) mha 768/12/512: --json FILE vs no JSON")
    small = ["lesson", "mha", "--d-model", "768", "--heads", "12", "--seq-len", "512"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        bins = {"attnlab": ATTNLAB}
        if base:
            bins["attnlab (base)"] = base
        contenders = {}
        for name, b in bins.items():
            contenders[f"{name} no JSON"] = (lambda b=b: dict(zip("wcr", run([b] + small)[:3])))
            contenders[f"{name} --json"] = (lambda b=b: dict(zip("wcr", run([b] + small + ["--json", path])[:3])))
        res = interleaved(contenders, reps)
        size_mb = os.path.getsize(path) / 1e6
        print(f"  JSON file: {size_mb:.1f} MB")
        for name, rows in res.items():
            print(f"  {name:24s} wall {fmt3(column(rows, 'w'))}; CPU {fmt3(column(rows, 'c'))}; peak RSS {fmt3(column(rows, 'r'), 'MiB', 0)}")
        for name in bins:
            extra = statistics.median(column(res[f"{name} --json"], "w")) - statistics.median(column(res[f"{name} no JSON"], "w"))
            extra_rss = statistics.median(column(res[f"{name} --json"], "r")) - statistics.median(column(res[f"{name} no JSON"], "r"))
            rate = f"{size_mb / extra:.0f} MB/s" if extra > 0 else "n/a (within noise)"
            print(f"  {name}: JSON adds {extra:.3f} s wall ({rate}) and {extra_rss:.0f} MiB peak RSS (medians)")



def section_d(reps, base):
    # (d) the largest FFN
    print("\n(d) swiglu d_model 4096, d_ff 11008")
    sw = ["lesson", "swiglu", "--d-model", "4096", "--d-ff", "11008"]
    contenders = {"attnlab": lambda: dict(zip("wcr", run([ATTNLAB] + sw)[:3])),
                  "attnlab 1 thread": lambda: dict(zip("wcr", run([ATTNLAB] + sw + ["--threads", "1"])[:3]))}
    if base:
        contenders["attnlab (base)"] = lambda: dict(zip("wcr", run([base] + sw)[:3]))
    res = interleaved(contenders, max(1, reps // 2 + 1))
    for name, rows in res.items():
        print(f"  {name:16s} wall {fmt3(column(rows, 'w'))}; CPU {fmt3(column(rows, 'c'))}; peak RSS {statistics.median(column(rows, 'r')):.0f} MiB")
    thread_ratio(res, "  ")



def section_e():
    # (e) start-up cost
    print("\n(e) the default lesson vs --version (20 runs each)")
    contenders = {"attnlab --version": lambda: {"w": run([ATTNLAB, "--version"])[0]},
                  "attnlab lesson mha": lambda: {"w": run([ATTNLAB, "lesson", "mha"])[0]}}
    res = interleaved(contenders, 20)
    for name, rows in res.items():
        print(f"  {name:20s} wall {fmt3([1000 * w for w in column(rows, 'w')], 'ms', 2)}")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "drive":
        drive(sys.argv[sys.argv.index("--openblas") + 1])
    elif len(sys.argv) == 6 and sys.argv[1] == "np-matmul":
        np_matmul(*(int(x) for x in sys.argv[2:]))
    elif len(sys.argv) == 5 and sys.argv[1] == "np-mha":
        np_mha(*(int(x) for x in sys.argv[2:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
