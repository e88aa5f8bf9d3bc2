// Losses on one prediction per scored row (backend/ops.h, PointLoss; backend/cpu/point_loss.cpp
// is the reference): one block sums the rows in a fixed order, so the loss is deterministic.
#include <cmath>

#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

constexpr int kThreads = 256;

__device__ inline float point_loss(float x, float t, ops::PointLoss kind) {
  if (kind == ops::PointLoss::bce_logits) return fmaxf(x, 0.f) - x * t + log1pf(expf(-fabsf(x)));
  return (x - t) * (x - t);
}

__device__ inline float point_loss_grad(float x, float t, ops::PointLoss kind) {
  if (kind == ops::PointLoss::bce_logits) {
    const float e = expf(-fabsf(x));
    return (x >= 0.f ? 1.f / (1.f + e) : e / (1.f + e)) - t;
  }
  return 2.f * (x - t);
}

__global__ void loss_fwd(float* loss, const float* pred, const float* target, int M,
                         ops::PointLoss kind) {
  float acc = 0.f;
  for (int m = threadIdx.x; m < M; m += kThreads) acc += point_loss(pred[m], target[m], kind);
  acc = block_sum(acc);
  if (threadIdx.x == 0) *loss = M > 0 ? acc / float(M) : 0.f;
}

__global__ void loss_bwd(float* dpred, const float* pred, const float* target, int M,
                         ops::PointLoss kind, float dloss) {
  const int m = blockIdx.x * kThreads + threadIdx.x;
  if (m < M) dpred[m] = dloss * point_loss_grad(pred[m], target[m], kind) / float(M);
}

}  // namespace

void point_loss_forward(float* loss, const float* pred, const float* target, int M,
                        ops::PointLoss kind) {
  loss_fwd<<<1, kThreads, 0, stream()>>>(loss, pred, target, M, kind);
  launched("point_loss_fwd");
}

void point_loss_backward(float* dpred, const float* pred, const float* target, int M,
                         ops::PointLoss kind, float dloss) {
  if (M == 0) return;
  loss_bwd<<<blocks_for(M, kThreads), kThreads, 0, stream()>>>(dpred, pred, target, M, kind,
                                                               dloss);
  launched("point_loss_bwd");
}

}  // namespace bb::cuda
