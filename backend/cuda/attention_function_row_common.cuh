// Internal to backend/cuda: what every attention function's row math shares. One warp computes a
// row (lane j handles keys j, j+32, ...). The softmax family (t = transform(s), then a softmax) is
// here; each row-kernel function is a RowMath<F> specialisation in
// backend/cuda/attention_functions/NAME.cuh, mirroring the CPU's RowKernel<F>, with
//   __device__ static void forward(float* p, const float* s, const uint8_t* valid, int L, int i);
//   __device__ static void backward(float* ds, const float* g, const float* p, const float* s,
//                                   const uint8_t* valid, int L, int i);
// p(L) from s(L) for the query at position i, masked keys 0, p may be s; ds(L) from g = dL/dp, ds
// may be g. Math: backend/ops.h and backend/cpu/attention_function*.{h,cpp}, which the CUDA tests
// check these against.
#pragma once
#include <cmath>
#include <cstdint>

#include "backend/attention_function.h"
#include "backend/cuda/kernels.cuh"

namespace bb::cuda {

template <AttentionFunction F>
struct RowMath;  // specialised in backend/cuda/attention_functions/NAME.cuh

__device__ inline bool key_is_valid(const uint8_t* valid, int j) { return !valid || valid[j]; }

__device__ inline float warp_min(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fminf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// The row's max over valid keys (-inf if none).
__device__ inline float row_max(const float* s, const uint8_t* valid, int L) {
  float mx = -INFINITY;
  for (int j = threadIdx.x % 32; j < L; j += 32)
    if (key_is_valid(valid, j)) mx = fmaxf(mx, s[j]);
  return warp_max(mx);
}

__device__ inline int valid_count(const uint8_t* valid, int L) {
  if (!valid) return L;
  float n = 0.f;
  for (int j = threadIdx.x % 32; j < L; j += 32) n += valid[j] ? 1.f : 0.f;
  return int(warp_sum(n));
}

// The softmax family's row math: p(L) from s(L), masked keys 0, p may be s (forward); ds(L) from
// g = dL/dp, ds may be g, acc0/acc1 += this lane's part of dL/dv0, dL/dv1 (backward).

// Softmax family: t = s (softmax), sign(s) n log1p(b|s|) (ssa, v0 b, v1 n), s / tau (softmax-t).
// One TransformMath<T> per LogitTransform a row of the table uses, with
//   __device__ static float logit(float s, float v0, float v1);                 // t(s)
//   __device__ static float backward(float dt, float s, float v0, float v1,     // ds from dt = dL/dt,
//                                    float& acc0, float& acc1);                 // acc += dL/dv
// A transform without its specialisation does not compile (incomplete type), as a row-kernel
// function without its RowMath<F>: nvcc does not warn on a missing switch case in device code,
// and an `else return s` would silently compute plain softmax.
template <LogitTransform T>
struct TransformMath;

template <>
struct TransformMath<LogitTransform::identity> {
  __device__ static float logit(float s, float, float) { return s; }
  __device__ static float backward(float dt, float, float, float, float&, float&) { return dt; }
};

// ds = dt n b / (1 + b|s|), db += dt n s / (1 + b|s|), dn += dt sign(s) log1p(b|s|).
template <>
struct TransformMath<LogitTransform::ssa_power> {
  __device__ static float logit(float s, float b, float n) { return ssa_logit(s, b, n); }
  __device__ static float backward(float dt, float s, float b, float n, float& acc0, float& acc1) {
    const float inv = 1.f / (1.f + b * fabsf(s));
    acc0 += dt * n * s * inv;                           // db
    acc1 += dt * sign_of(s) * log1pf(b * fabsf(s));     // dn
    return dt * n * b * inv;
  }
};

// ds = dt / tau, dtau -= dt s / tau^2.
template <>
struct TransformMath<LogitTransform::temperature> {
  __device__ static float logit(float s, float tau, float) { return s / tau; }
  __device__ static float backward(float dt, float s, float tau, float, float& acc0, float&) {
    acc0 -= dt * s / (tau * tau);  // dtau
    return dt / tau;
  }
};

template <LogitTransform transform>
__device__ inline float family_logit(float s, float v0, float v1) {
  return TransformMath<transform>::logit(s, v0, v1);
}

template <LogitTransform transform>
__device__ inline void softmax_family_row(float* p, const float* s, const uint8_t* valid, int L,
                                          float v0, float v1) {
  const int lane = threadIdx.x % 32;
  float mx = -INFINITY;
  for (int j = lane; j < L; j += 32)
    if (key_is_valid(valid, j)) mx = fmaxf(mx, family_logit<transform>(s[j], v0, v1));
  mx = warp_max(mx);
  float sum = 0.f;
  for (int j = lane; j < L; j += 32) {
    const float e = key_is_valid(valid, j) ? expf(family_logit<transform>(s[j], v0, v1) - mx) : 0.f;
    p[j] = e;
    sum += e;
  }
  sum = warp_sum(sum);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;  // a row with no valid key stays all zero
  for (int j = lane; j < L; j += 32) p[j] *= inv;
}

// dt = p (g - p.g); softmax: ds = dt; ssa: ds = dt n b / (1 + b|s|), db += dt n s / (1 + b|s|),
// dn += dt sign(s) log1p(b|s|); softmax-t: ds = dt / tau, dtau -= dt s / tau^2.
template <LogitTransform transform>
__device__ inline void softmax_family_row_backward(float* ds, const float* g, const float* p,
                                                   const float* s, const uint8_t* valid, int L,
                                                   float v0, float v1, float& acc0, float& acc1) {
  const int lane = threadIdx.x % 32;
  float dot = 0.f;
  for (int j = lane; j < L; j += 32)
    if (key_is_valid(valid, j)) dot += p[j] * g[j];
  dot = warp_sum(dot);
  for (int j = lane; j < L; j += 32) {
    if (!key_is_valid(valid, j)) {
      ds[j] = 0.f;
      continue;
    }
    const float dt = p[j] * (g[j] - dot);
    ds[j] = TransformMath<transform>::backward(dt, s[j], v0, v1, acc0, acc1);
  }
}

}  // namespace bb::cuda
