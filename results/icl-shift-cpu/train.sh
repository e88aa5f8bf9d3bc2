#!/usr/bin/env bash
# Trains this folder's runs with `icl experiment` (and evaluates each group on the authors' full
# grid, as make.sh does again); every setting is here. Resumable: a rerun skips finished runs and
# resumes interrupted ones from their last checkpoint, bit for bit. Collect the models into runs/
# with collect.sh, then make.sh evaluates and reports.
# Usage: results/icl-shift-cpu/train.sh BINARY RUNS_DIR PART
#   PART: every (softmax, SSA; 20 runs), every-others (15), some (20), linear-full (10),
#   linear-attention-only-residual (10): linear is split by architecture so that each half fits
#   a working session and is committed whole.
# Time on this 2-core VM, 2 runs at a time: every ~2 h 20 min (full runs ~14 min each,
# attention-only-residual ~5); linear-full ~1 h per run, linear-attention-only-residual less.
set -euo pipefail
bin="$1"; runs="$2"; part="$3"
common=(--preset icl-tiny --jobs 2 --threads 1 --checkpoint-every 500)
# The authors' curriculum shape (11 -> 41 points, +2), its interval scaled to the steps.
quant=(--steps 2000 --points-every 50)
case "$part" in
  every)  # softmax and SSA, both architectures, 5 paired seeds
    "$bin" icl experiment --out "$runs/every" --tasks every --archs full,attention-only-residual \
      --attention softmax,ssa --seeds 5 "${quant[@]}" "${common[@]}" ;;
  every-others)  # the other five functions, attention-only-residual, 3 seeds
    "$bin" icl experiment --out "$runs/every-others" --tasks every --archs attention-only-residual \
      --attention softmax-t,sparsemax,entmax15,sa-softmax,cosformer --seeds 3 "${quant[@]}" \
      "${common[@]}" ;;
  some)
    "$bin" icl experiment --out "$runs/some" --tasks some --archs full,attention-only-residual \
      --attention softmax,ssa --seeds 5 "${quant[@]}" "${common[@]}" ;;
  linear-full|linear-attention-only-residual)
    # the linear pilot's MSE was still falling at 2,000 steps: 8,000
    "$bin" icl experiment --out "$runs/$part" --tasks linear --archs "${part#linear-}" \
      --attention softmax,ssa --seeds 5 --steps 8000 --points-every 200 --lengths 40 \
      "${common[@]}" ;;
  *) echo "unknown part $part (every, every-others, some, linear-full, linear-attention-only-residual)" >&2; exit 2 ;;
esac
