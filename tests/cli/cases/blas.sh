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
if [[ "$oneDNN_line" == *oneDNN* ]] && grep -qw avx2 /proc/cpuinfo; then
  wgrad() { [[ "$oneDNN_line" == *"weight gradients on OpenBLAS"* ]]; }
  check "no variable set: the weight gradients run on OpenBLAS's full-width kernels" wgrad
fi
# A core wider than the CPU runs would die of SIGILL at the first product: a clear error instead.
if ! grep -qw avx512f /proc/cpuinfo; then
  expect_fail "OPENBLAS_CORETYPE=SkylakeX without AVX-512" \
    'OPENBLAS_CORETYPE=SkylakeX asks for 512-bit vector kernels.*unset the variable' \
    env OPENBLAS_CORETYPE=SkylakeX "$BB" bench gemm --seconds 0.05
fi
if ! grep -qw avx2 /proc/cpuinfo; then
  expect_fail "OPENBLAS_CORETYPE=Haswell without AVX2" 'OPENBLAS_CORETYPE=Haswell asks for 256-bit' \
    env OPENBLAS_CORETYPE=Haswell "$BB" bench gemm --seconds 0.05
fi
