// Row gather / scatter for the LM head, and zero fills.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "backend/cpu/ops.h"

namespace bb::cpu {

template <typename T>
void gather_rows(T* out, const T* x, const int32_t* rows, int M, int C) {
  for (int m = 0; m < M; ++m)
    std::memcpy(out + int64_t(m) * C, x + int64_t(rows[m]) * C, sizeof(T) * C);
}

template <typename T>
void scatter_rows(T* dx, const T* d, const int32_t* rows, int M, int N, int C) {
  std::fill(dx, dx + int64_t(N) * C, T(0));
  for (int m = 0; m < M; ++m) {
    T* o = dx + int64_t(rows[m]) * C;
    const T* r = d + int64_t(m) * C;
    for (int c = 0; c < C; ++c) o[c] += r[c];
  }
}

template <typename T>
void fill_zero(T* p, int64_t n) {
  // One contiguous slice per thread (the gradients: 8.5M values every training step).
  if (n <= 16 * kParallelMin) return std::fill(p, p + n, T(0));
#pragma omp parallel
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    std::fill(p + n * t / nt, p + n * (t + 1) / nt, T(0));
  }
}

#define BB_INSTANTIATE(T)                                                     \
  template void gather_rows<T>(T*, const T*, const int32_t*, int, int);       \
  template void scatter_rows<T>(T*, const T*, const int32_t*, int, int, int); \
  template void fill_zero<T>(T*, int64_t);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
#undef BB_INSTANTIATE

}  // namespace bb::cpu
