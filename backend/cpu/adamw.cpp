// AdamW (PyTorch's formulation) and the gradient norm for global clipping.
#include <omp.h>

#include <cmath>
#include <algorithm>

#include "backend/adamw_coefficients.h"
#include "backend/cpu/ops.h"
#include "backend/precision.h"

namespace bb::cpu {

void sum_squares(double* out, const float* g, int64_t n) {
  // One contiguous slice per thread, each summed in double; slices added in thread order.
  constexpr int kMaxThreads = 256;  // a stack array: no allocation inside the step loop
  const int T = std::min(omp_get_max_threads(), kMaxThreads);
  double part[kMaxThreads] = {};
#pragma omp parallel num_threads(T)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // 8 independent chains: vectorises, fixed order
    int64_t i = lo;
    for (; i + 8 <= hi; i += 8)
      for (int k = 0; k < 8; ++k) acc[k] += double(g[i + k]) * double(g[i + k]);
    for (; i < hi; ++i) acc[0] += double(g[i]) * double(g[i]);
    double s = 0;
    for (double a : acc) s += a;
    part[t] = s;
  }
  double total = 0;
  for (int t = 0; t < T; ++t) total += part[t];
  *out = total;
}

// The update; with a bf16 copy (--precision bf16) each updated weight is also rounded into it, in
// the same pass over memory (the copy is then current without a second read of the weights).
template <bool kCopy>
static void adamw_loop(float* p, const float* g, float* m, float* v, int64_t n,
                       const ops::AdamWStep& s, const ops::AdamWSchedule* schedule,
                       uint16_t* low) {
  const AdamWCoefficients c = adamw_coefficients(s, *schedule);
  // Scalars in locals: read through a struct, the compiler must assume the stores to p, m, v may
  // change them, and the loop stops vectorising (2.5x slower).
  const float grad_scale = c.grad_scale, step_size = c.step_size, inv_sqrt_bc2 = c.inv_sqrt_bc2,
              decay = c.decay, beta1 = s.beta1, beta2 = s.beta2, eps = s.eps;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] * grad_scale;
    m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
    v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    p[i] = p[i] * decay - step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bc2 + eps);
    if constexpr (kCopy) low[i] = to_bf16(p[i]);
  }
}

void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, const ops::AdamWStep& s,
                  const ops::AdamWSchedule* schedule) {
  adamw_loop<false>(p, g, m, v, n, s, schedule, nullptr);
}

void adamw_update_with_bf16_copy(float* p, const float* g, float* m, float* v, int64_t n,
                                 const ops::AdamWStep& s, const ops::AdamWSchedule* schedule,
                                 uint16_t* low) {
  adamw_loop<true>(p, g, m, v, n, s, schedule, low);
}

}  // namespace bb::cpu
