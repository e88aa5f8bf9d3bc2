#!/usr/bin/env bash
# Evaluates every checkpoint of this folder's runs and writes report.md, from the folder's files
# alone: per checkpoint step N (2,000 ... 10,000), the endpoint grid (40 points, sigma 1..29,
# 1,000 independent sequences per sigma) into endpoint/GROUP/step-N/ and the saturation grid
# (sigma 1..29, 40 points, 64 sequences) into saturation/GROUP/step-N/; then `icl report`.
# Usage: results/icl-training-length/make.sh BINARY [THREADS]
set -euo pipefail
bin="$1"; threads="${2:-2}"; here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
group=every-attention-only-residual
for step in 2000 4000 6000 8000 10000; do
  models=(); for r in runs/"$group"-*-seed*/; do models+=(--model "${r}checkpoints/step-$step"); done
  "$bin" icl eval "${models[@]}" --task every --lengths 40 --sigmas 1:29 --sequences 1000 \
    --out "endpoint/$group/step-$step" --threads "$threads"
  "$bin" saturation "${models[@]}" --sigmas 1:29 --points 40 --sentences 64 \
    --out "saturation/$group/step-$step" --threads "$threads"
done
"$bin" icl report --dir . > /dev/null
echo "made $here/report.md"
