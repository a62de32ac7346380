#!/bin/sh
# One training step of the shipped text models' shape, attnlab vs PyTorch on this machine, side by side.
#
#   cmake --build build --target attnlab_train_bench     # this script builds nothing itself
#   bench/train_step_vs_torch.sh                         # from anywhere; default 20 steps after 3 warm-up, 3 rounds
#   STEPS=10 ROUNDS=5 bench/train_step_vs_torch.sh
#   VOCABS=74 bench/train_step_vs_torch.sh               # only the English vocabulary (default "74 2000")
#   PASSIVE=0 bench/train_step_vs_torch.sh               # without the OMP_WAIT_POLICY=PASSIVE PyTorch runs
#   TRAIN_BENCH=/tmp/build-bench/attnlab_train_bench bench/train_step_vs_torch.sh   # another build
#
# Needs: build/attnlab_train_bench, Debian's python3-torch and libopenblas0-pthread
# (apt-get install -y python3-torch libopenblas0-pthread). Debian's torch links libblas.so.3 through
# the alternatives system, which may point at the reference BLAS; OpenBLAS is selected explicitly
# with LD_LIBRARY_PATH (as bench/vs_numpy.sh does) and the script prints the BLAS library the torch
# process actually mapped.
#
# What is timed: forward + backward + AdamW (betas 0.9/0.98, weight decay 0.01 on the matrices) of a
# GPT-2 decoder (pre-LN, learned positions, tied unembedding, tanh GELU MLP 4x, biases, LayerNorm eps
# 1e-5), 4 layers, 4 heads, d_model 128, seq_len 128, batch 16, vocab 74 (text-en) and 2000 (text-zh),
# on one fixed random batch, each step timed alone (wall clock). Contenders: attnlab f64, attnlab f32
# (`train --dtype f32`), PyTorch f64 and PyTorch f32, each at 1 and 2 threads, every one a fresh
# process, interleaved over ROUNDS rounds. Reported per contender: the median and range of all timed
# steps, and attnlab / PyTorch (medians) in the same dtype at the same thread count. The load average is printed beside
# the figures, and a running attnlab-train (a long training job) is named: such figures are contended.
# At 2 threads PyTorch is also timed with OMP_WAIT_POLICY=PASSIVE ("P"): with libgomp's default (spin
# while waiting) beside OpenBLAS's own threads, Debian's torch measured slower at 2 threads than at 1 on
# a quiet 2-core machine, and 3-5x slower than at 1 when other jobs held the CPUs; the passive run
# shows what PyTorch does without that penalty.
set -e
cd "$(dirname "$0")/.."
BENCH=${TRAIN_BENCH:-build/attnlab_train_bench}
if [ ! -x "$BENCH" ]; then
  echo "$BENCH not found: cmake --build build --target attnlab_train_bench" >&2
  exit 1
fi
OPENBLAS_DIR=${OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
if [ ! -e "$OPENBLAS_DIR/libblas.so.3" ]; then
  echo "OpenBLAS not found in $OPENBLAS_DIR: apt-get install -y libopenblas0-pthread" >&2
  exit 1
fi
# Debian's python (the one python3-torch is installed for), not a pyenv or venv shim
PY=${PY:-/usr/bin/python3}
exec "$PY" bench/train_step_vs_torch.py drive --bench "$BENCH" --openblas "$OPENBLAS_DIR" \
  --steps "${STEPS:-20}" --warmup "${WARMUP:-3}" --rounds "${ROUNDS:-3}" --vocabs "${VOCABS:-74 2000}" --passive "${PASSIVE:-1}"
