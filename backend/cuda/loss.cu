// MLM cross-entropy at the scored rows and target log-probabilities: one block per row.
#include <vector>

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

__global__ void ce_backward(float* dlogits, const float* logits, const float* lse,
                            const int32_t* targets, int V, float scale) {
  const int m = blockIdx.y;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V) return;
  const int64_t i = int64_t(m) * V + v;
  dlogits[i] = expf(logits[i] - lse[m]) * scale - (v == targets[m] ? scale : 0.f);
}

}  // namespace

float cross_entropy_forward(float* lse, const float* logits, const int32_t* targets, int M,
                            int V) {
  if (M == 0) return 0.f;
  float* loss = static_cast<float*>(workspace(sizeof(float) * size_t(M)));
  row_lse<<<M, kThreads, 0, stream()>>>(lse, loss, logits, targets, V);
  launched("row_lse");
  std::vector<float> host(M);
  copy_to_host(host.data(), loss, sizeof(float) * size_t(M));
  float total = 0.f;
  for (float l : host) total += l;  // row order, as the CPU
  return total / float(M);
}

void cross_entropy_backward(float* dlogits, const float* logits, const float* lse,
                            const int32_t* targets, int M, int V, float dloss) {
  if (M == 0) return;
  const dim3 grid(blocks_for(V, kThreads), M);
  ce_backward<<<grid, kThreads, 0, stream()>>>(dlogits, logits, lse, targets, V, dloss / float(M));
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
