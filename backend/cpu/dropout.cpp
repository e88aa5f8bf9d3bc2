// Inverted dropout with a counter-based mask (see dropout_mask.h).
#include "backend/cpu/dropout_mask.h"
#include "backend/cpu/ops.h"

namespace bb::cpu {

template <typename T>
void dropout_forward(T* out, T* mask, const T* x, const int64_t* row_ids, int N, int C, float p,
                     const uint64_t* key) {
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int n = 0; n < N; ++n) {
    T* mr = mask + int64_t(n) * C;
    if (p > 0) {
      dropout_mask_row(mr, *key, uint64_t(row_ids[n]), C, p);
    } else {
      for (int c = 0; c < C; ++c) mr[c] = T(1);
    }
    const T* xr = x + int64_t(n) * C;
    T* o = out + int64_t(n) * C;
    for (int c = 0; c < C; ++c) o[c] = xr[c] * mr[c];
  }
}

template <typename T>
void dropout_backward(T* dx, const T* dout, const T* mask, int64_t n) {
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (int64_t i = 0; i < n; ++i) dx[i] = dout[i] * mask[i];
}

template void dropout_forward<float>(float*, float*, const float*, const int64_t*, int, int, float,
                                     const uint64_t*);
template void dropout_forward<double>(double*, double*, const double*, const int64_t*, int, int,
                                      float, const uint64_t*);
template void dropout_backward<float>(float*, const float*, const float*, int64_t);
template void dropout_backward<double>(double*, const double*, const double*, int64_t);

}  // namespace bb::cpu
