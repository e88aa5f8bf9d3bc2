// Central finite differences in double precision. loss() must read the parameters through `x`;
// analytic holds dloss/dx. Returns the worst of |numeric - analytic| / max(|numeric|, |analytic|,
// floor), where floor = 1e-3 * the largest |analytic| checked (so entries that are tiny next to
// the rest, where rounding in the loss dominates the difference quotient, are judged absolutely).
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "test_util.h"  // random_vector, dot: the tests include them with this header

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
    worst = worse(worst, std::abs(numeric - analytic[i]) / scale);
  }
  return worst;
}

}  // namespace bb::test
