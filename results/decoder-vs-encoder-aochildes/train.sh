#!/usr/bin/env bash
# The study's 12 runs (README.md), all on one machine, two at a time with 1 thread each: the
# causal LM (gpt2) at the babyberta size, BabyBERTa's recipe, 16,000 steps, softmax and SSA, seeds
# 1-3, fp32, Zorro learning curves every 4,000 steps, into $ROOT/gpt2; then the roberta runs, the
# bf16 study's fp32 arm by that study's own command (../precision-bf16-vs-fp32/train.sh, arm fp32),
# into $ROOT/fp32; then every final model's perplexity per word on its dev split and on BLiMP's
# good sentences, into $ROOT/perplexity/ and this folder's perplexity/ (compare-perplexity,
# README.md). Run from a copy of the binary outside build/; the same command resumes.
# Usage: results/decoder-vs-encoder-aochildes/train.sh BINARY ROOT [FIRST LAST]
set -euo pipefail
bin="$1"; root="$2"; first="${3:-1}"; last="${4:-3}"
# FIRST LAST: only seeds FIRST..LAST (default 1 3), for a machine that is not kept between
# sessions: one seed's runs within one session. scripts/collect-experiment.sh copies each arm's
# finished runs' files (run.json, config.json, metrics, trained values, probes, results; no models)
# into this folder's gpt2/ and roberta/.
here="$(cd "$(dirname "$0")" && pwd)"; data="$(cd "$here/../../.." && pwd)/shared/data"
"$bin" experiment --kinds gpt2 --corpus "$data/aochildes/aochildes_merged.txt" \
  --suite "$data/zorro" --attention softmax,ssa --first-seed "$first" --seeds "$last" \
  --recipe babyberta --preset babyberta \
  --steps 16000 --eval-every 1000 --probe-every 4000 --baselines 1,3 --jobs 2 --threads 1 \
  --out "$root/gpt2"
bash "$here/../../scripts/collect-experiment.sh" "$bin" "$root/gpt2" "$here/gpt2"
bash "$here/../precision-bf16-vs-fp32/train.sh" "$bin" "$root" "$first" "$last" fp32 "$here/roberta"
# Perplexities of every finished run (model.safetensors written) not measured yet, two at a time
# with 1 thread each; a rerun measures what is missing (the roberta runs' once they are trained).
mkdir -p "$root/perplexity"
pids=()
for arm in gpt2 fp32; do
  for run in "$root/$arm"/runs/*; do
    [ -f "$run/model.safetensors" ] || continue
    out="$root/perplexity/$(basename "$run").json"
    [ -e "$out" ] && continue
    "$bin" perplexity --model "$run" --dev-of "$run" --good-of "$data/blimp" --threads 1 \
      --out "$out" &
    pids+=("$!")
    if [ "${#pids[@]}" -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
done
for p in "${pids[@]}"; do wait "$p"; done
mkdir -p "$here/perplexity"
cp "$root"/perplexity/*.json "$here/perplexity/"
