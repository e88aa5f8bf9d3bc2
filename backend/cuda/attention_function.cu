// Attention functions over rows of scores with a key mask (one warp per row; the row
// math is attention_function_row.cuh), and the trainable values' effective form. See backend/ops.h
// and backend/cpu/attention_function.cpp with backend/cpu/attention_functions/ for the math.
#include <cmath>

#include "backend/cuda/attention_function_row.cuh"
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

constexpr int kWarps = 4;

// The keys row r sees: all L, or the first r + 1 when causal (the rest get P = 0, dS = 0).
__device__ inline int row_keys(bool causal, int r, int L) { return causal ? min(r + 1, L) : L; }

__global__ void score_rows(float* P, const float* S, const uint8_t* valid, int R, int L,
                           AttentionFunction kind, float v0, float v1, bool causal) {
  const int r = blockIdx.x * kWarps + threadIdx.x / 32;
  if (r >= R) return;
  const int Lr = row_keys(causal, r, L);
  warp_attention_row(kind, P + int64_t(r) * L, S + int64_t(r) * L, valid, Lr, r, v0, v1);
  for (int j = Lr + threadIdx.x % 32; j < L; j += 32) P[int64_t(r) * L + j] = 0.f;
}

// dS =; the row's contributions to dv0, dv1 go to part[2r], part[2r+1].
__global__ void score_rows_backward(float* dS, float* part, const float* dP, const float* P,
                                    const float* S, const uint8_t* valid, int R, int L,
                                    AttentionFunction kind, float v0, float v1, bool causal) {
  const int r = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (r >= R) return;
  const int64_t at = int64_t(r) * L;
  const int Lr = row_keys(causal, r, L);
  float acc0 = 0.f, acc1 = 0.f;
  warp_attention_row_backward(kind, dS + at, dP + at, P + at, S + at, valid, Lr, r, v0, v1, acc0,
                              acc1);
  for (int j = Lr + lane; j < L; j += 32) dS[at + j] = 0.f;
  acc0 = warp_sum(acc0);
  acc1 = warp_sum(acc1);
  if (lane == 0) part[2 * r] = acc0, part[2 * r + 1] = acc1;
}

// dv0 += sum_r part[2r], dv1 += sum_r part[2r+1], rows in order (deterministic).
__global__ void sum_parts(float* dv0, float* dv1, const float* part, int R) {
  float s0 = 0.f, s1 = 0.f;
  for (int r = 0; r < R; ++r) s0 += part[2 * r], s1 += part[2 * r + 1];
  if (dv0) *dv0 += s0;
  if (dv1) *dv1 += s1;
}

__global__ void effective(float* v0, float* v1, const float* raw0, const float* raw1, int H) {
  const int h = threadIdx.x;
  if (h >= H) return;
  v0[h] = expf(raw0[h]);
  if (raw1) v1[h] = 1.f + expf(raw1[h]);
}

__global__ void raw_grads(float* draw0, float* draw1, const float* dv0, const float* dv1,
                          const float* v0, const float* v1, int H, bool freeze0, bool freeze1) {
  const int h = threadIdx.x;
  if (h >= H) return;
  if (draw0 && !freeze0) draw0[h] += dv0[h] * v0[h];
  if (draw1 && !freeze1) draw1[h] += dv1[h] * (v1[h] - 1.f);
}

}  // namespace

void attention_function_forward(float* P, const float* S, const uint8_t* key_valid, int R, int L,
                                AttentionFunction kind, float v0, float v1, bool causal) {
  if (R == 0) return;
  score_rows<<<blocks_for(R, kWarps), 32 * kWarps, 0, stream()>>>(P, S, key_valid, R, L, kind, v0,
                                                                  v1, causal);
  launched("score_rows");
}

void attention_function_backward(float* dS, float* dv0, float* dv1, const float* dP, const float* P,
                                 const float* S, const uint8_t* key_valid, int R, int L,
                                 AttentionFunction kind, float v0, float v1, bool causal) {
  if (R == 0) return;
  float* part = static_cast<float*>(workspace(sizeof(float) * 2 * size_t(R)));
  score_rows_backward<<<blocks_for(R, kWarps), 32 * kWarps, 0, stream()>>>(
      dS, part, dP, P, S, key_valid, R, L, kind, v0, v1, causal);
  launched("score_rows_backward");
  if (head_value_count(kind) > 0 && (dv0 || dv1)) {
    sum_parts<<<1, 1, 0, stream()>>>(dv0, dv1, part, R);
    launched("sum_parts");
  }
}

void head_values_effective(float* v0, float* v1, const float* raw0, const float* raw1, int H) {
  effective<<<1, 32 * ((H + 31) / 32), 0, stream()>>>(v0, v1, raw0, raw1, H);
  launched("effective");
}

void head_values_raw_grads(float* draw0, float* draw1, const float* dv0, const float* dv1,
                           const float* v0, const float* v1, int H, bool freeze0, bool freeze1) {
  raw_grads<<<1, 32 * ((H + 31) / 32), 0, stream()>>>(draw0, draw1, dv0, dv1, v0, v1, H, freeze0,
                                                      freeze1);
  launched("raw_grads");
}

}  // namespace bb::cuda
