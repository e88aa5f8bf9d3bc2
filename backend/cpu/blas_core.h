// OpenBLAS picks its kernels once, when the library loads: from OPENBLAS_CORETYPE if set, else from
// its own table of CPUs. Debian bookworm's 0.3.21 does not know recent CPUs (e.g. AVX-512 Xeons,
// AMD Zen 5) and then runs its generic SSE3 "Prescott" kernels, 3-5x slower. select_blas_core()
// chooses the core from what this CPU and OS support and, when the user has not set the variable,
// re-executes the binary with it set, so every command (and every child process) gets the fast
// kernels without the user doing anything.
#pragma once
#include <string>

#include "backend/kernel_choice.h"

namespace bb {

// What this CPU and its OS run, from cpuid and XGETBV (XCR0's YMM and, for AVX-512, opmask/ZMM
// bits): all false off x86-64.
struct CpuFeatures {
  bool avx = false, fma4 = false, avx2_fma = false, avx512 = false;  // avx512: F, BW, VL, DQ
};
CpuFeatures cpu_features();


// unsupported_blas_core() as a pure function: `set` is the variable's value (nullptr: unset),
// `loaded` the core.
std::string unsupported_core_message(const char* set, const char* loaded, const CpuFeatures& cpu);



// OpenBLAS's thread count (backend/threads.h sets it together with OpenMP's).
void set_blas_threads(int n);


}  // namespace bb
