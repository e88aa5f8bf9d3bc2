// Cross-entropy at the scored rows, and row log-softmax for probing.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "backend/cpu/ops.h"

namespace bb::cpu {

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
void cross_entropy_forward(T* loss, T* lse, const T* logits, const int32_t* targets, int M,
                           int V) {
#pragma omp parallel for schedule(static)
  for (int m = 0; m < M; ++m) lse[m] = row_lse(logits + int64_t(m) * V, V);
  T total = 0;
  int counted = 0;
  for (int m = 0; m < M; ++m) {
    if (targets[m] < 0) continue;
    total += lse[m] - logits[int64_t(m) * V + targets[m]];
    ++counted;
  }
  *loss = counted > 0 ? total / T(counted) : T(0);
}

template <typename T>
void cross_entropy_backward(T* dlogits, const T* logits, const T* lse, const int32_t* targets,
                            int M, int V, T dloss) {
  const int counted = int(std::count_if(targets, targets + M, [](int32_t t) { return t >= 0; }));
  const T scale = counted > 0 ? dloss / T(counted) : T(0);
#pragma omp parallel for schedule(static)
  for (int m = 0; m < M; ++m) {
    const T* x = logits + int64_t(m) * V;
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> d(dlogits + int64_t(m) * V, V);
    if (targets[m] < 0) {
      d.setZero();
      continue;
    }
    d = (RowArray<T>(x, V) - lse[m]).exp() * scale;
    d[targets[m]] -= scale;
  }
}

template <typename T>
void target_log_probs(T* logp, const T* logits, const int32_t* targets, int M, int V) {
#pragma omp parallel for schedule(static)
  for (int m = 0; m < M; ++m) {
    const T* x = logits + int64_t(m) * V;
    logp[m] = x[targets[m]] - row_lse(x, V);
  }
}

template void cross_entropy_forward<float>(float*, float*, const float*, const int32_t*, int, int);
template void cross_entropy_forward<double>(double*, double*, const double*, const int32_t*, int,
                                            int);
template void cross_entropy_backward<float>(float*, const float*, const float*, const int32_t*,
                                            int, int, float);
template void cross_entropy_backward<double>(double*, const double*, const double*,
                                             const int32_t*, int, int, double);
template void target_log_probs<float>(float*, const float*, const int32_t*, int, int);
template void target_log_probs<double>(double*, const double*, const int32_t*, int, int);

}  // namespace bb::cpu
