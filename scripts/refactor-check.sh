#!/usr/bin/env bash
# Checks that a refactor left the numbers alone: two binaries (before, after) each train a
# 300-step `tiny` model per attention function (same corpus, tokenizer and seed) and score 100
# Zorro pairs per paradigm (2,300 pairs; holistic for every function, pll for ssa). Passes when
# every model.safetensors and every .pairs.jsonl is byte-identical.
# Usage: scripts/refactor-check.sh BEFORE_BINARY AFTER_BINARY [DATA_DIR (default ../shared/data)]
set -euo pipefail
BEFORE="$(realpath "$1")"; AFTER="$(realpath "$2")"
DATA="$(realpath "${3:-$(dirname "$0")/../../shared/data}")"
WORK="$(mktemp -d /tmp/bb-refactor-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
head -n 20000 "$DATA/aochildes/aochildes_merged.txt" > "$WORK/corpus.txt"
"$BEFORE" tokenizer train --corpus "$WORK/corpus.txt" --vocab-size 2000 --out "$WORK/tok" >/dev/null
# The functions, from the top-level help's list (the attention-function table).
functions=$("$AFTER" --help | head -n 1 | sed 's/.*attention function (//; s/).*//; s/,//g')
run() {  # run BINARY OUT
  local bb="$1" out="$2" f
  for f in $functions; do
    "$bb" train --corpus "$WORK/corpus.txt" --tokenizer "$WORK/tok" --attention "$f" \
      --preset tiny --steps 300 --eval-every 100 --seed 7 --out "$out/$f" --threads 2 >/dev/null 2>&1
    "$bb" probe --model "$out/$f" --suite "$DATA/zorro" --pairs-per-paradigm 100 \
      --out "$out/$f-holistic.json" --threads 2 >/dev/null 2>&1
  done
  "$bb" probe --model "$out/ssa" --suite "$DATA/zorro" --pairs-per-paradigm 100 --method pll \
    --out "$out/ssa-pll.json" --threads 2 >/dev/null 2>&1
}
run "$BEFORE" "$WORK/before"
run "$AFTER" "$WORK/after"
failed=0
for f in $functions; do
  for file in "$f/model.safetensors" "$f-holistic.pairs.jsonl"; do
    if cmp -s "$WORK/before/$file" "$WORK/after/$file"; then echo "identical  $file"
    else echo "DIFFERENT  $file"; failed=1; fi
  done
done
cmp -s "$WORK/before/ssa-pll.pairs.jsonl" "$WORK/after/ssa-pll.pairs.jsonl" \
  && echo "identical  ssa-pll.pairs.jsonl" || { echo "DIFFERENT  ssa-pll.pairs.jsonl"; failed=1; }
exit $failed
