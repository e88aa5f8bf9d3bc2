#!/usr/bin/env bash
# Paired training benchmarks: the binary's default (no OPENBLAS_CORETYPE in the environment, so it
# chooses the kernels itself) against each core forced by hand, alternating within every round so
# that the machine's drift hits all of them alike. Prints one line per run: core, threads, attention,
# median tokens/s, GFLOP/s and the kernels that ran.
# Usage: bench/coretype_pairs.sh BINARY [ROUNDS] [SECONDS] [THREADS...]   (defaults 3, 5, 1 2)
set -euo pipefail
bin="$1"; rounds="${2:-3}"; seconds="${3:-5}"; shift $(( $# < 3 ? $# : 3 ))
threads=("${@:-1}"); [ $# -eq 0 ] && threads=(1 2)
cores=(default SkylakeX Haswell)
for ((r = 1; r <= rounds; ++r)); do
  for t in "${threads[@]}"; do
    for att in softmax ssa; do
      for core in "${cores[@]}"; do
        if [ "$core" = default ]; then envs=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
        else envs=(env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE="$core"); fi
        line="$("${envs[@]}" "$bin" bench train --preset babyberta --attention "$att" --threads "$t" \
                 --seconds "$seconds" --repeat 3 2>&1)" || {
          # a core this CPU cannot run (SkylakeX without AVX-512) is skipped; any other failure stops
          grep -q "makes OpenBLAS run its" <<<"$line" || { echo "$line" >&2; exit 1; }
          printf 'round %d  %-8s  skipped: %s\n' "$r" "$core" "$(tail -n 1 <<<"$line")"; continue; }
        tps="$(grep -o '"tokens_per_s":[0-9.]*' <<<"$line" | cut -d: -f2)"
        gf="$(grep -o '"gflops":[0-9.]*' <<<"$line" | cut -d: -f2)"
        blas="$(grep -o '"blas":"[^"]*"' <<<"$line" | cut -d'"' -f4)"
        printf 'round %d  %-8s  %d thread(s)  %-7s  %8.0f tokens/s  %6.1f GFLOP/s  %s\n' \
          "$r" "$core" "$t" "$att" "$tps" "$gf" "$blas"
      done
    done
  done
done
