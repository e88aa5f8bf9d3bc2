// AdamW (PyTorch's formulation) and the gradient norm for global clipping.
#include "backend/adamw_coefficients.h"
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

constexpr int kBlocks = 256, kThreads = 256;

// Fixed grid and strides: every element always lands in the same partial, so the result does
// not depend on scheduling.
__global__ void square_partials(double* part, const float* g, int64_t n) {
  double s = 0.0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    s += double(g[i]) * double(g[i]);
  s = block_sum(s);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void sum_partials(double* out, const double* part, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += part[i];
  *out = s;
}

// The schedule is read from device memory (a captured step's values change every replay); one
// thread per block computes the coefficients.
__global__ void adamw(float* p, const float* g, float* m, float* v, int64_t n, ops::AdamWStep s,
                      const ops::AdamWSchedule* schedule) {
  __shared__ AdamWCoefficients c;
  if (threadIdx.x == 0) c = adamw_coefficients(s, *schedule);
  __syncthreads();
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float gi = g[i] * c.grad_scale;
  m[i] = s.beta1 * m[i] + (1.f - s.beta1) * gi;
  v[i] = s.beta2 * v[i] + (1.f - s.beta2) * gi * gi;
  p[i] = p[i] * c.decay - c.step_size * m[i] / (sqrtf(v[i]) * c.inv_sqrt_bc2 + s.eps);
}

}  // namespace

void sum_squares(double* out, const float* g, int64_t n) {
  double* part = static_cast<double*>(workspace(sizeof(double) * kBlocks));
  square_partials<<<kBlocks, kThreads, 0, stream()>>>(part, g, n);  // n = 0: zero partials
  launched("square_partials");
  sum_partials<<<1, 1, 0, stream()>>>(out, part, kBlocks);
  launched("sum_partials");
}

void adamw_update(float* p, const float* g, float* m, float* v, int64_t n,
                  const ops::AdamWStep& s, const ops::AdamWSchedule* schedule) {
  if (n == 0) return;
  adamw<<<blocks_for(n, 256), 256, 0, stream()>>>(p, g, m, v, n, s, schedule);
  launched("adamw");
}

}  // namespace bb::cuda
