#!/usr/bin/env bash
# export's tokenizer.json checked by a real third-party client: transformers.js (HF's JavaScript
# implementation of tokenizer.json, installed from interop/package-lock.json with scripts off)
# must give exactly `babyberta encode`'s ids on all 92,000 Zorro sentences, all 134,000 BLiMP
# sentences and the first 20,000 lines of AO-CHILDES, for a tokenizer trained on AO-CHILDES
# (BPE, 8,192 pieces, as the models here use), and on Zorro for a unigram tokenizer. Prints "skipped: ..." (exit 77, ctest's skip) when
# node or the shared data is missing.
# Usage: tests/interop/run_tokenizer_check.sh BINARY
set -euo pipefail
BB="$(realpath "$1")"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DATA="${BB_SHARED_DATA:-$ROOT/../shared/data}"
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found"; exit 77; }
[ -d "$DATA/zorro" ] && [ -d "$DATA/blimp" ] && [ -f "$DATA/aochildes/aochildes_merged.txt" ] \
  || { echo "skipped: no shared data at $DATA"; exit 77; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
if ! ( cd "$ROOT/interop" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
       > "$WORK/npm.log" 2>&1 ); then
  echo "skipped: npm ci failed (no npm registry?): $(tail -n 1 "$WORK/npm.log")"
  exit 77
fi

# A model directory with a tokenizer trained on AO-CHILDES (the model itself: one step of tiny).
"$BB" train --corpus "$DATA/aochildes/aochildes_merged.txt" --out "$WORK/model" --preset tiny \
  --steps 1 --eval-every 1 --dev-batches 1 >/dev/null 2>&1
"$BB" export --model "$WORK/model" --out "$WORK/hf" >/dev/null

cat "$DATA"/zorro/*.txt > "$WORK/zorro.txt"
node "$ROOT/interop/blimp_sentences.mjs" "$DATA/blimp" > "$WORK/blimp.txt"
head -n 20000 "$DATA/aochildes/aochildes_merged.txt" > "$WORK/aochildes.txt"
# Lines that exercise the normaliser: soft hyphen, zero-width space, byte-order mark, tab, NEL,
# no-break space, full-width letters (NFKC), upper case incl. Greek final sigma, an emoji (byte
# fallback), extra spaces at both ends.
printf '%b\n' 'the dog\u00adgy sees a cat' 'zero\u200bwidth and \ufeffbom' 'a\tb\u0085c' \
  'no\u00a0break  spaces   ' '\uff34\uff48\uff45 ＦＵＬＬ width' 'ΟΔΥΣΣΕΥΣ sees ΣΟΦΙΑ' \
  'my mom 🙂 likes it' '   leading and trailing   ' > "$WORK/special.txt"
failed=0
for set in zorro blimp aochildes special; do
  "$BB" encode --model "$WORK/model" < "$WORK/$set.txt" > "$WORK/$set.ids"
  node "$ROOT/interop/check_tokenizer.mjs" "$WORK/hf" "$WORK/$set.txt" "$WORK/$set.ids" || failed=1
done
# A unigram SentencePiece model exports as HF's Unigram.
"$BB" train --corpus "$DATA/aochildes/aochildes_merged.txt" --out "$WORK/unigram" --preset tiny \
  --steps 1 --eval-every 1 --dev-batches 1 --tokenizer-type unigram >/dev/null 2>&1
"$BB" export --model "$WORK/unigram" --out "$WORK/hf-unigram" >/dev/null
"$BB" encode --model "$WORK/unigram" < "$WORK/zorro.txt" > "$WORK/zorro-unigram.ids"
node "$ROOT/interop/check_tokenizer.mjs" "$WORK/hf-unigram" "$WORK/zorro.txt" \
  "$WORK/zorro-unigram.ids" || failed=1
exit "$failed"
