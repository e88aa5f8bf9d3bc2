// Token + position embeddings; a row added onto every row (RoBERTa's token type).
#include <algorithm>

#include "backend/cpu/ops.h"

namespace bb::cpu {

template <typename T>
void embedding_forward(T* out, const int32_t* ids, const int32_t* pos, const T* wte, const T* wpe,
                       int N, int C) {
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int n = 0; n < N; ++n) {
    const T* w = wte + int64_t(ids[n]) * C;
    const T* p = wpe + int64_t(pos[n]) * C;
    T* o = out + int64_t(n) * C;
    for (int c = 0; c < C; ++c) o[c] = w[c] + p[c];
  }
}

template <typename T>
void embedding_backward(T* dwte, T* dwpe, const T* dout, const int32_t* ids, const int32_t* pos,
                        int N, int C) {
  // Rows may share a token id: each thread owns a block of columns and adds the rows into it in
  // their fixed order, so sums are deterministic and independent of the thread count.
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int c0 = 0; c0 < C; c0 += kColumnBlock) {
    const int c1 = std::min(C, c0 + kColumnBlock);
    for (int n = 0; n < N; ++n) {
      const T* d = dout + int64_t(n) * C;
      T* w = dwte + int64_t(ids[n]) * C;
      T* p = dwpe + int64_t(pos[n]) * C;
      for (int c = c0; c < c1; ++c) {
        w[c] += d[c];
        p[c] += d[c];
      }
    }
  }
}

template <typename T>
void add_row_forward(T* x, const T* row, int N, int C) {
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int n = 0; n < N; ++n) {
    T* o = x + int64_t(n) * C;
    for (int c = 0; c < C; ++c) o[c] += row[c];
  }
}

template <typename T>
void add_row_backward(T* drow, const T* dx, int N, int C) {
  // Each thread owns a block of columns and sums the rows in order (deterministic).
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int c0 = 0; c0 < C; c0 += kColumnBlock) {
    const int c1 = std::min(C, c0 + kColumnBlock);
    for (int n = 0; n < N; ++n) {
      const T* d = dx + int64_t(n) * C;
      for (int c = c0; c < c1; ++c) drow[c] += d[c];
    }
  }
}

#define BB_INSTANTIATE(T)                                                                         \
  template void embedding_forward<T>(T*, const int32_t*, const int32_t*, const T*, const T*, int, \
                                     int);                                                        \
  template void embedding_backward<T>(T*, T*, const T*, const int32_t*, const int32_t*, int, int); \
  template void add_row_forward<T>(T*, const T*, int, int);                                       \
  template void add_row_backward<T>(T*, const T*, int, int);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
#undef BB_INSTANTIATE

}  // namespace bb::cpu
