#!/usr/bin/env bash
# Rebuilds every evaluation, the saturation view and report.md of this folder from its models
# (runs/NAME/{run.json,config.json,model.safetensors}) alone; every setting is here.
# Usage: results/icl-shift-cpu/make.sh BINARY [THREADS [GROUP...]]   (GROUP: TASK-ARCH; default
# every group in runs/; about 30 minutes for 20 runs of `every` on 2 cores)
set -euo pipefail
bin="$1"; threads="${2:-2}"; shift $(( $# < 2 ? $# : 2 )); here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
# The groups: TASK-ARCH, from the run names icl experiment gives (TASK-ARCH-FUNCTION-seedN).
groups="$*"
[ -n "$groups" ] || groups=$(for r in runs/*/; do basename "$r"; done |
  sed -E 's/-(softmax|ssa|softmax-t|sparsemax|entmax15|sa-softmax|cosformer)-seed[0-9]+$//' | sort -u)
for g in $groups; do
  models=(); for r in runs/"$g"-*-seed*/; do models+=(--model "${r%/}"); done
  t=(--threads "$threads")
  case "$g" in
    linear-*)
      # Endpoint: 40 points, sigma of x 1, sigma of the function 1..10, 1,000 sequences per cell.
      "$bin" icl eval "${models[@]}" --lengths 40 --sigmas 1 --sigma-fn 1:10 --sequences 1000 \
        --out "endpoint/$g" "${t[@]}"
      # The authors' grid: sigma of x 1..10 x sigma of the function 1..10 (40 points), 64 each.
      "$bin" icl eval "${models[@]}" --lengths 40 --sequences 64 --out "grid/$g" "${t[@]}"
      # Their notebook's recorded-MSE protocol.
      "$bin" icl eval "${models[@]}" --authors-draws --lengths 40 --sigmas 1 --sigma-fn 1:10 \
        --from-point 3 --out "authors/$g" "${t[@]}" ;;
    *)
      # Endpoint: 40 points, sigma of x 1..29, 1,000 sequences per sigma.
      "$bin" icl eval "${models[@]}" --lengths 40 --sigmas 1:29 --sequences 1000 \
        --out "endpoint/$g" "${t[@]}"
      # The authors' grid: 10..200 points x sigma 1..29, 64 sequences per cell.
      "$bin" icl eval "${models[@]}" --sequences 64 --out "grid/$g" "${t[@]}"
      # Their draws (testoverlandx.py's inputs) at the trained length.
      "$bin" icl eval "${models[@]}" --authors-draws --lengths 40 --sigmas 1:29 \
        --out "authors/$g" "${t[@]}" ;;
  esac
  "$bin" saturation "${models[@]}" --sigmas 1:29 --points 40 --sentences 64 \
    --out "saturation/$g" "${t[@]}"
done
"$bin" icl report --dir . > /dev/null
echo "made $here/report.md"
