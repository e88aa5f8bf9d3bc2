#!/usr/bin/env bash
# Copies each trained run's run.json, config.json and model.safetensors (not its checkpoints)
# from RUNS_DIR/PART/runs/ into this folder's runs/.
# Usage: results/icl-shift-cpu/collect.sh RUNS_DIR PART...
set -euo pipefail
runs="$1"; shift; here="$(cd "$(dirname "$0")" && pwd)"
for part in "$@"; do
  for r in "$runs/$part"/runs/*/; do
    n=$(basename "$r"); mkdir -p "$here/runs/$n"
    cp "$r/run.json" "$r/config.json" "$r/model.safetensors" "$here/runs/$n/"
  done
done
