// Token + position + token-type embeddings.
#include <algorithm>

#include "backend/cpu/ops.h"

namespace bb::cpu {

template <typename T>
void embedding_forward(T* out, const int32_t* ids, const int32_t* pos, const T* wte, const T* wpe,
                       const T* wtt, int N, int C) {
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int n = 0; n < N; ++n) {
    const T* w = wte + int64_t(ids[n]) * C;
    const T* p = wpe + int64_t(pos[n]) * C;
    T* o = out + int64_t(n) * C;
    for (int c = 0; c < C; ++c) o[c] = w[c] + p[c] + wtt[c];
  }
}

template <typename T>
void embedding_backward(T* dwte, T* dwpe, T* dwtt, const T* dout, const int32_t* ids,
                        const int32_t* pos, int N, int C) {
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
        dwtt[c] += d[c];
      }
    }
  }
}

template void embedding_forward<float>(float*, const int32_t*, const int32_t*, const float*,
                                       const float*, const float*, int, int);
template void embedding_forward<double>(double*, const int32_t*, const int32_t*, const double*,
                                        const double*, const double*, int, int);
template void embedding_backward<float>(float*, float*, float*, const float*, const int32_t*,
                                        const int32_t*, int, int);
template void embedding_backward<double>(double*, double*, double*, const double*, const int32_t*,
                                         const int32_t*, int, int);

}  // namespace bb::cpu
