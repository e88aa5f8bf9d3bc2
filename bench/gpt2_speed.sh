#!/usr/bin/env bash
# The causal LM's training speed (issue: the decoder setting, item 8), all in one run so that
# every number comes from the same state of the machine (run it on idle cores):
#   `bench gemm` (the sgemm peak), then `bench train --kind gpt2 --preset babyberta` (batch 16,
#   AO-CHILDES lengths) softmax and SSA at 1 and 2 threads, each beside plain PyTorch's GPT-2 of the
#   same size (bench/pytorch_gpt2_train.py --bucket, OMP_WAIT_POLICY=PASSIVE).
# Usage: bench/gpt2_speed.sh BINARY SECONDS
set -euo pipefail
bin="$1"; seconds="$2"
here="$(cd "$(dirname "$0")" && pwd)"
field() { { grep -oE "\"$1\": ?[0-9.]+" <<<"$2" || true; } | head -1 | cut -d: -f2 | tr -d " "; }
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for t in 1 2; do
  line="$("$bin" bench gemm --threads "$t" --seconds "$seconds")"
  echo "gemm $t thread(s): peak $(field peak_gflops "$line") GFLOP/s"
  for att in softmax ssa; do
    line="$("$bin" bench train --kind gpt2 --preset babyberta --attention "$att" --threads "$t" \
            --seconds "$seconds" --repeat 3)"
    printf 'gpt2 train ours    %d thread(s) %-7s %6.0f tokens/s %6.1f GFLOP/s\n' "$t" "$att" \
      "$(field tokens_per_s "$line")" "$(field gflops "$line")"
    line="$(cd "$here" && OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 pytorch_gpt2_train.py \
            --threads "$t" --attention "$att" --seconds "$seconds" --bucket)"
    printf 'gpt2 train pytorch %d thread(s) %-7s %6.0f tokens/s\n' "$t" "$att" \
      "$(field tokens_per_s "$line")"
  done
done
