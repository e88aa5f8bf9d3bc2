// LayerNorm over the last dimension (biased variance, as torch.nn.LayerNorm).
#include <cmath>

#include "backend/cpu/dispatch.h"
#include "backend/ops.h"

namespace bb::ops {

template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* x, const T* w, const T* b, int N, int C,
                       T eps) {
  BB_RUN_ON_CUDA(layernorm_forward, out, mean, rstd, x, w, b, N, C, eps);
#pragma omp parallel for schedule(static) if (int64_t(N) * C > 65536)
  for (int n = 0; n < N; ++n) {
    const T* xr = x + int64_t(n) * C;
    T m = 0;
    for (int c = 0; c < C; ++c) m += xr[c];
    m /= C;
    T var = 0;
    for (int c = 0; c < C; ++c) var += (xr[c] - m) * (xr[c] - m);
    var /= C;
    const T r = T(1) / std::sqrt(var + eps);
    T* o = out + int64_t(n) * C;
    for (int c = 0; c < C; ++c) o[c] = (xr[c] - m) * r * w[c] + b[c];
    mean[n] = m;
    rstd[n] = r;
  }
}

template <typename T>
void layernorm_backward(T* dx, T* dw, T* db, const T* dout, const T* x, const T* mean,
                        const T* rstd, const T* w, int N, int C) {
  BB_RUN_ON_CUDA(layernorm_backward, dx, dw, db, dout, x, mean, rstd, w, N, C);
  // norm = (x - mean) rstd; dnorm = dout w;
  // dx = rstd (dnorm - mean_c(dnorm) - norm mean_c(dnorm norm))
#pragma omp parallel for schedule(static) if (int64_t(N) * C > 65536)
  for (int n = 0; n < N; ++n) {
    const T* xr = x + int64_t(n) * C;
    const T* d = dout + int64_t(n) * C;
    const T m = mean[n], r = rstd[n];
    T sum_d = 0, sum_dn = 0;
    for (int c = 0; c < C; ++c) {
      const T dn = d[c] * w[c];
      sum_d += dn;
      sum_dn += dn * (xr[c] - m) * r;
    }
    sum_d /= C;
    sum_dn /= C;
    T* o = dx + int64_t(n) * C;
    for (int c = 0; c < C; ++c) o[c] = r * (d[c] * w[c] - sum_d - (xr[c] - m) * r * sum_dn);
  }
  for (int n = 0; n < N; ++n) {  // parameters: fixed row order, deterministic
    const T* xr = x + int64_t(n) * C;
    const T* d = dout + int64_t(n) * C;
    const T m = mean[n], r = rstd[n];
    for (int c = 0; c < C; ++c) {
      dw[c] += d[c] * (xr[c] - m) * r;
      db[c] += d[c];
    }
  }
}

template void layernorm_forward<float>(float*, float*, float*, const float*, const float*,
                                       const float*, int, int, float);
template void layernorm_forward<double>(double*, double*, double*, const double*, const double*,
                                        const double*, int, int, double);
template void layernorm_backward<float>(float*, float*, float*, const float*, const float*,
                                        const float*, const float*, const float*, int, int);
template void layernorm_backward<double>(double*, double*, double*, const double*, const double*,
                                         const double*, const double*, const double*, int, int);

}  // namespace bb::ops
