// Exact-erf GELU, the residual add and dropout (the CPU's Philox masks, element for element).
#include <cmath>

#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"
#include "backend/dropout_draw.h"

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

__global__ void add(float* y, const float* x, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}

// draw.key is replaced by *key (device memory: a captured step reads each step's key).
__global__ void dropout_fwd(float* out, float* mask, const float* x, const int64_t* row_ids, int N,
                            int C, DropoutDraw draw, const uint64_t* key) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= int64_t(N) * C) return;
  if (draw.on) draw.key = *key;
  const float m = draw.mask(uint64_t(row_ids[i / C]), int(i % C));
  mask[i] = m;
  out[i] = x[i] * m;
}

__global__ void multiply(float* dx, const float* dout, const float* mask, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = dout[i] * mask[i];
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

void add_inplace(float* y, const float* x, int64_t n) {
  if (n == 0) return;
  add<<<blocks_for(n, 256), 256, 0, stream()>>>(y, x, n);
  launched("add");
}

void dropout_forward(float* out, float* mask, const float* x, const int64_t* row_ids, int N,
                     int C, float p, const uint64_t* key) {
  if (N == 0) return;
  dropout_fwd<<<blocks_for(int64_t(N) * C, 256), 256, 0, stream()>>>(
      out, mask, x, row_ids, N, C, DropoutDraw::make(p, 0), key);
  launched("dropout_fwd");
}

void dropout_backward(float* dx, const float* dout, const float* mask, int64_t n) {
  if (n == 0) return;
  multiply<<<blocks_for(n, 256), 256, 0, stream()>>>(dx, dout, mask, n);
  launched("multiply");
}

}  // namespace bb::cuda
