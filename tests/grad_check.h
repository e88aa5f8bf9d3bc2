// Central finite differences in double precision. loss() must read the parameters through `x`;
// analytic holds dloss/dx. Returns the worst of |numeric - analytic| / max(|numeric|, |analytic|,
// floor), where floor = 1e-3 * the largest |analytic| checked (so entries that are tiny next to
// the rest, where rounding in the loss dominates the difference quotient, are judged absolutely).
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "common/philox.h"

namespace bb::test {

inline double fd_max_rel_error(std::vector<double>& x, const std::vector<double>& analytic,
                               const std::function<double()>& loss, double h = 1e-5,
                               double floor = 1e-6, int max_checks = 400) {
  const int64_t n = int64_t(x.size());
  const int64_t stride = std::max<int64_t>(1, n / max_checks);
  for (int64_t i = 0; i < n; i += stride) floor = std::max(floor, 1e-3 * std::abs(analytic[i]));
  double worst = 0;
  for (int64_t i = 0; i < n; i += stride) {
    const double saved = x[i];
    x[i] = saved + h;
    const double up = loss();
    x[i] = saved - h;
    const double down = loss();
    x[i] = saved;
    const double numeric = (up - down) / (2 * h);
    const double scale = std::max({std::abs(numeric), std::abs(analytic[i]), floor});
    worst = std::max(worst, std::abs(numeric - analytic[i]) / scale);
  }
  return worst;
}

// Deterministic values in [lo, hi).
inline std::vector<double> random_vector(int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
  const Philox rng{mix64(seed)};
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * rng.uniform(0, uint64_t(i));
  return v;
}

inline double dot(const std::vector<double>& a, const double* b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace bb::test
