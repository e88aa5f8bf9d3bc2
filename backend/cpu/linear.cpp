// GEMM and nn.Linear built on it. float runs on oneDNN's sgemm where the build has oneDNN: it
// picks its kernels from cpuid (whatever OPENBLAS_CORETYPE says) and, on the training step's
// forward and input-gradient shapes (rows 20-400, one dimension 256), is 1.15-1.2x OpenBLAS's best
// kernels on 1 thread, up to 2x on the tied decoder's. The weight gradients (A transposed) run on
// OpenBLAS when its kernels are full width, where they are 1.05-2.4x faster than oneDNN's
// (bench/RESULTS.md). double (the gradient tests) and builds without oneDNN use OpenBLAS's cblas.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend/cpu/bf16_gemm.h"
#include "backend/cpu/blas_core.h"
#include "backend/cpu/ops.h"
#include "backend/precision.h"
#include "common/error.h"

#ifdef BABYBERTA_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>

#include <string>
#endif

namespace bb::cpu {

static CBLAS_TRANSPOSE tr(bool t) { return t ? CblasTrans : CblasNoTrans; }

template <>
void gemm<float>(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
                 const float* B, int ldb, float beta, float* C, int ldc) {
#ifdef BABYBERTA_HAVE_ONEDNN
  keep_fp32_strict();
  // A transposed: the weight gradients (M, N = a layer's sizes, K = tokens), where OpenBLAS's
  // full-width kernels beat oneDNN's sgemm (blas_core.h). dnnl_sgemm is row-major, like cblas.
  if (ta && openblas_full_width()) {  // OpenBLAS only prints its complaint: check as oneDNN does
    BB_CHECK(M >= 0 && N >= 0 && K >= 0 && lda >= std::max(1, M) &&
                 ldb >= std::max(1, tb ? K : N) && ldc >= std::max(1, N),
             "bad sgemm arguments: a {}x{}x{} product with lda {}, ldb {}, ldc {}", M, N, K, lda,
             ldb, ldc);
    cblas_sgemm(CblasRowMajor, tr(ta), tr(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  const dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  BB_CHECK(st == dnnl_success, "oneDNN sgemm failed ({}) on a {}x{}x{} product", int(st), M, N, K);
#else
  cblas_sgemm(CblasRowMajor, tr(ta), tr(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
}

const char* sgemm_backend() {
#ifdef BABYBERTA_HAVE_ONEDNN
  static const std::string name = [] {
    const dnnl_version_t* v = dnnl_version();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch);
  }();
  return name.c_str();
#else
  return nullptr;
#endif
}
template <>
void gemm<double>(bool ta, bool tb, int M, int N, int K, double alpha, const double* A, int lda,
                  const double* B, int ldb, double beta, double* C, int ldc) {
  cblas_dgemm(CblasRowMajor, tr(ta), tr(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// --precision bf16 (backend/precision.h): W's bf16 copy when a PrecisionScope holds W's buffer,
// else null (fp32).
template <typename T>
static const uint16_t* bf16_weight(const T* W) {
  if constexpr (std::is_same_v<T, float>) {
    if (const LowPrecisionWeights* lp = current_low_precision()) return lp->of(W);
  }
  return nullptr;
}

// An activation cast to bf16 at the product, in one of two scratch buffers of the calling thread.
static const uint16_t* bf16_scratch(int which, const float* x, int64_t n) {
  thread_local std::vector<uint16_t> buffers[2];
  std::vector<uint16_t>& b = buffers[which];
  if (b.size() < size_t(n)) b.resize(size_t(n));
  to_bf16(b.data(), x, n);
  return b.data();
}

template <typename T>
void linear_forward(T* y, const T* x, const T* W, const T* bias, int N, int in, int out) {
  // y = bias broadcast, then y += x W^T
  for (int n = 0; n < N; ++n) std::memcpy(y + int64_t(n) * out, bias, sizeof(T) * out);
  if constexpr (std::is_same_v<T, float>) {
    if (const uint16_t* Wb = bf16_weight(W)) {
      gemm_bf16(false, true, N, out, in, bf16_scratch(0, x, int64_t(N) * in), in, Wb, in, true, y,
                out);
      return;
    }
  }
  gemm<T>(false, true, N, out, in, T(1), x, in, W, in, T(1), y, out);
}

// dbias += column sums of dy: column blocks in parallel, rows in fixed order (deterministic).
template <typename T>
static void add_column_sums(T* dbias, const T* dy, int N, int out) {
#pragma omp parallel for schedule(static) if (int64_t(N) * out > kParallelMin)
  for (int o0 = 0; o0 < out; o0 += kColumnBlock) {
    const int o1 = std::min(out, o0 + kColumnBlock);
    for (int n = 0; n < N; ++n) {
      const T* row = dy + int64_t(n) * out;
      for (int o = o0; o < o1; ++o) dbias[o] += row[o];
    }
  }
}

template <typename T>
void linear_backward(T* dx, T* dW, T* dbias, const T* dy, const T* x, const T* W, int N, int in,
                     int out) {
  if (dbias) add_column_sums(dbias, dy, N, out);  // fp32 in either precision
  if constexpr (std::is_same_v<T, float>) {
    if (const uint16_t* Wb = bf16_weight(W)) {
      const uint16_t* dyb = bf16_scratch(0, dy, int64_t(N) * out);
      if (dx) gemm_bf16(false, false, N, in, out, dyb, out, Wb, in, false, dx, in);  // (N,in)
      gemm_bf16(true, false, out, in, N, dyb, out, bf16_scratch(1, x, int64_t(N) * in), in, true,
                dW, in);  // (out,in)
      return;
    }
  }
  if (dx) gemm<T>(false, false, N, in, out, T(1), dy, out, W, in, T(0), dx, in);  // (N,in)
  gemm<T>(true, false, out, in, N, T(1), dy, out, x, in, T(1), dW, in);            // (out,in)
}

template void linear_forward<float>(float*, const float*, const float*, const float*, int, int, int);
template void linear_forward<double>(double*, const double*, const double*, const double*, int, int,
                                     int);
template void linear_backward<float>(float*, float*, float*, const float*, const float*,
                                     const float*, int, int, int);
template void linear_backward<double>(double*, double*, double*, const double*, const double*,
                                      const double*, int, int, int);

}  // namespace bb::cpu
