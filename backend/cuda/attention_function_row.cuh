// Internal to backend/cuda: the seven scoring functions over one row, computed by one warp (lane
// j handles keys j, j+32, ...). Shared by the standalone scoring op (scoring.cu) and the fused
// attention kernels (attention.cu). Math: backend/ops.h and backend/cpu/scoring*.cpp, which the
// CUDA tests check these against. sparsemax and entmax15 find the same threshold as the CPU's
// sort-based algorithm from ranks instead of a sort: key j's prefix is {k : z_k >= z_j} (a tie
// group enters together, as in the sorted order), and the support is the largest prefix that
// meets the algorithm's condition.
#pragma once
#include <cmath>

#include "backend/attention_function.h"
#include "backend/cuda/kernels.cuh"

namespace bb::cuda {

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

// Among lanes, the (count, value) pair with the largest count (the support's prefix).
__device__ inline void warp_take_largest(int& count, float& value) {
  for (int o = 16; o > 0; o >>= 1) {
    const int c = __shfl_xor_sync(0xffffffffu, count, o);
    const float v = __shfl_xor_sync(0xffffffffu, value, o);
    if (c > count) count = c, value = v;
  }
}

// The threshold of sparsemax (z = s - max) or 1.5-entmax (z = (s - max)/2): key j's prefix is
// {k : z_k >= z_j}, with count c, sum and sum of squares. sparsemax: in the support when
// 1 + c z_j > sum, tau_c = (sum - 1)/c. entmax15: tau_c = mean - sqrt(max((1 - c (meansq -
// mean^2)) / c, 0)), in the support when tau_c <= z_j. tau = tau_c of the largest prefix in the
// support.
__device__ inline float sparse_threshold(bool entmax, const float* s, const uint8_t* valid, int L,
                                         float mx) {
  const float scale = entmax ? 0.5f : 1.f;
  int best = 0;
  float tau = 0.f;
  for (int j = threadIdx.x % 32; j < L; j += 32) {
    if (!key_is_valid(valid, j)) continue;
    const float zj = scale * (s[j] - mx);
    int c = 0;
    float sum = 0.f, sumsq = 0.f;
    for (int k = 0; k < L; ++k) {
      const float zk = scale * (s[k] - mx);
      if (key_is_valid(valid, k) && zk >= zj) ++c, sum += zk, sumsq += zk * zk;
    }
    float t;
    bool in_support;
    if (entmax) {
      const float mean = sum / c, ss = c * (sumsq / c - mean * mean);
      t = mean - sqrtf(fmaxf((1.f - ss) / c, 0.f));
      in_support = t <= zj;
    } else {
      t = (sum - 1.f) / c;
      in_support = 1.f + c * zj > sum;
    }
    if (in_support && c > best) best = c, tau = t;
  }
  warp_take_largest(best, tau);
  return tau;
}

// sa-softmax's row statistics over the valid keys: min, max and sum_j exp(s_j - max).
__device__ inline void sa_softmax_row_stats(const float* s, const uint8_t* valid, int L,
                                            float& mn, float& mx, float& sum) {
  mn = INFINITY;
  for (int j = threadIdx.x % 32; j < L; j += 32)
    if (key_is_valid(valid, j)) mn = fminf(mn, s[j]);
  mn = warp_min(mn);
  mx = row_max(s, valid, L);
  sum = 0.f;
  for (int j = threadIdx.x % 32; j < L; j += 32)
    if (key_is_valid(valid, j)) sum += expf(s[j] - mx);
  sum = warp_sum(sum);
}

__device__ inline float cosformer_weight(int i, int j, int M) {
  return cosf(3.14159265358979f * float(i - j) / float(2 * M));
}

__device__ inline int valid_count(const uint8_t* valid, int L) {
  if (!valid) return L;
  float n = 0.f;
  for (int j = threadIdx.x % 32; j < L; j += 32) n += valid[j] ? 1.f : 0.f;
  return int(warp_sum(n));
}

// Each function's row math: p(L) from s(L) for query row i (cosformer's position), masked keys 0,
// p may be s (forward); ds(L) from g = dL/dp, ds may be g, acc0/acc1 += this lane's part of
// dL/dv0, dL/dv1 (backward).

// Softmax family: t = s (softmax), sign(s) n log1p(b|s|) (ssa, v0 b, v1 n), s / tau (softmax-t).
template <AttentionFunction kind>
__device__ inline float family_logit(float s, float v0, float v1) {
  if constexpr (kind == AttentionFunction::ssa)
    return ssa_logit(s, v0, v1);
  else if constexpr (kind == AttentionFunction::softmax_t)
    return s / v0;
  else
    return s;
}

template <AttentionFunction kind>
__device__ inline void softmax_family_row(float* p, const float* s, const uint8_t* valid, int L,
                                          float v0, float v1) {
  const int lane = threadIdx.x % 32;
  float mx = -INFINITY;
  for (int j = lane; j < L; j += 32)
    if (key_is_valid(valid, j)) mx = fmaxf(mx, family_logit<kind>(s[j], v0, v1));
  mx = warp_max(mx);
  float sum = 0.f;
  for (int j = lane; j < L; j += 32) {
    const float e = key_is_valid(valid, j) ? expf(family_logit<kind>(s[j], v0, v1) - mx) : 0.f;
    p[j] = e;
    sum += e;
  }
  sum = warp_sum(sum);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;  // a row with no valid key stays all zero
  for (int j = lane; j < L; j += 32) p[j] *= inv;
}

// dt = p (g - p.g); softmax: ds = dt; ssa: ds = dt n b / (1 + b|s|), db += dt n s / (1 + b|s|),
// dn += dt sign(s) log1p(b|s|); softmax-t: ds = dt / tau, dtau -= dt s / tau^2.
template <AttentionFunction kind>
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
    if constexpr (kind == AttentionFunction::ssa) {
      const float inv = 1.f / (1.f + v0 * fabsf(s[j]));
      ds[j] = dt * v1 * v0 * inv;
      acc0 += dt * v1 * s[j] * inv;                           // db
      acc1 += dt * sign_of(s[j]) * log1pf(v0 * fabsf(s[j]));  // dn
    } else if constexpr (kind == AttentionFunction::softmax_t) {
      ds[j] = dt / v0;
      acc0 -= dt * s[j] / (v0 * v0);  // dtau
    } else {
      ds[j] = dt;
    }
  }
}

// sparsemax (entmax = false) and 1.5-entmax: p = [z - tau]_+ (squared for entmax).
__device__ inline void sparse_row(bool entmax, float* p, const float* s, const uint8_t* valid,
                                  int L) {
  const int lane = threadIdx.x % 32;
  const float mx = row_max(s, valid, L);
  const float tau = sparse_threshold(entmax, s, valid, L, mx);
  __syncwarp();  // every lane has read s before p (which may be s) is written
  for (int j = lane; j < L; j += 32) {
    if (!key_is_valid(valid, j)) {
      p[j] = 0.f;
      continue;
    }
    const float x = fmaxf((entmax ? 0.5f * (s[j] - mx) : s[j] - mx) - tau, 0.f);
    p[j] = entmax ? x * x : x;
  }
}

__device__ inline void sparsemax_row_backward(float* ds, const float* g, const float* p,
                                              const uint8_t* valid, int L) {
  const int lane = threadIdx.x % 32;
  float sum = 0.f, support = 0.f;
  for (int j = lane; j < L; j += 32)
    if (key_is_valid(valid, j) && p[j] > 0.f) sum += g[j], support += 1.f;
  sum = warp_sum(sum);
  support = warp_sum(support);
  const float mean = support > 0.f ? sum / support : 0.f;
  for (int j = lane; j < L; j += 32)
    ds[j] = key_is_valid(valid, j) && p[j] > 0.f ? g[j] - mean : 0.f;
}

__device__ inline void entmax15_row_backward(float* ds, const float* g, const float* p,
                                             const uint8_t* valid, int L) {
  const int lane = threadIdx.x % 32;
  float rg = 0.f, r = 0.f;
  for (int j = lane; j < L; j += 32)
    if (key_is_valid(valid, j)) rg += sqrtf(p[j]) * g[j], r += sqrtf(p[j]);
  rg = warp_sum(rg);
  r = warp_sum(r);
  const float q = r > 0.f ? rg / r : 0.f;
  for (int j = lane; j < L; j += 32)
    ds[j] = key_is_valid(valid, j) ? sqrtf(p[j]) * (g[j] - q) : 0.f;
}

__device__ inline void sa_softmax_row(float* p, const float* s, const uint8_t* valid, int L) {
  const int lane = threadIdx.x % 32;
  float mn, mx, sum;
  sa_softmax_row_stats(s, valid, L, mn, mx, sum);
  const float lo = mn < 0.f ? mn : 0.f, hi = mx > 0.f ? mx : 0.f;
  const float D = hi - lo + 1e-6f;
  for (int j = lane; j < L; j += 32)
    p[j] = key_is_valid(valid, j) ? expf(s[j] - mx) / sum * ((s[j] - lo) / D) : 0.f;
}

__device__ inline void sa_softmax_row_backward(float* ds, const float* g, const float* p,
                                               const float* s, const uint8_t* valid, int L) {
  const int lane = threadIdx.x % 32;
  float mn, mx, sum;
  sa_softmax_row_stats(s, valid, L, mn, mx, sum);
  float A = 0.f, B = 0.f, n_min = 0.f, n_max = 0.f;
  for (int j = lane; j < L; j += 32) {
    if (!key_is_valid(valid, j)) continue;
    A += g[j] * expf(s[j] - mx) / sum;
    B += g[j] * p[j];
    n_min += s[j] == mn ? 1.f : 0.f;
    n_max += s[j] == mx ? 1.f : 0.f;
  }
  A = warp_sum(A), B = warp_sum(B), n_min = warp_sum(n_min), n_max = warp_sum(n_max);
  const float lo = mn < 0.f ? mn : 0.f, hi = mx > 0.f ? mx : 0.f;
  const float D = hi - lo + 1e-6f;
  for (int j = lane; j < L; j += 32) {
    if (!key_is_valid(valid, j)) {
      ds[j] = 0.f;
      continue;
    }
    const float sigma = expf(s[j] - mx) / sum, w = (s[j] - lo) / D;
    float d = sigma * (g[j] * w - B) + g[j] * sigma / D;
    if (mn < 0.f && s[j] == mn) d += (B - A) / D / n_min;
    if (mx > 0.f && s[j] == mx) d -= B / D / n_max;
    ds[j] = d;
  }
}

__device__ inline void cosformer_row(float* p, const float* s, const uint8_t* valid, int L, int i) {
  const int lane = threadIdx.x % 32;
  const int M = valid_count(valid, L);
  float Z = 0.f;
  for (int j = lane; j < L; j += 32)
    if (key_is_valid(valid, j)) Z += s[j] * cosformer_weight(i, j, M);
  Z = warp_sum(Z);
  const float inv = 1.f / fmaxf(Z, 1e-6f);
  for (int j = lane; j < L; j += 32)
    p[j] = key_is_valid(valid, j) ? s[j] * cosformer_weight(i, j, M) * inv : 0.f;
}

__device__ inline void cosformer_row_backward(float* ds, const float* g, const float* p,
                                              const float* s, const uint8_t* valid, int L, int i) {
  const int lane = threadIdx.x % 32;
  const int M = valid_count(valid, L);
  float Z = 0.f, dot = 0.f;
  for (int j = lane; j < L; j += 32)
    if (key_is_valid(valid, j)) Z += s[j] * cosformer_weight(i, j, M), dot += g[j] * p[j];
  Z = warp_sum(Z);
  dot = warp_sum(dot);
  const float D = fmaxf(Z, 1e-6f), through_sum = Z >= 1e-6f ? dot : 0.f;
  for (int j = lane; j < L; j += 32)
    ds[j] = key_is_valid(valid, j) ? (g[j] - through_sum) / D * cosformer_weight(i, j, M) : 0.f;
}

// The dispatch: __host__ __device__ so that nvcc's host pass checks the switch for every
// function (it does not for a __device__-only one, and there is no `default`); the calls are
// compiled in the device pass only (BB_DEVICE_CALL).
#ifdef __CUDA_ARCH__
#define BB_DEVICE_CALL(call) call
#else
#define BB_DEVICE_CALL(call) ((void)0)
#endif

// p(L) = f(s(L)) for query row i (cosformer's position); masked keys 0. p may be s.
__host__ __device__ inline void warp_attention_row(
    AttentionFunction kind, [[maybe_unused]] float* p, [[maybe_unused]] const float* s,
    [[maybe_unused]] const uint8_t* valid, [[maybe_unused]] int L, [[maybe_unused]] int i,
    [[maybe_unused]] float v0, [[maybe_unused]] float v1) {
  using F = AttentionFunction;
  switch (kind) {
    case F::softmax:
      BB_DEVICE_CALL((softmax_family_row<F::softmax>(p, s, valid, L, v0, v1)));
      return;
    case F::ssa: BB_DEVICE_CALL((softmax_family_row<F::ssa>(p, s, valid, L, v0, v1))); return;
    case F::softmax_t:
      BB_DEVICE_CALL((softmax_family_row<F::softmax_t>(p, s, valid, L, v0, v1)));
      return;
    case F::sparsemax: BB_DEVICE_CALL(sparse_row(false, p, s, valid, L)); return;
    case F::entmax15: BB_DEVICE_CALL(sparse_row(true, p, s, valid, L)); return;
    case F::sa_softmax: BB_DEVICE_CALL(sa_softmax_row(p, s, valid, L)); return;
    case F::cosformer: BB_DEVICE_CALL(cosformer_row(p, s, valid, L, i)); return;
  }
}

// ds(L) from g = dL/dp (ds may be g); acc0, acc1 += this lane's part of dL/dv0, dL/dv1.
__host__ __device__ inline void warp_attention_row_backward(
    AttentionFunction kind, [[maybe_unused]] float* ds, [[maybe_unused]] const float* g,
    [[maybe_unused]] const float* p, [[maybe_unused]] const float* s,
    [[maybe_unused]] const uint8_t* valid, [[maybe_unused]] int L, [[maybe_unused]] int i,
    [[maybe_unused]] float v0, [[maybe_unused]] float v1, [[maybe_unused]] float& acc0,
    [[maybe_unused]] float& acc1) {
  using F = AttentionFunction;
  switch (kind) {
    case F::softmax:
      BB_DEVICE_CALL(
          (softmax_family_row_backward<F::softmax>(ds, g, p, s, valid, L, v0, v1, acc0, acc1)));
      return;
    case F::ssa:
      BB_DEVICE_CALL(
          (softmax_family_row_backward<F::ssa>(ds, g, p, s, valid, L, v0, v1, acc0, acc1)));
      return;
    case F::softmax_t:
      BB_DEVICE_CALL(
          (softmax_family_row_backward<F::softmax_t>(ds, g, p, s, valid, L, v0, v1, acc0, acc1)));
      return;
    case F::sparsemax: BB_DEVICE_CALL(sparsemax_row_backward(ds, g, p, valid, L)); return;
    case F::entmax15: BB_DEVICE_CALL(entmax15_row_backward(ds, g, p, valid, L)); return;
    case F::sa_softmax: BB_DEVICE_CALL(sa_softmax_row_backward(ds, g, p, s, valid, L)); return;
    case F::cosformer: BB_DEVICE_CALL(cosformer_row_backward(ds, g, p, s, valid, L, i)); return;
  }
}

#undef BB_DEVICE_CALL

}  // namespace bb::cuda
