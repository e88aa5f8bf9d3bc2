#!/usr/bin/env bash
# The study's 12 runs (README.md): BabyBERTa's recipe, babyberta preset, 16,000 steps, softmax and
# SSA, seeds 1-3, fp32 then bf16, two runs at a time with 1 thread each. Run from a copy of the
# binary outside build/ (a rebuild must not touch a running or resumed run); the same command
# resumes. Usage: results/precision-bf16-vs-fp32/train.sh BINARY ROOT [FIRST LAST [ARMS]]
set -euo pipefail
bin="$1"; root="$2"; first="${3:-1}"; last="${4:-3}"; arms="${5:-fp32 bf16}"
# FIRST LAST: only seeds FIRST..LAST (default 1 3), for a machine that is not kept between
# sessions: one seed's runs within one session. After each arm, scripts/collect-experiment.sh
# copies its finished runs' files (run.json, config.json, metrics, trained values, probes,
# results; no models) into this folder's fp32/ or bf16/. ARMS: "fp32 bf16" (default), or one of them: "fp32" alone trains the
# decoder-vs-encoder study's roberta arm on a CPU without bf16 (where the bf16 arm exits 2)
here="$(cd "$(dirname "$0")" && pwd)"; data="$(cd "$here/../../.." && pwd)/shared/data"
# The fp32 arm is also the decoder-vs-encoder study's roberta arm (results/decoder-vs-encoder-
# aochildes/): it is probed with pll too and every 4,000 steps (learning curves); neither changes
# what is trained (--probe-every is not a math flag).
for p in $arms; do
  case "$p" in fp32|bf16) ;; *) echo "train.sh: ARMS takes fp32 and bf16, not $p" >&2; exit 2 ;; esac
  extra=()
  [ "$p" = fp32 ] && extra=(--method holistic,pll --probe-every 4000) || extra=(--method holistic)
  "$bin" experiment --corpus "$data/aochildes/aochildes_merged.txt" --suite "$data/zorro" \
    --attention softmax,ssa --first-seed "$first" --seeds "$last" --recipe babyberta \
    --preset babyberta --steps 16000 \
    --eval-every 1000 "${extra[@]}" --precision "$p" --jobs 2 --threads 1 --out "$root/$p"
  bash "$here/../../scripts/collect-experiment.sh" "$bin" "$root/$p" "$here/$p"
done
