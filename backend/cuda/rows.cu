// Row gather / scatter for the LM head, and zero fills.
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

__global__ void gather(float* out, const float* x, const int32_t* rows, int M, int C) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < int64_t(M) * C) out[i] = x[int64_t(rows[i / C]) * C + i % C];
}

// Rows are distinct in practice (scored positions), but a thread per (m, c) adding with atomics
// would make repeated rows order-dependent; instead each (m, c) adds only if m is the first
// occurrence of its row, summing all occurrences in order.
__global__ void scatter(float* dx, const float* d, const int32_t* rows, int M, int C) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= int64_t(M) * C) return;
  const int m = int(i / C), c = int(i % C), row = rows[m];
  for (int k = 0; k < m; ++k)
    if (rows[k] == row) return;
  float s = 0.f;
  for (int k = m; k < M; ++k)
    if (rows[k] == row) s += d[int64_t(k) * C + c];
  dx[int64_t(row) * C + c] += s;
}

}  // namespace

void gather_rows(float* out, const float* x, const int32_t* rows, int M, int C) {
  if (M == 0) return;
  gather<<<blocks_for(int64_t(M) * C, 256), 256, 0, stream()>>>(out, x, rows, M, C);
  launched("gather");
}

void scatter_rows(float* dx, const float* d, const int32_t* rows, int M, int N, int C) {
  fill_zero(dx, int64_t(N) * C);
  if (M == 0) return;
  scatter<<<blocks_for(int64_t(M) * C, 256), 256, 0, stream()>>>(dx, d, rows, M, C);
  launched("scatter");
}

void fill_zero(float* p, int64_t n) { fill_zero(static_cast<void*>(p), sizeof(float) * size_t(n)); }

}  // namespace bb::cuda
