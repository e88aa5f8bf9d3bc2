#!/usr/bin/env bash
# Training speed, all in one run so that every number comes from the same state of the machine:
#   1. binaries against each other (e.g. the previous commit's and this one's), alternating
#      within every round: `bench train --preset babyberta --seconds S --repeat 3` (medians),
#      1 and 2 threads, softmax and SSA, in the environment as it is and with OPENBLAS_CORETYPE /
#      OPENBLAS_L2_SIZE unset ("clean");
#   2. the sgemm peak (`bench gemm`: the build's, OpenBLAS's, the better) at 1 and 2 threads;
#   3. PyTorch 1.13 (bench/pytorch_train.py, clean environment, 1 and 2 threads with
#      OMP_WAIT_POLICY=PASSIVE, softmax and SSA), each right before the last binary's same run;
#   4. two 1-thread runs of the last binary side by side (as `experiment` runs them by default)
#      against one alone.
# Usage: bench/train_speed.sh ROUNDS SECONDS BINARY...   (the last binary is the one under test)
set -euo pipefail
rounds="$1"; seconds="$2"; shift 2
bins=("$@"); last="${bins[-1]}"
here="$(cd "$(dirname "$0")" && pwd)"
field() { { grep -oE "\"$1\": ?[0-9.]+" <<<"$2" || true; } | head -1 | cut -d: -f2 | tr -d " "; }
clean=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
train() {  # ENVIRONMENT BINARY THREADS ATTENTION
  local how="$1" bin="$2" t="$3" att="$4" line
  if [ "$how" = clean ]; then line="$("${clean[@]}" "$bin" bench train --preset babyberta \
      --attention "$att" --threads "$t" --seconds "$seconds" --repeat 3)"
  else line="$("$bin" bench train --preset babyberta --attention "$att" --threads "$t" \
      --seconds "$seconds" --repeat 3)"; fi
  printf '%-6s %-28s %d thread(s) %-7s %6.0f tokens/s %6.1f GFLOP/s  %s\n' "$how" "$bin" "$t" "$att" \
    "$(field tokens_per_s "$line")" "$(field gflops "$line")" \
    "$(grep -o '"blas":"[^"]*"' <<<"$line" | cut -d'"' -f4)"
}
echo "environment: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-unset}"
for ((r = 1; r <= rounds; ++r)); do
  echo "round $r"
  for t in 1 2; do
    for att in softmax ssa; do
      for bin in "${bins[@]}"; do
        for how in clean env; do train "$how" "$bin" "$t" "$att"; done
      done
    done
  done
done
for t in 1 2; do
  line="$("${clean[@]}" "$last" bench gemm --threads "$t" --seconds 3)"
  echo "gemm ${t} thread(s): build $(field gflops "$line"), OpenBLAS $(field openblas_gflops "$line"), peak $(field peak_gflops "$line") GFLOP/s"
done
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  for t in 1 2; do
    for att in softmax ssa; do
      line="$(cd "$here" && "${clean[@]}" OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 \
               pytorch_train.py --threads "$t" --attention "$att" --seconds 20)"
      echo "pytorch ${t} thread(s) ${att}: $(field tokens_per_s "$line") tokens/s"
      train clean "$last" "$t" "$att"
    done
  done
else
  echo "pytorch: not installed (apt-get install python3-torch)"
fi
echo "side by side, 1 thread each:"
"${clean[@]}" "$last" bench train --preset babyberta --threads 1 --seconds "$seconds" --repeat 3 > /tmp/side1.$$ &
"${clean[@]}" "$last" bench train --preset babyberta --threads 1 --seconds "$seconds" --repeat 3 > /tmp/side2.$$
wait
echo "  $(field tokens_per_s "$(cat /tmp/side1.$$)") and $(field tokens_per_s "$(cat /tmp/side2.$$)") tokens/s"
rm -f /tmp/side1.$$ /tmp/side2.$$
train clean "$last" 1 softmax
