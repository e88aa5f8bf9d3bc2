#!/usr/bin/env bash
# Remakes this folder: icl-tiny models of `every`, softmax and SSA, seed 1, 3,000 steps with
# --points-every 100, in two architectures: full (GPT-2 blocks) and attention-only-residual
# (x += attn(x), no MLP or LayerNorm). For each: the check at sigma 1 on 1,000 sequences of 40
# points (full), the authors' full length x sigma grid (full) or 40 points at six sigmas
# (attention-only-residual), and the attention saturation by sigma.
# Usage: results/icl-every-tiny/make.sh BINARY RUNS_DIR   (runs stay in RUNS_DIR; ~7-14 minutes
# each on one core of a 2-core VM)
set -euo pipefail
bin="$1"; runs="$2"; here="$(cd "$(dirname "$0")" && pwd)"
for arch in full attention-only-residual; do
  for f in softmax ssa; do
    "$bin" icl train --task every --attention "$f" --preset icl-tiny --arch "$arch" --steps 3000 \
      --points-every 100 --seed 1 --out "$runs/$arch/$f" --threads 1 --quiet
    mkdir -p "$here/$arch/runs/$f" && cp "$runs/$arch/$f/run.json" "$here/$arch/runs/$f/"
  done
  "$bin" saturation --model "$runs/$arch/softmax" --model "$runs/$arch/ssa" \
    --sigmas 1,2,4,8,16,29 --points 40 --sentences 64 --out "$here/$arch/saturation"
done
m=(--model "$runs/full/softmax" --model "$runs/full/ssa")
"$bin" icl eval "${m[@]}" --lengths 40 --sigmas 1 --sequences 1000 --out "$here/full/check-sigma1"
"$bin" icl eval "${m[@]}" --out "$here/full" --threads 2
"$bin" icl eval --model "$runs/attention-only-residual/softmax" \
  --model "$runs/attention-only-residual/ssa" --lengths 40 --sigmas 1,2,4,8,16,29 \
  --out "$here/attention-only-residual/eval"
