#!/usr/bin/env bash
# The Quickstart's main job. Today: train the BabyBERTa-sized encoder for a few seconds per
# attention function on synthetic AO-CHILDES-length batches and print the throughput, then show
# the model a checkpoint describes. (Training on AO-CHILDES and Zorro probing arrive with the
# corpus/tokenizer and probing issues; this script will run them then.)
set -euo pipefail
build=${1:-build}
bin="$build/babyberta"
threads=$(nproc)
for attention in softmax ssa; do
  echo "== bench train --preset babyberta --attention $attention --threads $threads"
  "$bin" bench train --preset babyberta --attention "$attention" --threads "$threads" --seconds 10
done
