#!/usr/bin/env bash
# The seven attention functions side by side: `bench train` (babyberta preset, 1 and 2 threads)
# and `bench score` (holistic, 1 thread), each function measured in turn within every round so
# that the machine's drift hits all of them alike. Prints one line per run: what, threads,
# function, median rate, its ratio to softmax's step time in the same round (train: softmax
# tokens/s / this function's tokens/s) and the kernels that ran. Runs with the binary's default
# BLAS kernels (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset).
# Usage: bench/attention_functions.sh BINARY [ROUNDS] [SECONDS]   (defaults 1, 3)
set -euo pipefail
bin="$1"; rounds="${2:-1}"; seconds="${3:-3}"
functions=(softmax ssa softmax-t sparsemax entmax15 sa-softmax cosformer)
field() { { grep -o "\"$1\":[0-9.]*" <<<"$2" || true; } | head -1 | cut -d: -f2; }
for ((r = 1; r <= rounds; ++r)); do
  for run in "train 1" "train 2" "score 1"; do
    read -r what t <<<"$run"
    base=""
    for att in "${functions[@]}"; do
      line="$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bin" bench "$what" --preset babyberta \
               --attention "$att" --threads "$t" --seconds "$seconds" --repeat 3)"
      tps="$(field tokens_per_s "$line")"
      [ -n "$base" ] || base="$tps"
      sps="$(field sentences_per_s "$line")"
      printf 'round %d  %-5s  %d thread(s)  %-10s  %8.0f tokens/s  %s  step time x%.2f of softmax  %s\n' \
        "$r" "$what" "$t" "$att" "$tps" "${sps:+$(printf '%6.0f sentences/s' "$sps")}" \
        "$(awk -v a="$base" -v b="$tps" 'BEGIN { print a / b }')" "$(grep -o '"blas":"[^"]*"' <<<"$line" | cut -d'"' -f4)"
    done
  done
done
