// cosFormer on one row i: p_j = s_j c_j / max(sum_k s_k c_k, 1e-6), c_j = cos(pi (i - j) / (2M)),
// M the number of valid keys. Backward: backend/cpu/attention_functions/cosformer.h.
#pragma once
#include "backend/cuda/attention_function_row_common.cuh"

namespace bb::cuda {

__device__ inline float cosformer_weight(int i, int j, int M) {
  return cosf(3.14159265358979f * float(i - j) / float(2 * M));
}

template <>
struct RowMath<AttentionFunction::cosformer> {
  __device__ static void forward(float* p, const float* s, const uint8_t* valid, int L, int i) {
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

  __device__ static void backward(float* ds, const float* g, const float* p, const float* s,
                                  const uint8_t* valid, int L, int i) {
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
};

}  // namespace bb::cuda
