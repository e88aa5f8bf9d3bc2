// GELU, exact erf (Eigen's vectorised erf) and tanh forms, and the residual add.
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#include <algorithm>

#include "backend/cpu/ops.h"

namespace bb::cpu {

namespace {
constexpr int64_t kChunk = 4096;
template <typename T>
using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
}  // namespace

template <typename T>
void gelu_forward(T* out, const T* x, int64_t n) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t s = k * kChunk, len = std::min(kChunk, n - s);
    Eigen::Map<const Arr<T>> xi(x + s, len);
    Eigen::Map<Arr<T>> o(out + s, len);
    o = T(0.5) * xi * (T(1) + (xi * T(M_SQRT1_2)).erf());
  }
}

template <typename T>
void gelu_backward(T* dx, const T* dout, const T* x, int64_t n) {
  // d/dx gelu = (1 + erf(x/sqrt2))/2 + x exp(-x^2/2) / sqrt(2 pi)
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t s = k * kChunk, len = std::min(kChunk, n - s);
    Eigen::Map<const Arr<T>> xi(x + s, len), d(dout + s, len);
    Eigen::Map<Arr<T>> o(dx + s, len);
    o = d * (T(0.5) * (T(1) + (xi * T(M_SQRT1_2)).erf()) +
             xi * (T(-0.5) * xi.square()).exp() * T(0.3989422804014327));
  }
}

// tanh form: u = k (x + a x^3), k = sqrt(2/pi), a = 0.044715; gelu = x/2 (1 + tanh u);
// d/dx = (1 + tanh u)/2 + x/2 (1 - tanh^2 u) k (1 + 3 a x^2).
constexpr double kTanhK = 0.7978845608028654, kTanhA = 0.044715;

template <typename T>
void gelu_tanh_forward(T* out, const T* x, int64_t n) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t s = k * kChunk, len = std::min(kChunk, n - s);
    Eigen::Map<const Arr<T>> xi(x + s, len);
    Eigen::Map<Arr<T>> o(out + s, len);
    o = T(0.5) * xi * (T(1) + (T(kTanhK) * (xi + T(kTanhA) * xi.cube())).tanh());
  }
}

template <typename T>
void gelu_tanh_backward(T* dx, const T* dout, const T* x, int64_t n) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t s = k * kChunk, len = std::min(kChunk, n - s);
    Eigen::Map<const Arr<T>> xi(x + s, len), d(dout + s, len);
    Eigen::Map<Arr<T>> o(dx + s, len);
    const Arr<T> th = (T(kTanhK) * (xi + T(kTanhA) * xi.cube())).tanh();
    o = d * (T(0.5) * (T(1) + th) +
             T(0.5) * xi * (T(1) - th.square()) * T(kTanhK) * (T(1) + T(3 * kTanhA) * xi.square()));
  }
}

template <typename T>
void add_inplace(T* y, const T* x, int64_t n) {
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

template void gelu_forward<float>(float*, const float*, int64_t);
template void gelu_forward<double>(double*, const double*, int64_t);
template void gelu_backward<float>(float*, const float*, const float*, int64_t);
template void gelu_backward<double>(double*, const double*, const double*, int64_t);
template void gelu_tanh_forward<float>(float*, const float*, int64_t);
template void gelu_tanh_forward<double>(double*, const double*, int64_t);
template void gelu_tanh_backward<float>(float*, const float*, const float*, int64_t);
template void gelu_tanh_backward<double>(double*, const double*, const double*, int64_t);
template void add_inplace<float>(float*, const float*, int64_t);
template void add_inplace<double>(double*, const double*, int64_t);

}  // namespace bb::cpu
