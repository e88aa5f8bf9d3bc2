// Internal to backend/cuda: sparsemax's and 1.5-entmax's threshold and forward row, which the two
// functions' files share. The threshold is the CPU's sort-based one, found from ranks instead of a
// sort: key j's prefix is {k : z_k >= z_j} (a tie group enters together, as in the sorted order),
// and the support is the largest prefix that meets the algorithm's condition.
#pragma once
#include "backend/cuda/attention_function_row_common.cuh"

namespace bb::cuda {

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

}  // namespace bb::cuda
