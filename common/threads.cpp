#include "common/threads.h"

#include <cblas.h>
#include <omp.h>
#include <xmmintrin.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace bb {

static void enable_flush_to_zero() { _mm_setcsr(_mm_getcsr() | 0x8040); }  // FTZ | DAZ

// OpenBLAS 0.3.21 falls back to its generic SSE3 "Prescott" kernels on CPUs it does not know
// (e.g. recent Xeons), about 3x slower than its AVX2 ones. We do not override the user's
// OPENBLAS_CORETYPE; we say once what would help.
static void warn_generic_blas_kernel() {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  const char* core = openblas_get_corename();
  if (core && std::strcmp(core, "Prescott") == 0 && __builtin_cpu_supports("avx2"))
    std::fprintf(stderr,
                 "babyberta: note: OpenBLAS chose its generic Prescott kernels on this AVX2 CPU; "
                 "OPENBLAS_CORETYPE=Haswell in the environment makes GEMMs about 3x faster\n");
}

void set_threads(int n) {
  warn_generic_blas_kernel();
  if (n <= 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
  enable_flush_to_zero();
#pragma omp parallel num_threads(n)
  enable_flush_to_zero();
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace bb
