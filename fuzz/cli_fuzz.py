#!/usr/bin/env python3
"""Random command lines against attnlab (issue 16): every command and lesson, every flag its
--help lists, with hostile values (huge, negative, fractional, empty, control characters, invalid
UTF-8, devices, directories). Each run must end in exit 0, or exit 2 with one line on stderr and
nothing on stdout. Counted as findings: crashes (a signal or a sanitizer report), hangs (past
--timeout, in the release build too when --release names one), exit 1, other exit codes,
multi-line stderr, stdout on a usage error. Lines only the sanitized build is too slow for are
listed as slow_sanitized, not counted as findings.

    fuzz/cli_fuzz.py build-fuzz/attnlab --release build/attnlab --runs 5000 --jobs 2 --seed 1

Files a run writes (--json/--html FILE, train --save DIR) land in a scratch folder, the working
directory of every run. Findings are printed with their command lines (shell-quoted) and the
counts as one JSON line at the end; the exit status is 1 when there is a finding."""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile

# The flags of a command, from its --help ("  --flag ..." at the start of a line).
FLAG_RE = re.compile(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", re.M)


def help_flags(binary, words):
    out = subprocess.run([binary, *words, "--help", "--lang", "en"], capture_output=True, timeout=60).stdout.decode()
    return sorted(set(f for f in FLAG_RE.findall(out) if f not in ("--help", "--lang", "--version")))


def commands(binary):
    """[(words, flags)] for every command, subcommand and lesson."""
    out = subprocess.run([binary, "list", "--lang", "en"], capture_output=True, timeout=60).stdout.decode()
    lessons = [line.split()[0] for line in out.splitlines() if line.startswith("  ") and line.split()]
    cmds = [["list"], ["models"], ["params"], ["kv-cache"], ["flops"], ["heads"], ["train"], ["render"],
            ["bench", "memory"], ["bench", "decode"]] + [["lesson", name] for name in lessons]
    return [(c, help_flags(binary, c)) for c in cmds]


def values(scratch):
    return [
        # ordinary
        "1", "2", "3", "4", "8", "16", "64", "0", "gpt2", "llama-3-8b", "deepseek-v3", "en", "zh", "f32", "bf16", "f64",
        "gelu", "relu", "swiglu", "induction", "copy", "1,2,3", "0.5 1.5 -2", "the cat sat", "4GiB", "80GB", "-",
        # huge
        "99999999999999999999", "9223372036854775807", "18446744073709551616", "1e308", "1e999", "4096", "65536",
        "1000000", "2147483648", "1" * 400, "9" * 30 + "GiB",
        # negative, fractional
        "-1", "-9223372036854775808", "-0", "-0.5", "0.5", "1.5", "nan", "inf", "-inf", "1e-320", "0x10", "1_000",
        # empty, control characters, invalid UTF-8, long
        "", " ", "\t", "a\nb", "\x1b[31mred", "\x01\x02", "x\x7fy", "\xc2\x85", "\udcff\udcfe", "a\udcc3", "x" * 5000,
        "词元 注意力", ",", "..", ".", "=", "--", "-x",
        # paths
        "/dev/zero", "/dev/full", "/dev/null", "/dev/stdin", "/tmp", "/", "/nonexistent/x.json", "/proc/self/mem",
        scratch + "/good_trace.json", scratch + "/config.json", scratch + "/out.json", scratch,
    ]


def one_line(words, flags, vals, rng):
    line = list(words)
    for _ in range(rng.randint(0, 5)):
        if not flags or rng.random() < 0.05:
            line.append(rng.choice(vals))  # a stray word
            continue
        flag = rng.choice(flags)
        r = rng.random()
        if r < 0.15:
            line.append(flag)  # a switch, or a missing value
        elif r < 0.25:
            line.append(flag + "=" + rng.choice(vals))
        else:
            line += [flag, rng.choice(vals)]
    if rng.random() < 0.1:
        line += ["--lang", rng.choice(["en", "zh", "qps", "xx", "", "\x1b"])]
    return line


def to_bytes(words):
    return [w.encode("utf-8", "surrogateescape") for w in words]


def run(binary, line, scratch, timeout, release=None):
    args = [binary.encode()] + to_bytes(line)
    # The sanitized build's work caps at 1/50 (ATTNLAB_FUZZ_WORK_SCALE, a hook of -DATTNLAB_FUZZ=ON
    # builds only): what is accepted then takes seconds under ASan, not the minute it may take in a
    # release build (a default `train` or `--retrain` is refused instead of run).
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1", NO_COLOR="1",
               ATTNLAB_FUZZ_WORK_SCALE="0.02")
    try:
        p = subprocess.run(args, capture_output=True, timeout=timeout, cwd=scratch, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        # The sanitizers make a run 5-20x slower: a default training run (about a minute in a
        # release build) passes any timeout short enough for 5,000 runs. A timeout is a hang only if
        # the release build (--release) also needs longer than the timeout for the same line.
        if release:
            try:
                r = subprocess.run([release.encode()] + to_bytes(line), capture_output=True, timeout=timeout,
                                   cwd=scratch, env=env, stdin=subprocess.DEVNULL)
                if r.returncode in (0, 2):
                    return line, "slow_sanitized", b""
                return line, "crash" if r.returncode < 0 else "exit1" if r.returncode == 1 else "exit_other", r.stderr[-2000:]
            except subprocess.TimeoutExpired:
                pass
        return line, "hang", b""
    err = p.stderr
    if p.returncode < 0 or b"Sanitizer" in err or b"runtime error:" in err:
        return line, "crash", err[-2000:]
    if p.returncode == 1:
        # a failed write (a run writing to /dev/full) is exit 1 by design: one line, "cannot write"
        if b"/dev/full" in b" ".join(to_bytes(line)) and err.count(b"\n") == 1:
            return line, "ok", b""
        return line, "exit1", err[-2000:]
    if p.returncode not in (0, 2):
        return line, "exit_other", err[-2000:]
    if p.returncode == 2 and err.count(b"\n") != 1:
        return line, "multiline", err[-2000:]
    if p.returncode == 2 and p.stdout:
        return line, "stdout_on_error", err[-2000:]
    return line, "ok", b""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--runs", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--release", help="a release build of the same tree: a line that times out under the sanitizers "
                    "and not there is counted as slow_sanitized, not as a hang")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    rng = random.Random(a.seed)
    scratch = tempfile.mkdtemp(prefix="attnlab_cli_fuzz_")
    subprocess.run([binary, "lesson", "gelu", "--json", scratch + "/good_trace.json"], check=True, capture_output=True)
    with open(scratch + "/config.json", "w") as f:
        json.dump({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8}, f)
    cmds = commands(binary)
    vals = values(scratch)
    lines = []
    for _ in range(a.runs):
        words, flags = rng.choice(cmds)
        lines.append(one_line(words, flags, vals, rng))
    counts = {"runs": 0, "ok": 0, "crash": 0, "hang": 0, "exit1": 0, "exit_other": 0, "multiline": 0, "stdout_on_error": 0, "slow_sanitized": 0}
    findings = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for line, kind, err in pool.map(lambda l: run(binary, l, scratch, a.timeout, a.release), lines):
            counts["runs"] += 1
            counts[kind] += 1
            if counts["runs"] % 250 == 0:
                print("progress " + json.dumps(counts), flush=True)
            if kind == "slow_sanitized":
                print(f"{kind}: attnlab {' '.join(shlex.quote(w) for w in line)}", flush=True)
            elif kind != "ok":
                findings.append((kind, line, err))
                print(f"{kind}: attnlab {' '.join(shlex.quote(w) for w in line)}", flush=True)
                if err:
                    print("   " + err.decode("utf-8", "replace").strip().replace("\n", "\n   ")[:600], flush=True)
    print(json.dumps(counts))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
