#!/usr/bin/env bash
# Trains (and evaluates on the authors' full grids, 64 sequences per cell) this folder's runs with
# `icl experiment`; every setting is here. Resumable: a rerun skips finished runs and resumes
# interrupted ones from their last checkpoint, bit for bit.
# Usage: results/icl-shift-cpu/train.sh BINARY RUNS_DIR PART   (PART: every | linear | some)
set -euo pipefail
bin="$1"; runs="$2"; part="$3"
common=(--preset icl-tiny --jobs 2 --threads 1 --checkpoint-every 500)
case "$part" in
  every)  # softmax and SSA, both architectures, 5 paired seeds; the other five functions, 3 seeds
    "$bin" icl experiment --out "$runs/every" --tasks every --archs full,attention-only-residual \
      --attention softmax,ssa --seeds 5 --steps 2000 --points-every 50 "${common[@]}"
    "$bin" icl experiment --out "$runs/every-others" --tasks every --archs attention-only-residual \
      --attention softmax-t,sparsemax,entmax15,sa-softmax,cosformer --seeds 3 --steps 2000 \
      --points-every 50 "${common[@]}" ;;
  *) echo "unknown part $part" >&2; exit 2 ;;
esac
