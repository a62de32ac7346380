#!/bin/bash
# Byte-for-byte check of a change: every lesson's text and JSON output (en and zh), the
# real-size runs of mha/gqa/mqa/attention and a few larger traces, from an old and a new binary,
# the new one at ATTNLAB_THREADS 1, 2 and 3.
#
#   bench/same_bytes.sh OLD_BINARY [NEW_BINARY]     (NEW defaults to build/attnlab)
#
# Prints one line per thread count and the differing files, if any; exits 1 on a difference.
set -u
OLD=$1
NEW=${2:-$(dirname "$0")/../build/attnlab}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

outputs() {  # outputs BIN DIR
  local bin=$1 out=$2
  mkdir -p "$out"
  for n in $("$bin" list | awk '/^  [a-z]/{print $1}'); do
    for lang in en zh; do
      "$bin" lesson "$n" --lang $lang >"$out/$n.$lang.txt" 2>&1; echo "rc=$?" >>"$out/$n.$lang.txt"
      "$bin" lesson "$n" --lang $lang --json - >"$out/$n.$lang.json" 2>&1; echo "rc=$?" >>"$out/$n.$lang.json"
    done
  done
  for n in mha gqa mqa attention; do
    heads="--heads 12"; [ $n = attention ] && heads=""
    for lang in en zh; do
      "$bin" lesson $n --lang $lang --d-model 768 $heads --seq-len 16 >"$out/$n.big.$lang.txt" 2>&1
      "$bin" lesson $n --lang $lang --d-model 768 $heads --seq-len 16 --json - >"$out/$n.big.$lang.json" 2>&1
    done
  done
  "$bin" lesson mha --d-model 768 --heads 12 --seq-len 128 --json - >"$out/mha.768.128.json" 2>&1
  "$bin" lesson swiglu --d-model 1024 --d-ff 2816 --json - >"$out/swiglu.1024.json" 2>&1
  "$bin" lesson block --d-model 256 --heads 8 --seq-len 64 --json - >"$out/block.256.json" 2>&1
  "$bin" lesson gqa --d-model 512 --heads 8 --kv-heads 2 --seq-len 96 --json - >"$out/gqa.512.json" 2>&1
  "$bin" lesson mla --d-model 512 --heads 8 --seq-len 64 --json - >"$out/mla.512.json" 2>&1
  "$bin" lesson ffn --d-model 384 --d-ff 1536 --json - >"$out/ffn.384.json" 2>&1
  "$bin" lesson attention --d-model 300 --seq-len 77 --causal --json - >"$out/attn.300.json" 2>&1
}

outputs "$OLD" "$WORK/old"
status=0
for t in 1 2 3; do
  rm -rf "$WORK/new"
  ATTNLAB_THREADS=$t outputs "$NEW" "$WORK/new"
  diffs=$(diff -rq "$WORK/old" "$WORK/new")
  echo "ATTNLAB_THREADS=$t: $(ls "$WORK/new" | wc -l) outputs, $( [ -z "$diffs" ] && echo 0 || echo "$diffs" | wc -l) differ"
  [ -n "$diffs" ] && { echo "$diffs"; status=1; }
done
exit $status
