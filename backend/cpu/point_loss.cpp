// Losses on one prediction per scored row (backend/ops.h, PointLoss): binary cross-entropy on
// logits and squared error, the mean over the rows in row order.
#include <cmath>

#include "backend/cpu/ops.h"

namespace bb::cpu {

namespace {
// l(x, t) and dl/dx.
template <typename T>
T point_loss(T x, T t, ops::PointLoss kind) {
  switch (kind) {
    case ops::PointLoss::bce_logits:  // stable form: never exp of a positive number
      return std::max(x, T(0)) - x * t + std::log1p(std::exp(-std::abs(x)));
    case ops::PointLoss::squared_error: return (x - t) * (x - t);
  }
  return T(0);
}

template <typename T>
T point_loss_grad(T x, T t, ops::PointLoss kind) {
  switch (kind) {
    case ops::PointLoss::bce_logits: {  // sigmoid(x) - t, without overflow for large |x|
      const T e = std::exp(-std::abs(x));
      const T sig = x >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
      return sig - t;
    }
    case ops::PointLoss::squared_error: return T(2) * (x - t);
  }
  return T(0);
}
}  // namespace

template <typename T>
void point_loss_forward(T* loss, const T* pred, const T* target, int M, ops::PointLoss kind) {
  T total = 0;
  for (int m = 0; m < M; ++m) total += point_loss(pred[m], target[m], kind);
  *loss = M > 0 ? total / T(M) : T(0);
}

template <typename T>
void point_loss_backward(T* dpred, const T* pred, const T* target, int M, ops::PointLoss kind,
                         T dloss) {
  for (int m = 0; m < M; ++m) dpred[m] = dloss * point_loss_grad(pred[m], target[m], kind) / T(M);
}

template void point_loss_forward<float>(float*, const float*, const float*, int, ops::PointLoss);
template void point_loss_forward<double>(double*, const double*, const double*, int,
                                         ops::PointLoss);
template void point_loss_backward<float>(float*, const float*, const float*, int, ops::PointLoss,
                                         float);
template void point_loss_backward<double>(double*, const double*, const double*, int,
                                          ops::PointLoss, double);

}  // namespace bb::cpu
