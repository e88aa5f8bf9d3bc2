#!/usr/bin/env bash
# Copies each trained run's run.json, config.json and model.safetensors (not its checkpoints)
# from RUNS_DIR/PART/runs/ into this folder's runs/, and appends each run's training speed to
# training_speed.csv: the wall time of its last 1,000 updates, between its step-(STEPS-1000) and
# step-STEPS checkpoints (file times; 1,000 updates of 64 sequences at 41 points, 82 tokens each,
# after the curriculum's end: update 750 of the 2,000-step parts, 3,000 of linear's 8,000) and
# the tokens per second it implies. Two runs shared the 2 cores, and other
# work on the machine slowed some: the speeds are what these runs got, not the engine's best
# (bench/RESULTS.md has that).
# Runs whose directory was copied or restored after training (file times reset) get no speed.
# Only finished runs (a checkpoints/step-STEPS directory) are copied.
# Usage: results/icl-shift-cpu/collect.sh RUNS_DIR STEPS PART...
set -euo pipefail
runs="$1"; steps="$2"; shift 2; here="$(cd "$(dirname "$0")" && pwd)"
speed="$here/training_speed.csv"
[ -f "$speed" ] || echo "run,seconds_last_1000_updates,tokens_per_s" > "$speed"
for part in "$@"; do
  for r in "$runs/$part"/runs/*/; do
    [ -d "$r/checkpoints/step-$steps" ] || continue
    n=$(basename "$r"); mkdir -p "$here/runs/$n"
    cp "$r/run.json" "$r/config.json" "$r/model.safetensors" "$here/runs/$n/"
    a="$r/checkpoints/step-$(( steps - 1000 ))/trainer_state.json"; b="$r/checkpoints/step-$steps/trainer_state.json"
    if [ -f "$a" ] && [ -f "$b" ] && ! grep -q "^$n," "$speed"; then
      s=$(( $(stat -c %Y "$b") - $(stat -c %Y "$a") ))
      # A run directory copied or restored since training has lost its file times: no speed.
      if [ "$s" -gt 0 ]; then echo "$n,$s,$(( 1000 * 64 * 82 / s ))" >> "$speed"
      else echo "collect: $n: checkpoint file times do not show the training time; no speed recorded" >&2; fi
    fi
  done
done
