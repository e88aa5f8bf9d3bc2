#!/usr/bin/env bash
# Copies what a study folder keeps of an `experiment` directory (text-model runs): for every
# finished run (its model.safetensors is there), runs/NAME/ with run.json (every setting and
# session), config.json, metrics.jsonl (the dev-loss curve), values.txt (`babyberta info`: shape,
# step, dev loss and the attention function's trained values per layer and head) and the
# --probe-every results probes/step-N.json (the Zorro learning curve, without their pairs); and
# results/ (every result with its .settings.json and .pairs.jsonl, and the n-gram references).
# Models and checkpoints stay in the experiment directory (34 MB a run at the babyberta size).
# Unfinished runs are named and skipped; rerun when they are done (copies are overwritten).
# Usage: scripts/collect-experiment.sh BINARY EXPERIMENT_DIR DEST_DIR
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: scripts/collect-experiment.sh BINARY EXPERIMENT_DIR DEST_DIR" >&2; exit 2
fi
bin="$1"; src="$2"; dst="$3"
[ -x "$bin" ] || { echo "collect-experiment: $bin: not an executable" >&2; exit 2; }
[ -d "$src/runs" ] || { echo "collect-experiment: $src: no runs/ (not an experiment directory)" >&2
                        exit 2; }
mkdir -p "$dst/runs" "$dst/results"
for run in "$src"/runs/*/; do
  run="${run%/}"; name="$(basename "$run")"
  if [ ! -f "$run/model.safetensors" ]; then echo "not finished, skipped: $name"; continue; fi
  mkdir -p "$dst/runs/$name"
  cp "$run/run.json" "$run/config.json" "$run/metrics.jsonl" "$dst/runs/$name/"
  "$bin" info --model "$run" | sed "s|$run|runs/$name|" > "$dst/runs/$name/values.txt.tmp"
  mv "$dst/runs/$name/values.txt.tmp" "$dst/runs/$name/values.txt"
  if compgen -G "$run/probes/step-*.json" > /dev/null; then
    mkdir -p "$dst/runs/$name/probes"
    cp "$run"/probes/step-*.json "$dst/runs/$name/probes/"
  fi
  echo "collected: $name"
done
if compgen -G "$src/results/*.json" > /dev/null; then
  cp "$src"/results/*.json "$dst/results/"
  if compgen -G "$src/results/*.pairs.jsonl" > /dev/null; then
    cp "$src"/results/*.pairs.jsonl "$dst/results/"
  fi
fi
