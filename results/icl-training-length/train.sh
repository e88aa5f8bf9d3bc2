#!/usr/bin/env bash
# Trains this folder's runs (issue 47 part 3) with `icl experiment`; every setting is here. The
# protocol of results/icl-shift-cpu (icl-tiny, `every`, attention-only-residual, --points-every
# 50: the curriculum ends by update 750), trained to 10,000 updates with every 2,000th kept.
# Resumable: a rerun skips finished runs and resumes interrupted ones, bit for bit (the same
# --threads). Then collect.sh copies the models here and make.sh evaluates and reports.
# Usage: results/icl-training-length/train.sh BINARY RUNS_DIR PART [FIRST LAST]
#   PART: primary (softmax and SSA, seeds 1-5), lr10 (SSA with --ssa-lr-mult 10, seeds 1-5: the
#   secondary group the pilot in pilot-ssa-lr-mult/ called for)
#   FIRST LAST: only seeds FIRST..LAST (default 1 5), for a machine that is not kept between
#   sessions: train a seed's runs within one session, then collect.sh them into this folder
set -euo pipefail
bin="$1"; runs="$2"; part="$3"; first="${4:-1}"; last="${5:-5}"
common=(--preset icl-tiny --tasks every --archs attention-only-residual --first-seed "$first"
        --seeds "$last" --steps 10000
        --points-every 50 --checkpoint-every 2000 --keep-checkpoints all --jobs 2 --threads 1
        --lengths 40 --sigmas 1:29 --sequences 64)
case "$part" in
  primary) "$bin" icl experiment --out "$runs/primary" --attention softmax,ssa "${common[@]}" ;;
  lr10) "$bin" icl experiment --out "$runs/lr10" --attention ssa "${common[@]}" --ssa-lr-mult 10 ;;
  *) echo "unknown part $part (primary, lr10)" >&2; exit 2 ;;
esac
