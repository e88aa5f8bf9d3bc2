// LayerNorm over the last dimension (biased variance): one warp per row.
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

constexpr int kRowsPerBlock = 8;  // 8 warps

__global__ void ln_forward(float* out, float* mean, float* rstd, const float* x, const float* w,
                           const float* b, int N, int C, float eps) {
  const int n = blockIdx.x * kRowsPerBlock + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (n >= N) return;
  const float* xr = x + int64_t(n) * C;
  float s = 0.f;
  for (int c = lane; c < C; c += 32) s += xr[c];
  const float m = warp_sum(s) / C;
  float v = 0.f;
  for (int c = lane; c < C; c += 32) v += (xr[c] - m) * (xr[c] - m);
  const float r = 1.f / sqrtf(warp_sum(v) / C + eps);
  float* o = out + int64_t(n) * C;
  for (int c = lane; c < C; c += 32) o[c] = (xr[c] - m) * r * w[c] + b[c];
  if (lane == 0) mean[n] = m, rstd[n] = r;
}

// dx = rstd (dnorm - mean_c(dnorm) - norm mean_c(dnorm norm)), dnorm = dout w
__global__ void ln_backward_x(float* dx, const float* dout, const float* x, const float* mean,
                              const float* rstd, const float* w, int N, int C) {
  const int n = blockIdx.x * kRowsPerBlock + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (n >= N) return;
  const float* xr = x + int64_t(n) * C;
  const float* d = dout + int64_t(n) * C;
  const float m = mean[n], r = rstd[n];
  float sd = 0.f, sdn = 0.f;
  for (int c = lane; c < C; c += 32) {
    const float dn = d[c] * w[c];
    sd += dn;
    sdn += dn * (xr[c] - m) * r;
  }
  sd = warp_sum(sd) / C;
  sdn = warp_sum(sdn) / C;
  float* o = dx + int64_t(n) * C;
  for (int c = lane; c < C; c += 32) o[c] = r * (d[c] * w[c] - sd - (xr[c] - m) * r * sdn);
}

// dw, db (C) += sums over rows, one thread per column, rows in order (deterministic).
__global__ void ln_backward_params(float* dw, float* db, const float* dout, const float* x,
                                   const float* mean, const float* rstd, int N, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float sw = 0.f, sb = 0.f;
  for (int n = 0; n < N; ++n) {
    const float d = dout[int64_t(n) * C + c];
    sw += d * (x[int64_t(n) * C + c] - mean[n]) * rstd[n];
    sb += d;
  }
  dw[c] += sw;
  db[c] += sb;
}

}  // namespace

void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* w,
                       const float* b, int N, int C, float eps) {
  if (N == 0) return;
  ln_forward<<<blocks_for(N, kRowsPerBlock), 32 * kRowsPerBlock, 0, stream()>>>(
      out, mean, rstd, x, w, b, N, C, eps);
  launched("ln_forward");
}

void layernorm_backward(float* dx, float* dw, float* db, const float* dout, const float* x,
                        const float* mean, const float* rstd, const float* w, int N, int C) {
  if (N == 0) return;
  ln_backward_x<<<blocks_for(N, kRowsPerBlock), 32 * kRowsPerBlock, 0, stream()>>>(
      dx, dout, x, mean, rstd, w, N, C);
  launched("ln_backward_x");
  ln_backward_params<<<blocks_for(C, 128), 128, 0, stream()>>>(dw, db, dout, x, mean, rstd, N, C);
  launched("ln_backward_params");
}

}  // namespace bb::cuda
