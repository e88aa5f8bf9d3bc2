// bf16 products on oneDNN's matmul (AMX-BF16 or AVX512-BF16): bf16 inputs, fp32 accumulation and
// output. One primitive per shape, created on first use and cached (bucketed batches vary the row
// count). backend/precision.h says when they run.
#pragma once
#include <cstdint>
#include <string>

namespace bb::cpu {

// C(M,N) = op(A) op(B) (+ C when accumulate), row-major, op = transpose where ta/tb; A and B bf16.
void gemm_bf16(bool ta, bool tb, int M, int N, int K, const uint16_t* A, int lda,
               const uint16_t* B, int ldb, bool accumulate, float* C, int ldc);
// oneDNN's default fpmath mode set to strict, once per process, before any fp32 product: no
// environment variable (DNNL_DEFAULT_FPMATH_MODE=BF16) can turn "fp32" into implicit bf16 or tf32.
void keep_fp32_strict();
// Why bf16 cannot run here ("" when it can): no oneDNN in this build, or a CPU without AMX-BF16
// and AVX512-BF16.
std::string bf16_unavailable();
std::string bf16_isa();     // "avx512_core_amx", "avx512_core_bf16" or ""
std::string bf16_kernel();  // oneDNN's implementation of a (192 x 256) x (256 x 768) product

}  // namespace bb::cpu
