// GEMM through cuBLAS (row-major wrapper) and nn.Linear on top of it.
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
  if (M == 0 || N == 0) return;
  check(cublasSgemm(cublas(), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                    trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A, lda, &beta, C,
                    ldc),
        "cublasSgemm");
}

namespace {

__global__ void add_bias_rows(float* y, const float* bias, int N, int out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < int64_t(N) * out) y[i] += bias[i % out];
}

// d(C) += sum_n x(n, C): one thread per column, rows in order (deterministic).
__global__ void column_sums(float* d, const float* x, int N, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float s = 0.f;
  for (int n = 0; n < N; ++n) s += x[int64_t(n) * C + c];
  d[c] += s;
}

}  // namespace

void add_column_sums(float* d, const float* x, int N, int C) {
  column_sums<<<blocks_for(C, 128), 128, 0, stream()>>>(d, x, N, C);
  launched("column_sums");
}

void linear_forward(float* y, const float* x, const float* W, const float* bias, int N, int in,
                    int out) {
  gemm(false, true, N, out, in, 1.f, x, in, W, in, 0.f, y, out);
  if (bias && N > 0) {
    add_bias_rows<<<blocks_for(int64_t(N) * out, 256), 256, 0, stream()>>>(y, bias, N, out);
    launched("add_bias_rows");
  }
}

void linear_backward(float* dx, float* dW, float* dbias, const float* dy, const float* x,
                     const float* W, int N, int in, int out) {
  if (dx) gemm(false, false, N, in, out, 1.f, dy, out, W, in, 0.f, dx, in);
  gemm(true, false, out, in, N, 1.f, dy, out, x, in, 1.f, dW, in);
  if (dbias) add_column_sums(dbias, dy, N, out);
}

}  // namespace bb::cuda
