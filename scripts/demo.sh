#!/usr/bin/env bash
# The Quickstart's main job: a small softmax-vs-SSA experiment on AO-CHILDES, probed on Zorro.
# Uses ../shared/data when present, else downloads and verifies the public originals into data/.
# Resumable: run it again and finished runs are skipped.
set -euo pipefail
build=${1:-build}
bin="$build/babyberta"
here=$(cd "$(dirname "$0")/.." && pwd)
shared="$here/../shared/data"
if [ -f "$shared/aochildes/aochildes_merged.txt" ] && [ -d "$shared/zorro" ]; then
  corpus="$shared/aochildes/aochildes_merged.txt"
  suite="$shared/zorro"
else
  "$bin" data fetch --out "$here/data" --only aochildes,zorro
  corpus="$here/data/aochildes/aochildes.txt"
  suite="$here/data/zorro"
fi
out="${DEMO_OUT:-$here/demo-run}"
steps="${DEMO_STEPS:-2500}"         # smaller values make a quick smoke test
pairs="${DEMO_PAIRS:-250}"
# experiment refuses to reuse runs made with other DEMO_* values; DEMO_FORCE=1 redoes them.
force=()
[ "${DEMO_FORCE:-0}" = 1 ] && force=(--force)
echo "demo: corpus $corpus"
echo "demo: suite  $suite (first $pairs pairs of each paradigm)"
echo "demo: output $out"
echo "demo: 2 seeds x $steps steps of the small preset per function: barely trained models, and with 2" \
  "seeds per function every difference is exploratory (compare tests from 3 seeds on)"
time "$bin" experiment --corpus "$corpus" --suite "$suite" --attention softmax,ssa --seeds 2 \
  --preset small --steps "$steps" --eval-every 500 --jobs 2 --threads 1 --pairs-per-paradigm "$pairs" \
  --out "$out" "${force[@]}" ||
  { rc=$?; echo "demo: failed (exit $rc); after changing DEMO_* values use a new DEMO_OUT, or" \
      "DEMO_FORCE=1 to redo what differs" >&2; exit "$rc"; }
