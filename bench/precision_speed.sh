#!/usr/bin/env bash
# --precision bf16 against fp32 (issue: mixed precision on the CPU), all in one run so that every
# number comes from the same state of the machine (run it on idle cores):
#   1. `bench gemm --precision bf16`: the fp32 and bf16 peaks, the layer as trained and frozen, and
#      a training step's three product roles over 192 tokens (casts included), 1 and 2 threads;
#   2. `bench train --preset babyberta` (its default batch) fp32 and bf16, softmax and SSA, 1 and 2
#      threads, each beside PyTorch 1.13 fp32 and bf16 autocast on the same model
#      (bench/pytorch_train.py, OMP_WAIT_POLICY=PASSIVE);
#   3. `bench score --method pll` fp32 and bf16, 1 and 2 threads, beside PyTorch fp32 and autocast
#      (bench/pytorch_score.py --sorted).
# Prints one line per measurement and the CPU's bf16 flags. The binary needs a CPU with AMX-BF16 or
# AVX512-BF16 (it says so and exits 2 elsewhere).
# Usage: bench/precision_speed.sh BINARY SECONDS
set -euo pipefail
bin="$1"; seconds="$2"
here="$(cd "$(dirname "$0")" && pwd)"
field() { { grep -oE "\"$1\": ?[0-9.]+" <<<"$2" || true; } | head -1 | cut -d: -f2 | tr -d " "; }
text() { { grep -oE "\"$1\": ?\"[^\"]*\"" <<<"$2" || true; } | head -1 | cut -d'"' -f4; }
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "bf16 flags: $(grep -m1 -o 'amx_bf16\|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
for t in 1 2; do
  echo "gemm $t thread(s): $("$bin" bench gemm --precision bf16 --threads "$t" --seconds "$seconds")"
done
for t in 1 2; do
  for att in softmax ssa; do
    for p in fp32 bf16; do
      line="$("$bin" bench train --preset babyberta --attention "$att" --threads "$t" \
              --precision "$p" --seconds "$seconds" --repeat 3)"
      printf 'train ours    %d thread(s) %-7s %-13s %6.0f tokens/s %6.1f GFLOP/s %s\n' "$t" "$att" "$p" \
        "$(field tokens_per_s "$line")" "$(field gflops "$line")" "$(text bf16_kernel "$line")"
    done
    for p in fp32 bf16; do
      line="$(OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 "$here/pytorch_train.py" --threads "$t" \
              --attention "$att" --seconds "$seconds" --bucket $([ "$p" = bf16 ] && echo --autocast))"
      printf 'train pytorch %d thread(s) %-7s %-13s %6.0f tokens/s\n' "$t" "$att" \
        "$([ "$p" = bf16 ] && echo "bf16 autocast" || echo fp32)" "$(field tokens_per_s "$line")"
    done
  done
done
for t in 1 2; do
  for p in fp32 bf16; do
    line="$("$bin" bench score --method pll --threads "$t" --precision "$p" --seconds "$seconds" \
            --repeat 3)"
    printf 'pll   ours    %d thread(s) %-13s %7.0f tokens/s %s\n' "$t" "$p" \
      "$(field tokens_per_s "$line")" "$(text bf16_kernel "$line")"
  done
  for p in fp32 bf16; do
    line="$(OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 "$here/pytorch_score.py" --method pll \
            --threads "$t" --seconds "$seconds" --sorted $([ "$p" = bf16 ] && echo --autocast))"
    printf 'pll   pytorch %d thread(s) %-13s %7.0f tokens/s\n' "$t" \
      "$([ "$p" = bf16 ] && echo "bf16 autocast" || echo fp32)" "$(field tokens_per_s "$line")"
  done
done
