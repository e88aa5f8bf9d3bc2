// Helpers shared by the tests: deterministic random inputs and the error measures.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/philox.h"

namespace bb::test {

// n deterministic values in [lo, hi) (drawn in double, then stored as T).
template <typename T = double>
std::vector<T> random_vector(int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
  const Philox rng{mix64(seed)};
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = T(lo + (hi - lo) * rng.uniform(0, uint64_t(i)));
  return v;
}

inline std::vector<float> random_floats(int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
  return random_vector<float>(n, seed, lo, hi);
}

// The larger of a running worst error and one more, where a NaN is the worst there is:
// std::max(worst, NaN) is `worst`, which would let a tensor of NaNs pass every tolerance.
inline double worse(double worst, double err) {
  return std::isnan(err) ? INFINITY : std::max(worst, err);
}

// max |got - want| / max(max |want|, floor) over one tensor of n elements (a NaN in either:
// infinite). The floor matters only for a tensor whose exact value is 0 (a shift-invariant
// function's key-bias gradient): it is then judged against a scale the caller names instead of
// against rounding noise.
template <typename T>
double rel_err(const T* got, const T* want, int64_t n, double floor = 1e-30) {
  double diff = 0, scale = floor;
  for (int64_t i = 0; i < n; ++i) {
    diff = worse(diff, std::abs(double(got[i]) - double(want[i])));
    scale = std::max(scale, std::abs(double(want[i])));
  }
  return diff / scale;
}

// The same over two whole tensors; tensors of different sizes are infinitely apart.
template <typename T>
double rel_err(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return INFINITY;
  return rel_err(got.data(), want.data(), int64_t(want.size()));
}

inline double dot(const std::vector<double>& a, const double* b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace bb::test
