// The exact sort-based thresholds of sparsemax (Martins & Astudillo 2016) and 1.5-entmax (Peters
// et al. 2019) over one row's valid keys (no bisection), in double precision. Both functions are
// shift-invariant, so the row's max is subtracted first.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "backend/cpu/attention_function_row.h"

namespace bb::cpu::rows {

// The row's valid scores minus their max, times `scale`, sorted descending into z; returns the
// max (-inf when no key is valid, and z is then empty).
template <typename T>
double sorted_shifted(std::vector<double>& z, const T* s, const uint8_t* valid, int L,
                      double scale) {
  double mx = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < L; ++j)
    if (is_valid(valid, j)) mx = std::max(mx, double(s[j]));
  z.clear();
  for (int j = 0; j < L; ++j)
    if (is_valid(valid, j)) z.push_back((double(s[j]) - mx) * scale);
  std::sort(z.begin(), z.end(), std::greater<>());
  return mx;
}

// The threshold tau from z sorted descending, by the exact sort-based rule of each function: for
// every prefix rho (its sum and sum of squares) a candidate tau_rho and whether the prefix lies in
// the support; the support size K = #{rho in the support} (the condition holds exactly for
// rho <= K; tied entries enter together), tau = tau_K.
//   sparsemax: in the support when 1 + rho z_rho > sum; tau_rho = (sum - 1) / rho.
//   entmax15:  mean, ss = rho (meansq - mean^2), tau_rho = mean - sqrt(max((1 - ss)/rho, 0)); in
//              the support when tau_rho <= z_rho.
inline double sorted_threshold(const std::vector<double>& z, bool entmax) {
  thread_local std::vector<double> taus;
  taus.resize(z.size());
  int K = 0;
  double sum = 0, sumsq = 0;
  for (size_t r = 0; r < z.size(); ++r) {
    const double rho = double(r + 1);
    sum += z[r];
    sumsq += z[r] * z[r];
    bool in_support;
    if (entmax) {
      const double mean = sum / rho, ss = rho * (sumsq / rho - mean * mean);
      taus[r] = mean - std::sqrt(std::max((1 - ss) / rho, 0.0));
      in_support = taus[r] <= z[r];
    } else {
      taus[r] = (sum - 1) / rho;
      in_support = 1 + rho * z[r] > sum;
    }
    K += in_support;
  }
  return K > 0 ? taus[K - 1] : 0;
}

}  // namespace bb::cpu::rows
