#!/usr/bin/env bash
# The pilot that chose the steps: softmax, attention-only-residual, seed 1, 2,000 steps with the
# curriculum every 50 steps (41 points from step 750), a checkpoint every 250 steps; each
# checkpoint evaluated in distribution (sigma 1, 40 points, 1,000 sequences).
# Usage: results/icl-shift-cpu/pilot/pilot.sh BINARY RUNS_DIR   (~3 minutes per run on one core)
set -euo pipefail
bin="$1"; runs="$2"; here="$(cd "$(dirname "$0")" && pwd)"
for t in every linear; do
  "$bin" icl train --task "$t" --attention softmax --preset icl-tiny --arch attention-only-residual \
    --steps 2000 --points-every 50 --checkpoint-every 250 --seed 1 --out "$runs/$t" --threads 1 --quiet
  m=(); for s in 250 500 750 1000 1250 1500 1750 2000; do
    mkdir -p "$runs/ck-$t"; ln -sfn "$runs/$t/checkpoints/step-$s" "$runs/ck-$t/step-$s"
    m+=(--model "$runs/ck-$t/step-$s")
  done
  extra=(); [ "$t" = linear ] && extra=(--sigma-fn 1)
  "$bin" icl eval --task "$t" "${m[@]}" --lengths 40 --sigmas 1 "${extra[@]}" --sequences 1000 \
    --no-baselines --out "$here/$t" --threads 1
  rm -f "$here/$t"/heatmap_*.svg  # one cell each: nothing to see
done
