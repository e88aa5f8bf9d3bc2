#!/usr/bin/env bash
# Checks that a refactor left the numbers alone. Two binaries (before, after) each:
#  - train a 300-step `tiny` encoder per attention function (same corpus, tokenizer and seed) and
#    score 100 Zorro pairs per paradigm (2,300 pairs; holistic for every function, pll for ssa);
#  - train an ICL model per attention function x architecture (full, attention-only-residual),
#    300 updates of icl-tiny on `every`, and evaluate each architecture's models with icl eval on
#    a small grid (eval.json);
#  - run a resumed encoder run and a resumed ICL run (each interrupted with SIGINT once its first
#    checkpoint exists, then the same command again);
#  - train data-parallel under `mpirun -np 2` (skipped, and said, without mpirun or MPI).
# Passes when every model.safetensors, every .pairs.jsonl and every eval.json is byte-identical
# (eval.json: or equal but for the models' "steps" entry, which binaries before it do not write).
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
archs="full attention-only-residual"
ENC=(--corpus "$WORK/corpus.txt" --tokenizer "$WORK/tok" --preset tiny --steps 300
     --eval-every 100 --seed 7)
ICL=(--preset icl-tiny --task every --steps 300 --checkpoint-every 100 --seed 7 --threads 2 --quiet)
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2)
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi_ok=0
if command -v mpirun >/dev/null &&
   "${MPI[@]}" "$AFTER" bench train --preset tiny --seconds 0.2 >/dev/null 2>&1; then mpi_ok=1; fi

# Runs "$@" in the background, sends SIGINT once DIR/checkpoints/step-100 exists, waits (exit 130
# expected), then runs "$@" again (plus RESUME's arguments, if set) to the end.
interrupt_and_resume() {
  local dir="$1"; shift
  "$@" >/dev/null 2>&1 & local pid=$!
  while [ ! -d "$dir/checkpoints/step-100" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" || true
  "$@" ${RESUME:+$RESUME} >/dev/null 2>&1
}

run() {  # run BINARY OUT
  local bb="$1" out="$2" f a
  for f in $functions; do
    "$bb" train "${ENC[@]}" --threads 2 --attention "$f" --out "$out/$f" >/dev/null 2>&1
    "$bb" probe --model "$out/$f" --suite "$DATA/zorro" --pairs-per-paradigm 100 \
      --out "$out/$f-holistic.json" --threads 2 >/dev/null 2>&1
    for a in $archs; do
      "$bb" icl train "${ICL[@]}" --attention "$f" --arch "$a" --out "$out/icl/$a/$f" >/dev/null 2>&1
    done
  done
  "$bb" probe --model "$out/ssa" --suite "$DATA/zorro" --pairs-per-paradigm 100 --method pll \
    --out "$out/ssa-pll.json" --threads 2 >/dev/null 2>&1
  for a in $archs; do
    local models=()
    for f in $functions; do models+=(--model "$out/icl/$a/$f"); done
    "$bb" icl eval "${models[@]}" --lengths 10,40 --sigmas 1,5,20 --sequences 32 --threads 2 \
      --out "$out/icl-eval-$a" >/dev/null 2>&1
  done
  RESUME=--resume interrupt_and_resume "$out/resumed" \
    "$bb" train "${ENC[@]}" --threads 2 --attention ssa --out "$out/resumed"
  interrupt_and_resume "$out/icl-resumed" \
    "$bb" icl train "${ICL[@]}" --attention ssa --arch full --out "$out/icl-resumed"
  if [ "$mpi_ok" = 1 ]; then
    "${MPI[@]}" "$bb" train "${ENC[@]}" --attention ssa --threads 1 --out "$out/mpi" \
      >/dev/null 2>&1
  fi
}
run "$BEFORE" "$WORK/before"
run "$AFTER" "$WORK/after"
failed=0
compare() {
  if cmp -s "$WORK/before/$1" "$WORK/after/$1"; then echo "identical  $1"
  else echo "DIFFERENT  $1"; failed=1; fi
}
for f in $functions; do
  compare "$f/model.safetensors"
  compare "$f-holistic.pairs.jsonl"
  for a in $archs; do compare "icl/$a/$f/model.safetensors"; done
done
compare ssa-pll.pairs.jsonl
# eval.json: byte for byte, or, where the before binary predates the models' "steps" entry (the
# updates each model was trained, added with the ICL training-length work), equal in every other
# value, said so.
compare_eval() {
  if cmp -s "$WORK/before/$1" "$WORK/after/$1"; then echo "identical  $1"; return; fi
  if /usr/bin/python3 - "$WORK/before/$1" "$WORK/after/$1" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for m in a.get("models", []) + b.get("models", []):
    m.pop("steps", None)
sys.exit(0 if a == b else 1)
PY
  then echo "identical  $1 (every value; the after binary adds each model's \"steps\")"
  else echo "DIFFERENT  $1"; failed=1; fi
}
for a in $archs; do compare_eval "icl-eval-$a/eval.json"; done
compare resumed/model.safetensors
compare icl-resumed/model.safetensors
if [ "$mpi_ok" = 1 ]; then compare mpi/model.safetensors
else echo "skipped    mpi/model.safetensors (no mpirun, or a binary built without MPI)"; fi
exit $failed
