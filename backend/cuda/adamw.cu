// AdamW (PyTorch's formulation) and the gradient norm for global clipping.
#include <cmath>

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

__global__ void adamw(float* p, const float* g, float* m, float* v, int64_t n, float beta1,
                      float beta2, float eps, float grad_scale, float step_size,
                      float inv_sqrt_bc2, float decay) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float gi = g[i] * grad_scale;
  m[i] = beta1 * m[i] + (1.f - beta1) * gi;
  v[i] = beta2 * v[i] + (1.f - beta2) * gi * gi;
  p[i] = p[i] * decay - step_size * m[i] / (sqrtf(v[i]) * inv_sqrt_bc2 + eps);
}

}  // namespace

double sum_squares(const float* g, int64_t n) {
  if (n == 0) return 0.0;
  double* part = static_cast<double*>(workspace(sizeof(double) * (kBlocks + 1)));
  square_partials<<<kBlocks, kThreads, 0, stream()>>>(part, g, n);
  launched("square_partials");
  sum_partials<<<1, 1, 0, stream()>>>(part + kBlocks, part, kBlocks);
  launched("sum_partials");
  double total = 0.0;
  copy_to_host(&total, part + kBlocks, sizeof(double));
  return total;
}

void adamw_update(float* p, const float* g, float* m, float* v, int64_t n,
                  const ops::AdamWStep& s) {
  if (n == 0) return;
  const double bc1 = s.bias_correction ? 1.0 - std::pow(double(s.beta1), double(s.step)) : 1.0;
  const double bc2 = s.bias_correction ? 1.0 - std::pow(double(s.beta2), double(s.step)) : 1.0;
  adamw<<<blocks_for(n, 256), 256, 0, stream()>>>(
      p, g, m, v, n, s.beta1, s.beta2, s.eps, s.grad_scale, float(s.lr / bc1),
      float(1.0 / std::sqrt(bc2)), 1.0f - s.lr * s.weight_decay);
  launched("adamw");
}

}  // namespace bb::cuda
