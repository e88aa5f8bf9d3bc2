// Which CPU kernels this process runs, for the commands above the backend: choosing OpenBLAS's
// core before anything starts, refusing a core this CPU cannot run, and naming what ran in
// provenance records (backend/cpu/blas_core.h has the machinery).
#pragma once
#include <string>

namespace bb {

// Call first in main(), before any thread or MPI starts: if OPENBLAS_CORETYPE is unset and
// OpenBLAS chose narrower kernels than this CPU runs, sets the variable and execv()s
// /proc/self/exe with the same arguments (and returns, changing nothing, if that fails).
void select_blas_core(char** argv);

// The OpenBLAS core select_blas_core sets for this CPU: "SkylakeX" with AVX-512, "Haswell" with
// AVX2 + FMA, else nullptr.
const char* blas_core_for_this_cpu();

// Where the user's OPENBLAS_CORETYPE made OpenBLAS load kernels that need instructions this CPU or
// OS lacks (SkylakeX without AVX-512, Bulldozer without FMA4, ...), which die of SIGILL at the
// first product: what is wrong and what to do, in one line; else "". It judges the core OpenBLAS
// loaded (openblas_get_corename), not the name set: names OpenBLAS does not know, or cannot force
// (Debian's 0.3.21 falls back to its own choice for e.g. Cooperlake), are fine.
std::string unsupported_blas_core();

// What ran, for provenance: e.g. "OpenBLAS 0.3.21, SkylakeX kernels (chosen from cpuid)", preceded
// by "oneDNN 2.6.3 sgemm; " where float GEMMs run on oneDNN (its kernels chosen from cpuid), or by
// "oneDNN 2.6.3 sgemm, weight gradients on OpenBLAS; " where openblas_full_width().
std::string blas_provenance();

// True when OpenBLAS runs kernels as wide as this CPU supports (its own choice, ours after the
// re-exec, or a user's OPENBLAS_CORETYPE that is no narrower); decided once. cpu::gemm<float> then
// runs the products with A transposed (the weight gradients dW = dy^T x, K = the batch's tokens)
// on OpenBLAS, which runs those shapes 1.2-2.4x faster than oneDNN 2.6.3's sgemm on AVX2 and
// about as fast on AVX-512 (bench/gemm_shapes.cpp, bench/RESULTS.md).
bool openblas_full_width();

// C(M,N) = A(M,K) B(K,N) through OpenBLAS itself, row-major (for `bench gemm`: where the build has
// oneDNN, cpu::gemm runs this product on it).
void openblas_sgemm(int M, int N, int K, const float* A, const float* B, float* C);

}  // namespace bb
