#!/usr/bin/python3
"""--npz at a real size: what writing every tensor as numpy's .npz adds to a lesson run.

    bench/npz_speed.py [BINARY] [--runs N] [--dir DIR]

Runs `lesson mha --d-model 768 --heads 12 --seq-len 512` (the chapter's width and heads) N times
each way, interleaved: plain (the text to /dev/null), with --npz FILE, and with --json FILE, and
prints the median wall time of each, the ratio to the plain run, the .npz size and its write
rate (the size over the extra time it took). The issue's target: --npz adds at most 1.2x to the
run and writes at least 1 GB/s. The .npz goes to DIR (default: a temporary folder beside the
binary's build, a disk, not tmpfs) and is checked once with numpy.load. Each run writes a new
file: replacing an existing one makes ext4 (auto_da_alloc) flush the new file's data at the
rename, which on the 2-core VM added 0.1-0.6 s of kernel time to a dd of the same size too.
The figures move with whatever else the machine runs: read the min beside the median.
"""
import os, statistics, subprocess, sys, tempfile, time

args = sys.argv[1:]
binary = os.path.join(os.path.dirname(__file__), "..", "build", "attnlab")
runs, folder = 5, None
while args:
    a = args.pop(0)
    if a == "--runs": runs = int(args.pop(0))
    elif a == "--dir": folder = args.pop(0)
    else: binary = a
folder = tempfile.mkdtemp(dir=folder or os.path.dirname(os.path.abspath(binary)))
npz, js = os.path.join(folder, "mha.npz"), os.path.join(folder, "mha.json")
lesson = [binary, "lesson", "mha", "--d-model", "768", "--heads", "12", "--seq-len", "512", "--lang", "en"]
ways = {"plain": [], "npz": ["--npz", npz], "json": ["--json", js]}
times = {k: [] for k in ways}
for _ in range(runs):
    for k, extra in ways.items():
        for f in extra[1:]:  # a new file each time: replacing one is ext4's rename-over flush (below)
            if os.path.exists(f): os.remove(f)
        t = time.perf_counter()
        subprocess.run(lesson + extra, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[k].append(time.perf_counter() - t)
med = {k: statistics.median(v) for k, v in times.items()}
size = os.path.getsize(npz)
extra = med["npz"] - med["plain"]
print(f"lesson mha --d-model 768 --heads 12 --seq-len 512, median of {runs} (interleaved)")
for k in ways:
    print(f"  {k:6} {med[k]:7.3f} s   {med[k] / med['plain']:5.2f}x the plain run   (min {min(times[k]):.3f}, max {max(times[k]):.3f})")
rate = size / extra / 1e9 if extra > 0 else float("inf")
print(f"  .npz {size / 1e6:.1f} MB, {extra:.3f} s more than plain: {rate:.2f} GB/s")
try:
    import numpy as np
    z = np.load(npz)
    print(f"  numpy.load: {len(z.files)} arrays, {sum(z[k].nbytes for k in z.files) / 1e6:.1f} MB of float64")
except ImportError:
    print("  (no numpy here: /usr/bin/python3 has it)")
for f in (npz, js):
    if os.path.exists(f): os.remove(f)
os.rmdir(folder)
