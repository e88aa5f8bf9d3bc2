// Attention scoring functions over rows of scores: softmax and SSA, with a key mask (one warp per
// row), and SSA's effective parameters from its raw ones. See backend/ops.h and
// backend/cpu/scoring.cpp for the math.
#include <cmath>

#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

constexpr int kWarps = 4;

__global__ void score_rows(float* P, const float* S, const uint8_t* valid, int R, int L, bool ssa,
                           float b, float n) {
  const int r = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (r >= R) return;
  const float* s = S + int64_t(r) * L;
  float* p = P + int64_t(r) * L;
  float mx = -INFINITY;
  for (int j = lane; j < L; j += 32)
    if (!valid || valid[j]) mx = fmaxf(mx, ssa ? ssa_logit(s[j], b, n) : s[j]);
  mx = warp_max(mx);
  float sum = 0.f;
  for (int j = lane; j < L; j += 32) {
    const float e = (!valid || valid[j]) ? expf((ssa ? ssa_logit(s[j], b, n) : s[j]) - mx) : 0.f;
    p[j] = e;
    sum += e;
  }
  sum = warp_sum(sum);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;  // a row with no valid key stays all zero
  for (int j = lane; j < L; j += 32) p[j] *= inv;
}

// dS =; for ssa the row's contributions to db, dn go to part[2r], part[2r+1].
__global__ void score_rows_backward(float* dS, float* part, const float* dP, const float* P,
                                    const float* S, const uint8_t* valid, int R, int L, bool ssa,
                                    float b, float n) {
  const int r = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (r >= R) return;
  const float* p = P + int64_t(r) * L;
  const float* g = dP + int64_t(r) * L;
  const float* s = S + int64_t(r) * L;
  float* d = dS + int64_t(r) * L;
  float dot = 0.f;
  for (int j = lane; j < L; j += 32)
    if (!valid || valid[j]) dot += p[j] * g[j];
  dot = warp_sum(dot);
  float acc_b = 0.f, acc_n = 0.f;
  for (int j = lane; j < L; j += 32) {
    if (valid && !valid[j]) {
      d[j] = 0.f;
      continue;
    }
    const float dt = p[j] * (g[j] - dot);
    if (!ssa) {
      d[j] = dt;
      continue;
    }
    const float inv = 1.f / (1.f + b * fabsf(s[j]));
    d[j] = dt * n * b * inv;
    acc_n += dt * sign_of(s[j]) * log1pf(b * fabsf(s[j]));
    acc_b += dt * n * s[j] * inv;
  }
  acc_b = warp_sum(acc_b);
  acc_n = warp_sum(acc_n);
  if (ssa && lane == 0) part[2 * r] = acc_b, part[2 * r + 1] = acc_n;
}

// db += sum_r part[2r], dn += sum_r part[2r+1], rows in order (deterministic).
__global__ void sum_parts(float* db, float* dn, const float* part, int R) {
  float sb = 0.f, sn = 0.f;
  for (int r = 0; r < R; ++r) sb += part[2 * r], sn += part[2 * r + 1];
  if (db) *db += sb;
  if (dn) *dn += sn;
}

__global__ void effective(float* b, float* n, const float* beta, const float* nu, int H) {
  const int h = threadIdx.x;
  if (h >= H) return;
  b[h] = expf(beta[h]);
  n[h] = 1.f + expf(nu[h]);
}

__global__ void raw_grads(float* dbeta, float* dnu, const float* db, const float* dn,
                          const float* b, const float* n, int H, bool freeze_b, bool freeze_n) {
  const int h = threadIdx.x;
  if (h >= H) return;
  if (!freeze_b) dbeta[h] += db[h] * b[h];
  if (!freeze_n) dnu[h] += dn[h] * (n[h] - 1.f);
}

}  // namespace

void scoring_forward(float* P, const float* S, const uint8_t* key_valid, int R, int L,
                     Scoring kind, float b, float n) {
  if (R == 0) return;
  score_rows<<<blocks_for(R, kWarps), 32 * kWarps, 0, stream()>>>(P, S, key_valid, R, L,
                                                                  kind == Scoring::ssa, b, n);
  launched("score_rows");
}

void scoring_backward(float* dS, float* db, float* dn, const float* dP, const float* P,
                      const float* S, const uint8_t* key_valid, int R, int L, Scoring kind,
                      float b, float n) {
  if (R == 0) return;
  const bool ssa = kind == Scoring::ssa;
  float* part = static_cast<float*>(workspace(sizeof(float) * 2 * size_t(R)));
  score_rows_backward<<<blocks_for(R, kWarps), 32 * kWarps, 0, stream()>>>(
      dS, part, dP, P, S, key_valid, R, L, ssa, b, n);
  launched("score_rows_backward");
  if (ssa && (db || dn)) {
    sum_parts<<<1, 1, 0, stream()>>>(db, dn, part, R);
    launched("sum_parts");
  }
}

void ssa_effective(float* b, float* n, const float* beta, const float* nu, int H) {
  effective<<<1, 32 * ((H + 31) / 32), 0, stream()>>>(b, n, beta, nu, H);
  launched("effective");
}

void ssa_raw_grads(float* dbeta, float* dnu, const float* db, const float* dn, const float* b,
                   const float* n, int H, bool freeze_b, bool freeze_n) {
  raw_grads<<<1, 32 * ((H + 31) / 32), 0, stream()>>>(dbeta, dnu, db, dn, b, n, H, freeze_b,
                                                      freeze_n);
  launched("raw_grads");
}

}  // namespace bb::cuda
