#include "backend/threads.h"

#include <omp.h>
#include <xmmintrin.h>

#include "backend/cpu/blas_core.h"
#include "common/stop_signals.h"

namespace bb {

static void enable_flush_to_zero() { _mm_setcsr(_mm_getcsr() | 0x8040); }  // FTZ | DAZ

void set_threads(int n) {
  if (n <= 0) n = available_cores();
  omp_set_num_threads(n);
  set_blas_threads(n);
  enable_flush_to_zero();
#pragma omp parallel num_threads(n)
  {
    enable_flush_to_zero();
    // Workers started by a thread that had the stop signals blocked inherit that; a pool started
    // from a library caller's thread (the Python module) may not have: block them here
    // (common/stop_signals.h). The calling thread keeps its own mask.
    if (omp_get_thread_num() != 0) block_stop_signals_in_this_thread();
  }
}

int num_threads() { return omp_get_max_threads(); }

int available_cores() { return omp_get_num_procs() > 0 ? omp_get_num_procs() : 1; }

}  // namespace bb
