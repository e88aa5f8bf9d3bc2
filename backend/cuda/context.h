// Internal to backend/cuda/: error checks (defined in device.cpp, so no fmt in nvcc code), the
// stream and the cuBLAS handle. Host C++; kernels add kernels.cuh.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/device.h"

namespace bb::cuda {

void check(cudaError_t e, const char* what);
void check(cublasStatus_t s, const char* what);
cudaStream_t stream();
cublasHandle_t cublas();

// d(C) += column sums of x(N, C), rows in order (deterministic); backend/cuda/linear.cu.
void add_column_sums(float* d, const float* x, int N, int C);

inline int blocks_for(int64_t n, int threads) { return int((n + threads - 1) / threads); }
// After a launch: report a bad configuration at once (execution errors surface at synchronize).
inline void launched(const char* kernel) { check(cudaGetLastError(), kernel); }

}  // namespace bb::cuda
