#!/usr/bin/env bash
# Issue 47 part 2's pilot: do SSA's b and n move when their learning rate is multiplied? `every`,
# attention-only-residual, SSA, seeds 1-2, --ssa-lr-mult 10 and 100, 2,000 updates, the protocol
# of results/icl-shift-cpu (icl-tiny, --points-every 50, 2 runs at a time, 1 thread each). b or n
# "moves" when any head's value changes by more than 0.1 from its initial value (b 1, n 1.5).
# Writes values-MULT.txt (info's trained values per run) and moves.txt here.
# Usage: pilot.sh BINARY RUNS_DIR
set -euo pipefail
bin="$1"; runs="$2"; here="$(cd "$(dirname "$0")" && pwd)"
for mult in 10 100; do
  "$bin" icl experiment --out "$runs/mult$mult" --tasks every --archs attention-only-residual \
    --attention ssa --seeds 2 --steps 2000 --points-every 50 --preset icl-tiny --jobs 2 \
    --threads 1 --checkpoint-every 500 --lengths 40 --sigmas 1,29 --sequences 64 \
    --ssa-lr-mult "$mult" > /dev/null
  for r in "$runs/mult$mult"/runs/*/; do
    echo "== $(basename "$r") (--ssa-lr-mult $mult)"
    "$bin" info --model "${r%/}" | grep -E '^layer'
  done > "$here/values-$mult.txt"
done
# The largest change of any head's b and n from its initial value, per multiplier.
for mult in 10 100; do
  awk -v m="$mult" '/^layer/ { for (i = 1; i <= NF; i++) { if ($i == "b:") s = "b"; else if ($i == "n:") s = "n";
      else if ($i ~ /^[0-9.]+$/ && $(i-1) != "layer") { d = (s == "b") ? $i - 1 : $i - 1.5; if (d < 0) d = -d;
        if (d > max[s]) max[s] = d } } }
    END { printf "--ssa-lr-mult %s: largest change of b %.4f, of n %.4f: b %s, n %s (threshold 0.1)\n", m,
          max["b"], max["n"], (max["b"] > 0.1 ? "moves" : "does not move"), (max["n"] > 0.1 ? "moves" : "does not move") }' \
    "$here/values-$mult.txt"
done > "$here/moves.txt"
cat "$here/moves.txt"
