#!/usr/bin/env bash
# Copies the trained runs into runs/NAME/ (run.json, config.json, model.safetensors,
# trainer_state.json, and checkpoints/step-N/ with config.json, model.safetensors and
# trainer_state.json; no optimizer state), the lr10 part's runs renamed ...-ssa-lr10-seedN. Then
# the free check: each run's 2,000-update model must be byte-identical to the committed 2k model
# of the same seed and function in ../icl-shift-cpu/runs/ (the learning rate is constant and the
# curriculum ends by update 750); exits 1 naming any that differs.
# Usage: results/icl-training-length/collect.sh RUNS_DIR
set -euo pipefail
runs="$1"; here="$(cd "$(dirname "$0")" && pwd)"
copy() {  # copy RUN_DIR NAME
  local src="$1" dst="$here/runs/$2" step
  mkdir -p "$dst"
  cp "$src/run.json" "$src/config.json" "$src/model.safetensors" "$src/trainer_state.json" "$dst/"
  for step in "$src"/checkpoints/step-*/; do
    mkdir -p "$dst/checkpoints/$(basename "$step")"
    cp "$step/config.json" "$step/model.safetensors" "$step/trainer_state.json" \
      "$dst/checkpoints/$(basename "$step")/"
  done
}
for r in "$runs"/primary/runs/*/; do copy "${r%/}" "$(basename "$r")"; done
if [ -d "$runs/lr10/runs" ]; then
  for r in "$runs"/lr10/runs/*/; do
    n=$(basename "$r"); copy "${r%/}" "${n/-ssa-seed/-ssa-lr10-seed}"
  done
fi
failed=0
for r in "$runs"/primary/runs/*/; do
  n=$(basename "$r"); old="$here/../icl-shift-cpu/runs/$n/model.safetensors"
  if cmp -s "$r/checkpoints/step-2000/model.safetensors" "$old"; then echo "identical  $n at 2,000"
  else echo "DIFFERENT  $n at 2,000 (against $old)"; failed=1; fi
done
exit $failed
