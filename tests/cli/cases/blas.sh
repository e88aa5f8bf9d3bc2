# OpenBLAS's kernels: chosen from the CPU when the environment says nothing, the user's
# OPENBLAS_CORETYPE respected, and what ran is recorded in every bench line.
blas_line() { "$BB" bench gemm --seconds 0.05 2>/dev/null | grep -o '"blas":"[^"]*"'; }
unset_line="$(unset OPENBLAS_CORETYPE; blas_line)"
user_line="$(export OPENBLAS_CORETYPE=Haswell; blas_line)"
fast_kernels() { [[ "$unset_line" == *kernels* && "$unset_line" != *Prescott* ]]; }
user_choice() { [[ "$user_line" == *"Haswell kernels (OPENBLAS_CORETYPE from the environment)"* ]]; }
if grep -qw avx2 /proc/cpuinfo; then
  check "no variable set: never OpenBLAS's generic kernels on an AVX2 CPU ($unset_line)" fast_kernels
fi
check "the user's OPENBLAS_CORETYPE is respected ($user_line)" user_choice
oneDNN_line="$(unset OPENBLAS_CORETYPE; "$BB" bench gemm --seconds 0.05 2>/dev/null)"
narrow_line="$(export OPENBLAS_CORETYPE=Prescott; blas_line)"
if [[ "$oneDNN_line" == *oneDNN* ]] && grep -qw avx2 /proc/cpuinfo; then
  wgrad() { [[ "$oneDNN_line" == *"weight gradients on OpenBLAS"* ]]; }
  check "no variable set: the weight gradients run on OpenBLAS's full-width kernels" wgrad
  narrow() { [[ "$narrow_line" == *"Prescott kernels"* && "$narrow_line" != *"weight gradients"* ]]; }
  check "OpenBLAS forced narrower: every float product stays on oneDNN ($narrow_line)" narrow
fi
# A forced core the CPU cannot run would die of SIGILL at the first product: a clear error instead.
if ! grep -qw avx512f /proc/cpuinfo; then
  expect_fail "OPENBLAS_CORETYPE=SkylakeX without AVX-512" \
    'OPENBLAS_CORETYPE=SkylakeX makes OpenBLAS run its SkylakeX kernels, which need AVX-512.*unset the variable' \
    env OPENBLAS_CORETYPE=SkylakeX "$BB" bench gemm --seconds 0.05
fi
if ! grep -qw fma4 /proc/cpuinfo; then
  expect_fail "OPENBLAS_CORETYPE=Bulldozer without FMA4" 'Bulldozer kernels, which need AMD.s FMA4' \
    env OPENBLAS_CORETYPE=Bulldozer "$BB" bench gemm --seconds 0.05
fi
# A name OpenBLAS cannot force falls back to its own choice: not an error.
expect_ok "OPENBLAS_CORETYPE=NoSuchCore runs" env OPENBLAS_CORETYPE=NoSuchCore "$BB" bench gemm --seconds 0.05
# A resume on other kernels continues, and says that it is no longer bit for bit.
fixtures
B=(--corpus corpus.txt --preset tiny --vocab-size 400 --dev-batches 2 --eval-every 5)
expect_ok "train 5 steps" "$BB" train "${B[@]}" --out blas-run --steps 5
same_err="$(cd "$WORK" && "$BB" train "${B[@]}" --out blas-run --steps 5 --resume 2>&1 >/dev/null \
  && echo "exit 0")"
other_err="$(cd "$WORK" && OPENBLAS_CORETYPE=Prescott "$BB" train "${B[@]}" --out blas-run \
  --steps 5 --resume 2>&1 >/dev/null && echo "exit 0")"
no_warning() { [[ "$same_err" == *"exit 0" && "$same_err" != *warning* ]]; }
warned() { [[ "$other_err" == *"exit 0" && "$other_err" == *"its last session ran on"*"this one on"*"Prescott kernels"*"not bit for bit"* ]]; }
check "a resume on the same kernels does not warn" no_warning
check "a resume on other kernels warns that it is not bit for bit" warned
