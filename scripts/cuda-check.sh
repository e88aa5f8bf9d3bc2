#!/usr/bin/env bash
# CUDA check in two halves, because the GPU machine is bare (no Debian -dev packages, no ICU,
# OpenBLAS or SentencePiece) and what travels to it is limited to 64 MiB:
#
#   scripts/cuda-check.sh pack   on the build machine (Debian bookworm, after install-deps.sh, with
#                                nvcc 13 at /usr/local/cuda): configures and builds build-cuda/
#                                (-DBABYBERTA_CUDA=ON, without oneDNN's 40 MB), then packs
#                                babyberta, the `cuda` test binary and every shared library they
#                                need except the CUDA runtime/cuBLAS/driver and glibc into
#                                build-cuda/cuda-check.tar.gz (gzip, which every machine has).
#   scripts/cuda-check.sh run    on the GPU machine, from the repository root with that archive
#                                carried along: unpacks it, runs the `cuda` tests (every CUDA op
#                                against the CPU, a tiny training step of both text kinds, a
#                                CUDA-trained checkpoint scored on the CPU, the ICL model against
#                                the CPU), then bench train (roberta and gpt2) / score (also
#                                decoder-114m: attention over 1,024 positions) / gemm
#                                --device cuda (and one ICL train bench), times
#                                `icl eval` on the authors' full grid, and prints a short table.
#                                Uses the machine's own CUDA libraries (/usr/local/cuda/lib64).
#                                Budget: under 10 minutes (the timeouts below add up to 586 s).
#
# With the project's device tool: pack here, then
#   run(command="bash scripts/cuda-check.sh run", carry=["build-cuda/cuda-check.tar.gz"])
set -euo pipefail
cd "$(dirname "$0")/.."
archive=build-cuda/cuda-check.tar.gz

pack() {
  cmake -S . -B build-cuda -DBABYBERTA_CUDA=ON -DBABYBERTA_ONEDNN=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build build-cuda -j"$(nproc)" --target babyberta test_cuda
  local stage=build-cuda/cuda-check
  rm -rf "$stage" && mkdir -p "$stage/lib"
  cp build-cuda/babyberta build-cuda/tests/test_cuda "$stage/"
  # Shared libraries of both binaries, minus what the GPU machine has itself: glibc's own
  # libraries, the dynamic loader, the NVIDIA driver and the CUDA toolkit's runtime and cuBLAS.
  ldd build-cuda/babyberta build-cuda/tests/test_cuda | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libresolv|ld-linux[^/]*|libcuda|libcudart|libcublas|libcublasLt)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
  tar -C build-cuda -czf "$archive" cuda-check
  echo "packed $(du -h "$archive" | cut -f1) into $archive ($(ls "$stage/lib" | wc -l) libraries)"
}

# One field of a flat JSON line: field '{"a":1,"b":"x"}' b -> x; a field the line lacks -> '-'
field() {
  if grep -q "\"$2\":" <<< "$1"; then sed -E 's/.*"'"$2"'":"?([^,"}]*).*/\1/' <<< "$1"; else echo -; fi
}

run() {
  [[ -f $archive ]] || { echo "cuda-check: $archive is missing (run 'scripts/cuda-check.sh pack' on the build machine and carry it)" >&2; exit 2; }
  local t0=$SECONDS work
  work=$(mktemp -d)
  tar -C "$work" -xzf "$archive"
  local bin=$work/cuda-check
  export LD_LIBRARY_PATH="$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  # A library this machine lacks (another CUDA major version, say) would make every step below exit
  # 127: say which, once, and stop.
  local missing
  missing=$(ldd "$bin/babyberta" "$bin/test_cuda" | grep 'not found' | sort -u || true)
  if [[ -n $missing ]]; then
    echo "cuda-check: libraries missing on this machine (LD_LIBRARY_PATH=$LD_LIBRARY_PATH):" >&2
    echo "$missing" >&2
    exit 2
  fi
  echo "== cuda tests"
  timeout 140 "$bin/test_cuda" --no-intro=true > "$work/tests.log" 2>&1 && tests=passed || tests="FAILED (exit $?)"
  tail -25 "$work/tests.log"
  # Without a device every case returns early with this message, which doctest counts as passed.
  if grep -q "skipped: no CUDA device" "$work/tests.log"; then tests="SKIPPED (no CUDA device)"; fi
  echo "cuda tests: $tests"
  echo "== benchmarks"
  # One JSON line per bench; a failed or timed-out bench becomes a line that says so.
  bench_row() {
    local limit=$1
    shift
    timeout "$limit" "$bin/babyberta" bench "$@" 2> "$work/bench.err" ||
      echo "{\"bench\":\"failed\",\"what\":\"$*\",\"error\":\"$(tail -1 "$work/bench.err" | tr -d '"')\"}"
  }
  local rows=()
  for att in softmax ssa; do
    rows+=("$(bench_row 30 train --device cuda --preset babyberta --attention $att --seconds 7)")
  done
  rows+=("$(bench_row 30 train --device cuda --preset babyberta --tf32 --seconds 7)")
  rows+=("$(bench_row 25 train --device cuda --preset babyberta --cuda-graphs off --seconds 6)")
  # the causal LM (gpt2) at the same size: every position's vocabulary projection
  rows+=("$(bench_row 30 train --device cuda --kind gpt2 --preset babyberta --attention ssa --seconds 7)")
  for m in holistic pll; do
    rows+=("$(bench_row 48 score --device cuda --preset babyberta --method $m --seconds 9)")
  done
  # decoder-114m built for its 1,024 positions: attention reads keys and values from global memory
  rows+=("$(bench_row 20 score --device cuda --kind gpt2 --preset decoder-114m --seconds 5)")
  # cuBLAS's sgemm peak (fp32 and TF32), the yardstick for the GFLOP/s above
  rows+=("$(bench_row 40 gemm --device cuda --seconds 6)")
  # the ICL model (causal attention, batch 64 x 82 tokens)
  rows+=("$(bench_row 30 train --device cuda --kind icl --preset icl-standard --attention ssa --seconds 5)")
  printf '%s\n' "${rows[@]}"
  echo "== icl eval: the authors' full grid (10..200 points x sigma 1..29, 64 sequences) on cuda"
  if timeout 30 "$bin/babyberta" icl train --device cuda --preset icl-tiny --steps 50 --quiet \
       --out "$work/icl" > "$work/icl.log" 2>&1 &&
     { time timeout 85 "$bin/babyberta" icl eval --device cuda --model "$work/icl" \
         --out "$work/icl-eval" >> "$work/icl.log" 2>&1; } 2> "$work/icl.time"; then
    echo "icl eval full grid on cuda: $(grep real "$work/icl.time")"
  else
    echo "FAILED: icl train/eval on cuda: $(tail -1 "$work/icl.log")"
  fi
  echo "== summary (Zorro: all 92,000 sentences at that rate)"
  printf '%-44s %12s %12s %10s\n' bench steps/s tokens/s Zorro
  for r in "${rows[@]}"; do
    if [[ $(field "$r" bench) == failed ]]; then
      echo "FAILED: bench $(field "$r" what): $(field "$r" error)"
    elif [[ $(field "$r" bench) == gemm ]]; then
      printf '%-44s sgemm %.0f GFLOP/s fp32, %.0f TF32; %s layer %.0f\n' "gemm $(field "$r" size)" \
        "$(field "$r" gflops)" "$(field "$r" tf32_gflops)" "$(field "$r" preset)" \
        "$(field "$r" layer_train_gflops)"
    elif [[ $(field "$r" bench) == train ]]; then
      printf '%-44s %12.1f %12.0f\n' \
        "train $(field "$r" kind) $(field "$r" preset) $(field "$r" attention) tf32=$(field "$r" tf32) graphs=$(field "$r" cuda_graphs)" \
        "$(field "$r" steps_per_s)" "$(field "$r" tokens_per_s)"
    else
      local sps
      sps=$(field "$r" sentences_per_s)
      printf '%-44s %12s %12.0f %9.1fs\n' "score $(field "$r" preset) $(field "$r" method) (sent/s)" - "$sps" \
        "$(awk -v s="$sps" 'BEGIN {print 92000 / s}')"
    fi
  done
  rm -rf "$work"
  echo "cuda-check: tests $tests; done in $((SECONDS - t0)) s"
  [[ $tests == passed ]]
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: scripts/cuda-check.sh pack|run" >&2; exit 2 ;;
esac
