// 1.5-entmax (Peters et al. 2019): p = [z - tau]_+^2 with z = (s - max s)/2 and tau the exact
// sort-based threshold (backend/cpu/sparse_threshold.h). Backward with r = sqrt(p):
// ds = r g - (sum r g / sum r) r.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/attention_function_row.h"
#include "backend/cpu/sparse_threshold.h"

namespace bb::cpu::rows {

template <>
struct RowKernel<AttentionFunction::entmax15> {
  template <typename T>
  static void forward(T* p, const T* s, const uint8_t* valid, int L, int /*i*/) {
    thread_local std::vector<double> z;
    const double mx = sorted_shifted(z, s, valid, L, 0.5);
    const double tau = sorted_threshold(z, /*entmax=*/true);
    for (int j = 0; j < L; ++j) {
      const double x = is_valid(valid, j) ? std::max((double(s[j]) - mx) * 0.5 - tau, 0.0) : 0.0;
      p[j] = T(x * x);
    }
  }

  template <typename T>
  static void backward(T* ds, const T* g, const T* p, const T* /*s*/, const uint8_t* valid, int L,
                       int /*i*/) {
    double sum_rg = 0, sum_r = 0;
    for (int j = 0; j < L; ++j) {
      if (!is_valid(valid, j)) continue;
      const double r = std::sqrt(double(p[j]));
      sum_rg += r * g[j];
      sum_r += r;
    }
    const double q = sum_r > 0 ? sum_rg / sum_r : 0;
    for (int j = 0; j < L; ++j)
      ds[j] = is_valid(valid, j) ? T(std::sqrt(double(p[j])) * (g[j] - q)) : T(0);
  }
};

}  // namespace bb::cpu::rows
