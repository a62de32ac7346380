#!/bin/sh
# attnlab vs numpy + OpenBLAS, the same float64 math, interleaved runs (min / median / max).
#
#   bench/vs_numpy.sh                 # from the repository root, after building build/
#   REPS=7 bench/vs_numpy.sh          # more runs per contender (default 5; swiglu uses REPS/2+1)
#   ATTNLAB_BASE=/tmp/attnlab_old bench/vs_numpy.sh   # also time an older attnlab binary
#   ATTNLAB_BASE_BENCH=/tmp/old/build/attnlab_bench bench/vs_numpy.sh   # and an older kernel in (a)
#   ONLY=ab bench/vs_numpy.sh         # only sections (a) and (b) (default abcde)
#
# Needs: build/attnlab (cmake --build build), python3-numpy and libopenblas0-pthread
# (apt-get install -y python3-numpy libopenblas0-pthread). It builds the optional kernel timer
# build/attnlab_bench itself. Debian's numpy links libblas.so.3 through the alternatives system,
# which may point at the reference BLAS; OpenBLAS is selected explicitly with LD_LIBRARY_PATH and
# the script prints which BLAS library the numpy process actually mapped.
#
# What is timed:
#   (a) matmul 1024x768 @ 768x768: attnlab's kernel (attnlab_bench) vs numpy @, 1 and 2 threads
#   (b) attnlab lesson mha --d-model 768 --heads 12 --seq-len 1024 vs numpy doing the lesson's
#       math: random X and four weights, Q/K/V, per-head projections, scores, softmax, heads,
#       concat, W_O, per-head contributions and their sum. Two ways: whole processes (numpy's
#       side then includes starting Python, importing numpy and OpenBLAS's spinning threads), and
#       in-process at one thread each: numpy's RNG and math timed inside Python (time.process_time)
#       against attnlab's whole run at --threads 1, with attnlab's system time beside it (and
#       the same run started right after another, "back to back": on a VM whose balloon takes
#       freed memory back, a run after a pause pays the host's first touch as system time); and
#       attnlab at every core against --threads 1 (wall)
#   (c) mha 768/12/512 with --json FILE vs without: time, peak RSS, MB/s of JSON
#   (d) attnlab lesson swiglu --d-model 4096 --d-ff 11008 (wall time), every core and --threads 1
#   (e) the default lesson (attnlab lesson mha) vs attnlab --version
# Every section prints the 1-minute load average before and after its runs.
set -e
cd "$(dirname "$0")/.."
cmake --build build --target attnlab attnlab_bench >/dev/null
OPENBLAS_DIR=${OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
if [ ! -e "$OPENBLAS_DIR/libblas.so.3" ]; then
  echo "OpenBLAS not found in $OPENBLAS_DIR: apt-get install -y libopenblas0-pthread" >&2
  exit 1
fi
# Debian's python (the one python3-numpy is installed for), not a pyenv or venv shim
PY=${PY:-/usr/bin/python3}
exec "$PY" bench/vs_numpy.py drive --openblas "$OPENBLAS_DIR"
