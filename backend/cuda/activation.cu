// GELU (exact erf and tanh forms) and the residual add.
#include <cmath>

#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

__global__ void gelu_fwd(float* out, const float* x, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * x[i] * (1.f + erff(x[i] * 0.70710678118654752f));
}

__global__ void gelu_bwd(float* dx, const float* dout, const float* x, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  dx[i] = dout[i] * (0.5f * (1.f + erff(xi * 0.70710678118654752f)) +
                     xi * expf(-0.5f * xi * xi) * 0.3989422804014327f);
}

// tanh form (backend/cpu/activation.cpp has the derivative).
__global__ void gelu_tanh_fwd(float* out, const float* x, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  out[i] = 0.5f * xi * (1.f + tanhf(0.7978845608028654f * (xi + 0.044715f * xi * xi * xi)));
}

__global__ void gelu_tanh_bwd(float* dx, const float* dout, const float* x, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  const float th = tanhf(0.7978845608028654f * (xi + 0.044715f * xi * xi * xi));
  dx[i] = dout[i] * (0.5f * (1.f + th) + 0.5f * xi * (1.f - th * th) * 0.7978845608028654f *
                                             (1.f + 3.f * 0.044715f * xi * xi));
}

__global__ void add(float* y, const float* x, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}

}  // namespace

void gelu_forward(float* out, const float* x, int64_t n) {
  if (n == 0) return;
  gelu_fwd<<<blocks_for(n, 256), 256, 0, stream()>>>(out, x, n);
  launched("gelu_fwd");
}

void gelu_backward(float* dx, const float* dout, const float* x, int64_t n) {
  if (n == 0) return;
  gelu_bwd<<<blocks_for(n, 256), 256, 0, stream()>>>(dx, dout, x, n);
  launched("gelu_bwd");
}

void gelu_tanh_forward(float* out, const float* x, int64_t n) {
  if (n == 0) return;
  gelu_tanh_fwd<<<blocks_for(n, 256), 256, 0, stream()>>>(out, x, n);
  launched("gelu_tanh_fwd");
}

void gelu_tanh_backward(float* dx, const float* dout, const float* x, int64_t n) {
  if (n == 0) return;
  gelu_tanh_bwd<<<blocks_for(n, 256), 256, 0, stream()>>>(dx, dout, x, n);
  launched("gelu_tanh_bwd");
}

void add_inplace(float* y, const float* x, int64_t n) {
  if (n == 0) return;
  add<<<blocks_for(n, 256), 256, 0, stream()>>>(y, x, n);
  launched("add");
}

}  // namespace bb::cuda
