// MLM cross-entropy at the scored rows and target log-probabilities: one block per row.
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"

namespace bb::cuda {

namespace {

constexpr int kThreads = 256;

// lse[m] = log sum_v exp(x_v) (max subtracted); loss[m] = lse - x[target] when loss is set.
__global__ void row_lse(float* lse, float* loss, const float* logits, const int32_t* targets,
                        int V) {
  const int m = blockIdx.x;
  const float* x = logits + int64_t(m) * V;
  float mx = -INFINITY;
  for (int v = threadIdx.x; v < V; v += blockDim.x) mx = fmaxf(mx, x[v]);
  mx = block_max(mx);
  float s = 0.f;
  for (int v = threadIdx.x; v < V; v += blockDim.x) s += expf(x[v] - mx);
  s = block_sum(s);
  if (threadIdx.x == 0) {
    const float l = mx + logf(s);
    if (lse) lse[m] = l;
    if (loss) loss[m] = l - x[targets[m]];
  }
}

// loss = sum over rows with a target >= 0 of (lse - x[target]), in row order as the CPU, / their
// count. One thread: M is the handful of masked rows of a training batch.
__global__ void mean_loss(float* loss, const float* lse, const float* logits,
                          const int32_t* targets, int M, int V) {
  float total = 0.f;
  int counted = 0;
  for (int m = 0; m < M; ++m) {
    if (targets[m] < 0) continue;
    total += lse[m] - logits[int64_t(m) * V + targets[m]];
    ++counted;
  }
  *loss = counted > 0 ? total / float(counted) : 0.f;
}

// dlogits of row m (blockIdx.x: rows may outnumber gridDim.y's 65,535), the columns of blockIdx.y:
// softmax - one-hot, times dloss / (the number of rows with a target >= 0). Every block counts
// those rows with all its threads (M / 256 each; float is exact below 2^24) before any thread
// leaves: a packed causal batch scores thousands of rows.
__global__ void ce_backward(float* dlogits, const float* logits, const float* lse,
                            const int32_t* targets, int M, int V, float dloss) {
  float counted = 0.f;
  for (int k = threadIdx.x; k < M; k += blockDim.x) counted += targets[k] >= 0 ? 1.f : 0.f;
  counted = block_sum(counted);
  const int m = blockIdx.x;
  const int v = blockIdx.y * blockDim.x + threadIdx.x;
  if (v >= V) return;
  const int64_t i = int64_t(m) * V + v;
  if (targets[m] < 0) {
    dlogits[i] = 0.f;
    return;
  }
  const float scale = counted > 0.f ? dloss / counted : 0.f;
  dlogits[i] = expf(logits[i] - lse[m]) * scale - (v == targets[m] ? scale : 0.f);
}

}  // namespace

void cross_entropy_forward(float* loss, float* lse, const float* logits, const int32_t* targets,
                           int M, int V) {
  if (M > 0) {
    row_lse<<<M, kThreads, 0, stream()>>>(lse, nullptr, logits, targets, V);
    launched("row_lse");
  }
  mean_loss<<<1, 1, 0, stream()>>>(loss, lse, logits, targets, M, V);
  launched("mean_loss");
}

void cross_entropy_backward(float* dlogits, const float* logits, const float* lse,
                            const int32_t* targets, int M, int V, float dloss) {
  if (M == 0) return;
  const dim3 grid(M, blocks_for(V, kThreads));
  ce_backward<<<grid, kThreads, 0, stream()>>>(dlogits, logits, lse, targets, M, V, dloss);
  launched("ce_backward");
}

void target_log_probs(float* logp, const float* logits, const int32_t* targets, int M, int V) {
  if (M == 0) return;
  // loss[m] = lse - x[target] = -logp: computed into logp, then negated.
  row_lse<<<M, kThreads, 0, stream()>>>(nullptr, logp, logits, targets, V);
  launched("row_lse");
  constexpr float minus_one = -1.f;
  check(cublasSscal(cublas(), M, &minus_one, logp, 1), "cublasSscal");
}

}  // namespace bb::cuda
