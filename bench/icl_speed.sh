#!/usr/bin/env bash
# ICL training speed, ours and PyTorch's side by side in one run (the same state of the machine):
# `bench train --kind icl` and bench/pytorch_icl_train.py, icl-tiny and icl-standard, softmax and
# SSA, 1 and 2 threads, alternating; then the sgemm peak (`bench gemm`) at 1 and 2 threads.
# Usage: bench/icl_speed.sh SECONDS BINARY
set -euo pipefail
seconds="$1"; bin="$2"
here="$(cd "$(dirname "$0")" && pwd)"
field() { { grep -oE "\"$1\": ?[0-9.]+" <<<"$2" || true; } | head -1 | cut -d: -f2 | tr -d " "; }
for preset in icl-tiny icl-standard; do
  for t in 1 2; do
    for att in softmax ssa; do
      ours="$("$bin" bench train --kind icl --preset "$preset" --attention "$att" --threads "$t" \
        --seconds "$seconds" --repeat 3)"
      theirs="$(OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 "$here/pytorch_icl_train.py" \
        --preset "$preset" --attention "$att" --threads "$t" --seconds "$((seconds * 3))")"
      o="$(field tokens_per_s "$ours")"; p="$(field tokens_per_s "$theirs")"
      printf '%-12s %d thread(s) %-7s ours %8.0f tokens/s %6.1f GFLOP/s | PyTorch %8.0f tokens/s | %.2fx\n' \
        "$preset" "$t" "$att" "$o" "$(field gflops "$ours")" "$p" "$(echo "$o / $p" | bc -l)"
    done
  done
done
for t in 1 2; do
  g="$("$bin" bench gemm --threads "$t")"
  printf 'sgemm peak, %d thread(s): %s GFLOP/s\n' "$t" "$(field peak_gflops "$g")"
done
