#!/usr/bin/env python3
"""How long the book's page takes to run a lesson, in headless Chromium: a benchmark, not a test.

usage: bench/book_speed.py [ATTNLAB_BIN]   (default build/attnlab; needs its book core:
       cmake --build build --target book, and chromium)

For each lesson below the page is sent to the lesson's link and timed from the request to the page's
"done" (main[data-state=done]), in the page's own clock: the core's run, the trace's transfer from the
worker and the lesson's HTML. Three rounds; the median and the range are printed, with the load
average. The same commands are timed on the command line (wall clock) beside them.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "browser"))
from check_book import Browser, book  # noqa: E402
from check_pages import find_chromium  # noqa: E402

CASES = [
    ("mha", "#lesson=mha&lang=en", ["lesson", "mha"]),
    ("attention", "#lesson=attention&lang=en", ["lesson", "attention"]),
    ("swiglu", "#lesson=swiglu&lang=en", ["lesson", "swiglu"]),
    ("mha 768/12/16", "#lesson=mha&d-model=768&heads=12&seq-len=16&lang=en",
     ["lesson", "mha", "--d-model", "768", "--heads", "12", "--seq-len", "16"]),
    ("mha 768/12/128", "#lesson=mha&d-model=768&heads=12&seq-len=128&lang=en",
     ["lesson", "mha", "--d-model", "768", "--heads", "12", "--seq-len", "128"]),
]

TIMED = r"""
new Promise(function (resolve, reject) {
  var m = document.getElementById('main');
  m.dataset.state = 'asked';
  var t0 = performance.now();
  location.hash = '%s';
  (function poll() {
    if (m.dataset.state === 'done') resolve({ms: performance.now() - t0, rc: m.dataset.rc});
    else if (performance.now() - t0 > 600000) reject(new Error('no end'));
    else setTimeout(poll, 5);
  })();
})
"""


def main():
    bin_ = sys.argv[1] if len(sys.argv) > 1 else "build/attnlab"
    chromium = find_chromium()
    if not chromium:
        raise SystemExit("no chromium")
    work = tempfile.mkdtemp(prefix="attnlab-book-speed-")
    path = book(bin_, work)
    b = Browser(chromium, work)
    try:
        b.open("file://" + path + "#lesson=gelu&lang=en")
        b.eval(TIMED % "#lesson=gelu&lang=en&seed=3", timeout=700)  # the core loaded and warm
        with open("/proc/loadavg") as f:
            print("load average at the start: " + f.read().split()[0])
        print("%-16s %24s %24s" % ("lesson", "page, ms: median (range)", "command line, ms"))
        for name, frag, args in CASES:
            page, cli = [], []
            for _ in range(3):
                b.eval(TIMED % "#lesson=gelu&lang=en", timeout=700)  # away, so that the next one runs anew
                r = b.eval(TIMED % frag, timeout=700)
                if r["rc"] != "0":
                    raise SystemExit("%s: exit %s in the page" % (name, r["rc"]))
                page.append(r["ms"])
                t0 = time.time()
                subprocess.run([bin_] + args + ["--json", os.devnull], check=True, capture_output=True)
                cli.append(1000 * (time.time() - t0))
            print("%-16s %9.0f (%5.0f-%5.0f) %14.0f" % (name, statistics.median(page), min(page), max(page),
                                                        statistics.median(cli)))
    finally:
        b.close()


if __name__ == "__main__":
    main()
