// 1.5-entmax on one row: p = [(s - max)/2 - tau]_+^2 (sparse_threshold.cuh). Backward with
// r = sqrt(p): ds = r g - (sum r g / sum r) r.
#pragma once
#include "backend/cuda/attention_function_row_common.cuh"
#include "backend/cuda/sparse_threshold.cuh"

namespace bb::cuda {

template <>
struct RowMath<AttentionFunction::entmax15> {
  __device__ static void forward(float* p, const float* s, const uint8_t* valid, int L, int /*i*/) {
    sparse_row(true, p, s, valid, L);
  }

  __device__ static void backward(float* ds, const float* g, const float* p, const float* /*s*/,
                                  const uint8_t* valid, int L, int /*i*/) {
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
};

}  // namespace bb::cuda
