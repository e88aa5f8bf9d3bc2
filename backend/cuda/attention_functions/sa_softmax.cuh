// Self-adjusting softmax on one row: p_j = softmax(s)_j (s_j - lo) / (hi - lo + 1e-6), lo = min(0,
// min s), hi = max(0, max s); rows do not sum to 1. Backward: backend/cpu/attention_functions/
// sa_softmax.h.
#pragma once
#include "backend/cuda/attention_function_row_common.cuh"

namespace bb::cuda {

// sa-softmax's row statistics over the valid keys: min, max and sum_j exp(s_j - max).
__device__ inline void sa_softmax_row_stats(const float* s, const uint8_t* valid, int L, float& mn,
                                            float& mx, float& sum) {
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

template <>
struct RowMath<AttentionFunction::sa_softmax> {
  __device__ static void forward(float* p, const float* s, const uint8_t* valid, int L, int /*i*/) {
    const int lane = threadIdx.x % 32;
    float mn, mx, sum;
    sa_softmax_row_stats(s, valid, L, mn, mx, sum);
    const float lo = mn < 0.f ? mn : 0.f, hi = mx > 0.f ? mx : 0.f;
    const float D = hi - lo + 1e-6f;
    for (int j = lane; j < L; j += 32)
      p[j] = key_is_valid(valid, j) ? expf(s[j] - mx) / sum * ((s[j] - lo) / D) : 0.f;
  }

  __device__ static void backward(float* ds, const float* g, const float* p, const float* s,
                                  const uint8_t* valid, int L, int /*i*/) {
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
};

}  // namespace bb::cuda
