#!/usr/bin/env bash
# Remakes this folder: two icl-tiny models of `every` (--arch full), their check at sigma 1 on
# 1,000 sequences of 40 points, the authors' full length x sigma grid, and the attention
# saturation by sigma. Usage: results/icl-every-tiny-full/make.sh BINARY RUNS_DIR
# (the runs, ~7 minutes each on one core of a 2-core VM, stay in RUNS_DIR; their run.json files
# are copied here).
set -euo pipefail
bin="$1"; runs="$2"; here="$(cd "$(dirname "$0")" && pwd)"
for f in softmax ssa; do
  /usr/bin/time -f "$f: %e s" "$bin" icl train --task every --attention "$f" --preset icl-tiny \
    --arch full --steps 3000 --points-every 100 --seed 1 --out "$runs/$f" --threads 1 --quiet
  mkdir -p "$here/runs/$f" && cp "$runs/$f/run.json" "$here/runs/$f/"
done
"$bin" icl eval --model "$runs/softmax" --model "$runs/ssa" --lengths 40 --sigmas 1 \
  --sequences 1000 --out "$here/check-sigma1" --threads 2
"$bin" icl eval --model "$runs/softmax" --model "$runs/ssa" --out "$here" --threads 2
"$bin" saturation --model "$runs/softmax" --model "$runs/ssa" --sigmas 1,2,4,8,16,29 --points 40 \
  --sentences 64 --out "$here/saturation"
