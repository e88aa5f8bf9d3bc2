#!/usr/bin/env bash
# The study's 12 runs (README.md): BabyBERTa's recipe, babyberta preset, 16,000 steps, softmax and
# SSA, seeds 1-3, fp32 then bf16, two runs at a time with 1 thread each. Run from a copy of the
# binary outside build/ (a rebuild must not touch a running or resumed run); the same command
# resumes. Usage: results/precision-bf16-vs-fp32/train.sh BINARY ROOT [FIRST LAST [ARMS [DEST]]]
set -euo pipefail
bin="$1"; root="$2"; first="${3:-1}"; last="${4:-3}"; arms="${5:-fp32 bf16}"; dest="${6:-}"
# FIRST LAST: only seeds FIRST..LAST (default 1 3), for a machine that is not kept between
# sessions: one seed's runs within one session. After each arm, scripts/collect-experiment.sh
# copies its finished runs' files (run.json, config.json, metrics, trained values, probes,
# results; no models) into this folder's fp32/ or bf16/, or into DEST. ARMS: "fp32 bf16"
# (default) or one of them. DEST (one arm only): where to collect instead; the decoder-vs-encoder
# study trains its roberta arm with this command's fp32 arm on its own machine and collects it
# into its own folder (README.md).
if [ -n "$dest" ] && [ "$(echo $arms | wc -w)" -ne 1 ]; then
  echo "train.sh: DEST takes one arm, not \"$arms\"" >&2; exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"; data="$(cd "$here/../../.." && pwd)/shared/data"
# The fp32 arm is also probed with pll and every 4,000 steps (the decoder-vs-encoder study's
# roberta arm and its learning curves); neither changes what is trained (--probe-every is not a
# math flag).
for p in $arms; do
  case "$p" in fp32|bf16) ;; *) echo "train.sh: ARMS takes fp32 and bf16, not $p" >&2; exit 2 ;; esac
  extra=()
  [ "$p" = fp32 ] && extra=(--method holistic,pll --probe-every 4000) || extra=(--method holistic)
  "$bin" experiment --corpus "$data/aochildes/aochildes_merged.txt" --suite "$data/zorro" \
    --attention softmax,ssa --first-seed "$first" --seeds "$last" --recipe babyberta \
    --preset babyberta --steps 16000 \
    --eval-every 1000 "${extra[@]}" --precision "$p" --jobs 2 --threads 1 --out "$root/$p"
  bash "$here/../../scripts/collect-experiment.sh" "$bin" "$root/$p" "${dest:-$here/$p}"
done
