// LayerNorm over the last dimension (biased variance, as torch.nn.LayerNorm).
// Rows are Eigen arrays so that the row sums vectorise (a plain loop's float sum cannot).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "backend/cpu/ops.h"

namespace bb::cpu {

namespace {
template <typename T>
using Vec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using CVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
}  // namespace

template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* x, const T* w, const T* b, int N, int C,
                       T eps) {
  const CVec<T> wv(w, C), bv(b, C);
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int n = 0; n < N; ++n) {
    const CVec<T> xr(x + int64_t(n) * C, C);
    const T m = xr.mean();
    const T r = T(1) / std::sqrt((xr - m).square().mean() + eps);
    Vec<T>(out + int64_t(n) * C, C) = (xr - m) * r * wv + bv;
    mean[n] = m;
    rstd[n] = r;
  }
}

template <typename T>
void layernorm_backward(T* dx, T* dw, T* db, const T* dout, const T* x, const T* mean,
                        const T* rstd, const T* w, int N, int C) {
  // norm = (x - mean) rstd; dnorm = dout w;
  // dx = rstd (dnorm - mean_c(dnorm) - norm mean_c(dnorm norm))
  const CVec<T> wv(w, C);
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int n = 0; n < N; ++n) {
    const CVec<T> d(dout + int64_t(n) * C, C), xr(x + int64_t(n) * C, C);
    // Expressions over the named maps above (kept as expressions: each is read twice, cheaply).
    const auto norm = (xr - mean[n]) * rstd[n];
    const auto dn = d * wv;
    const T mean_dn = dn.mean(), mean_dn_norm = (dn * norm).mean();
    Vec<T>(dx + int64_t(n) * C, C) = rstd[n] * (dn - mean_dn - norm * mean_dn_norm);
  }
  // Parameters: column blocks in parallel, rows in fixed order within each (deterministic).
#pragma omp parallel for schedule(static) if (int64_t(N) * C > kParallelMin)
  for (int c0 = 0; c0 < C; c0 += kColumnBlock) {
    const int w = std::min(kColumnBlock, C - c0);
    Vec<T> dwv(dw + c0, w), dbv(db + c0, w);
    for (int n = 0; n < N; ++n) {
      const CVec<T> d(dout + int64_t(n) * C + c0, w);
      dwv += d * ((CVec<T>(x + int64_t(n) * C + c0, w) - mean[n]) * rstd[n]);
      dbv += d;
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

}  // namespace bb::cpu
