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
