#!/usr/bin/env bash
# Data parallelism against threads on this machine: `mpirun -np 2 bench train --threads 1` (two
# ranks, each half of every batch of 16, one MPI_Allreduce per step) against one process with
# --threads 2 and with --threads 1, softmax and SSA, alternating, ROUNDS rounds; one JSON line per
# run (tokens/s of the global batch: the median of --repeat windows).
# Usage: bench/mpi_train.sh BINARY [ROUNDS] [SECONDS]. Run on an otherwise idle machine.
set -euo pipefail
BB="$(realpath "$1")"; ROUNDS="${2:-2}"; SECONDS_PER="${3:-5}"
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
B=(bench train --preset babyberta --seconds "$SECONDS_PER" --repeat 3)
for round in $(seq "$ROUNDS"); do
  for att in softmax ssa; do
    echo "# round $round, $att"
    "${MPI[@]}" -np 2 "$BB" "${B[@]}" --attention "$att" --threads 1
    "$BB" "${B[@]}" --attention "$att" --threads 2
    "$BB" "${B[@]}" --attention "$att" --threads 1
  done
done
