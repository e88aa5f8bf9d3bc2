// Internal to backend/cuda/*.cu: launch helpers, warp and block reductions.
#pragma once
#include "backend/cuda/context.h"

namespace bb::cuda {

__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ inline float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// Sum over a block of blockDim.x threads (a multiple of 32, at most 1024); every thread gets it.
template <typename T>
__device__ inline T block_sum(T v) {
  __shared__ T part[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_sum(v);
  __syncthreads();  // part may still be read by a previous call
  if (lane == 0) part[warp] = v;
  __syncthreads();
  T total = 0;
  for (int w = 0; w < warps; ++w) total += part[w];  // fixed order: deterministic
  return total;
}
__device__ inline float block_max(float v) {
  __shared__ float part[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) part[warp] = v;
  __syncthreads();
  float m = part[0];
  for (int w = 1; w < warps; ++w) m = fmaxf(m, part[w]);
  return m;
}

}  // namespace bb::cuda

namespace bb::cuda {

// SSA in log space: t = sign(s) n log1p(b|s|) (backend/cpu/attention_function.cpp).
__device__ inline float ssa_logit(float s, float b, float n) {
  const float a = log1pf(b * fabsf(s)) * n;
  return s < 0.f ? -a : (s > 0.f ? a : 0.f);
}
__device__ inline float sign_of(float s) { return s < 0.f ? -1.f : (s > 0.f ? 1.f : 0.f); }

}  // namespace bb::cuda
