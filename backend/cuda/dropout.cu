// Inverted dropout: the CPU's Philox masks (backend/dropout_draw.h), element for element.
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"
#include "backend/dropout_draw.h"

namespace bb::cuda {

namespace {

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
