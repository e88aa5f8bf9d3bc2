// sparsemax on one row: p = [s - max - tau]_+ (sparse_threshold.cuh). Backward on the support
// S = {p > 0}: ds = g - mean_S(g); 0 elsewhere.
#pragma once
#include "backend/cuda/attention_function_row_common.cuh"
#include "backend/cuda/sparse_threshold.cuh"

namespace bb::cuda {

template <>
struct RowMath<AttentionFunction::sparsemax> {
  __device__ static void forward(float* p, const float* s, const uint8_t* valid, int L, int /*i*/) {
    sparse_row(false, p, s, valid, L);
  }

  __device__ static void backward(float* ds, const float* g, const float* p, const float* /*s*/,
                                  const uint8_t* valid, int L, int /*i*/) {
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
};

}  // namespace bb::cuda
