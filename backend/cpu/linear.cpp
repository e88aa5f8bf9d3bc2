// GEMM through OpenBLAS cblas, and nn.Linear built on it.
#include <cblas.h>

#include <cstring>

#include "backend/cpu/ops.h"

namespace bb::cpu {

static CBLAS_TRANSPOSE tr(bool t) { return t ? CblasTrans : CblasNoTrans; }

template <>
void gemm<float>(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
                 const float* B, int ldb, float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, tr(ta), tr(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
template <>
void gemm<double>(bool ta, bool tb, int M, int N, int K, double alpha, const double* A, int lda,
                  const double* B, int ldb, double beta, double* C, int ldc) {
  cblas_dgemm(CblasRowMajor, tr(ta), tr(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <typename T>
void linear_forward(T* y, const T* x, const T* W, const T* bias, int N, int in, int out) {
  // y = bias broadcast, then y += x W^T
  for (int n = 0; n < N; ++n) std::memcpy(y + int64_t(n) * out, bias, sizeof(T) * out);
  gemm<T>(false, true, N, out, in, T(1), x, in, W, in, T(1), y, out);
}

template <typename T>
void linear_backward(T* dx, T* dW, T* dbias, const T* dy, const T* x, const T* W, int N, int in,
                     int out) {
  if (dx) gemm<T>(false, false, N, in, out, T(1), dy, out, W, in, T(0), dx, in);  // (N,in)
  gemm<T>(true, false, out, in, N, T(1), dy, out, x, in, T(1), dW, in);            // (out,in)
  for (int n = 0; n < N; ++n) {
    const T* row = dy + int64_t(n) * out;
    for (int o = 0; o < out; ++o) dbias[o] += row[o];
  }
}

template void linear_forward<float>(float*, const float*, const float*, const float*, int, int, int);
template void linear_forward<double>(double*, const double*, const double*, const double*, int, int,
                                     int);
template void linear_backward<float>(float*, float*, float*, const float*, const float*,
                                     const float*, int, int, int);
template void linear_backward<double>(double*, double*, double*, const double*, const double*,
                                      const double*, int, int, int);

}  // namespace bb::cpu
