// Cross-entropy at the scored rows, and row log-softmax for probing.
#include <Eigen/Core>
#include <cmath>

#include "backend/cpu/dispatch.h"
#include "backend/ops.h"

namespace bb::ops {

namespace {
template <typename T>
using RowArray = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// log sum_v exp(x_v), vectorised (Eigen's exp); the max is subtracted first.
template <typename T>
T row_lse(const T* x, int V) {
  const RowArray<T> row(x, V);
  const T mx = row.maxCoeff();
  return mx + std::log((row - mx).exp().sum());
}
}  // namespace

template <typename T>
T cross_entropy_forward(T* lse, const T* logits, const int32_t* targets, int M, int V) {
  BB_RUN_ON_CUDA(cross_entropy_forward, lse, logits, targets, M, V);
#pragma omp parallel for schedule(static)
  for (int m = 0; m < M; ++m) lse[m] = row_lse(logits + int64_t(m) * V, V);
  T total = 0;
  for (int m = 0; m < M; ++m) total += lse[m] - logits[int64_t(m) * V + targets[m]];
  return M > 0 ? total / M : T(0);
}

template <typename T>
void cross_entropy_backward(T* dlogits, const T* logits, const T* lse, const int32_t* targets,
                            int M, int V, T dloss) {
  BB_RUN_ON_CUDA(cross_entropy_backward, dlogits, logits, lse, targets, M, V, dloss);
  const T scale = M > 0 ? dloss / M : T(0);
#pragma omp parallel for schedule(static)
  for (int m = 0; m < M; ++m) {
    const T* x = logits + int64_t(m) * V;
    T* d = dlogits + int64_t(m) * V;
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(d, V) =
        (RowArray<T>(x, V) - lse[m]).exp() * scale;
    d[targets[m]] -= scale;
  }
}

template <typename T>
void target_log_probs(T* logp, const T* logits, const int32_t* targets, int M, int V) {
  BB_RUN_ON_CUDA(target_log_probs, logp, logits, targets, M, V);
#pragma omp parallel for schedule(static)
  for (int m = 0; m < M; ++m) {
    const T* x = logits + int64_t(m) * V;
    logp[m] = x[targets[m]] - row_lse(x, V);
  }
}

template float cross_entropy_forward<float>(float*, const float*, const int32_t*, int, int);
template double cross_entropy_forward<double>(double*, const double*, const int32_t*, int, int);
template void cross_entropy_backward<float>(float*, const float*, const float*, const int32_t*,
                                            int, int, float);
template void cross_entropy_backward<double>(double*, const double*, const double*,
                                             const int32_t*, int, int, double);
template void target_log_probs<float>(float*, const float*, const int32_t*, int, int);
template void target_log_probs<double>(double*, const double*, const int32_t*, int, int);

}  // namespace bb::ops
