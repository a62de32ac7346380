#!/usr/bin/python3
"""--npz at a real size: what writing every tensor as numpy's .npz adds to a lesson run.

    bench/npz_speed.py [BINARY] [--runs N] [--dir DIR] [--before OLD_BINARY]

Runs `lesson mha --d-model 768 --heads 12 --seq-len 512` (the chapter's width and heads) N times
each way, interleaved: plain (the text to /dev/null), with --npz FILE, and with --json FILE, and
prints the median wall time of each with its range, the ratio to the plain run, the .npz size and
its write rate (the size over the extra time it took). The issue's target: --npz adds at most 1.2x
to the run and writes at least 1 GB/s. With --before, an older binary's plain and --npz runs are
timed in the same rounds (each round in a rotated order), so a before/after comparison sees the
same moments of a shared machine. The .npz goes to DIR (default: a temporary folder beside the
binary's build, a disk, not tmpfs) and is checked once with numpy.load. Each run writes a new
file: replacing an existing one makes ext4 (auto_da_alloc) flush the new file's data at the
rename, which on the 2-core VM added 0.1-0.6 s of kernel time to a dd of the same size too.
The figures move with whatever else the machine runs: the load average is printed before and
after; read the range beside the median.
"""
import os, statistics, subprocess, sys, tempfile, time

args = sys.argv[1:]
binary = os.path.join(os.path.dirname(__file__), "..", "build", "attnlab")
runs, folder, before = 5, None, None
while args:
    a = args.pop(0)
    if a == "--runs": runs = int(args.pop(0))
    elif a == "--dir": folder = args.pop(0)
    elif a == "--before": before = args.pop(0)
    else: binary = a
folder = tempfile.mkdtemp(dir=folder or os.path.dirname(os.path.abspath(binary)))
npz, js = os.path.join(folder, "mha.npz"), os.path.join(folder, "mha.json")
size_flags = ["lesson", "mha", "--d-model", "768", "--heads", "12", "--seq-len", "512", "--lang", "en"]
ways = {"plain": (binary, []), "npz": (binary, ["--npz", npz]), "json": (binary, ["--json", js])}
if before:
    ways.update({"plain (before)": (before, []), "npz (before)": (before, ["--npz", npz])})
times = {k: [] for k in ways}
load_before = os.getloadavg()
for r in range(runs):
    order = list(ways)[r % len(ways):] + list(ways)[:r % len(ways)]
    for k in order:
        exe, extra = ways[k]
        for f in extra[1:]:  # a new file each time: replacing one is ext4's rename-over flush (above)
            if os.path.exists(f): os.remove(f)
        t = time.perf_counter()
        subprocess.run([exe] + size_flags + extra, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[k].append(time.perf_counter() - t)
    if r == 0: size = os.path.getsize(npz)
med = {k: statistics.median(v) for k, v in times.items()}
print(f"lesson mha --d-model 768 --heads 12 --seq-len 512, median of {runs} (interleaved); "
      f"load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
for k in ways:
    base = med["plain (before)" if k.endswith("(before)") else "plain"]
    print(f"  {k:15} {med[k]:7.3f} s   {med[k] / base:5.2f}x the plain run   (min {min(times[k]):.3f}, max {max(times[k]):.3f})")
for tag in ["", " (before)"] if before else [""]:
    extra = med["npz" + tag] - med["plain" + tag]
    rate = size / extra / 1e9 if extra > 0 else float("inf")
    print(f"  .npz{tag}: {size / 1e6:.1f} MB, {extra:.3f} s more than plain: {rate:.2f} GB/s")
try:
    import numpy as np
    if os.path.exists(npz): os.remove(npz)
    subprocess.run([binary] + size_flags + ["--npz", npz], stderr=subprocess.DEVNULL, check=True)  # this binary's
    z = np.load(npz)
    print(f"  numpy.load: {len(z.files)} arrays, {sum(z[k].nbytes for k in z.files) / 1e6:.1f} MB of float64")
except ImportError:
    print("  (no numpy here: /usr/bin/python3 has it)")
for f in (npz, js):
    if os.path.exists(f): os.remove(f)
os.rmdir(folder)
