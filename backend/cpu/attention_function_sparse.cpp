// sparsemax (Martins & Astudillo 2016) and 1.5-entmax (Peters et al. 2019), each by its exact
// sort-based threshold over one row's valid keys (no bisection). Both are shift-invariant, so the
// row's max is subtracted first; the threshold is found in double precision.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "backend/cpu/attention_function_rows.h"

namespace bb::cpu::rows {

namespace {

// The row's valid scores minus their max, times `scale`, sorted descending, in per-thread
// scratch; returns the max (-inf when no key is valid, and the list is then empty).
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
double sorted_threshold(const std::vector<double>& z, bool entmax) {
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

}  // namespace

// p = [z - tau]_+ with z = s - max s.
template <typename T>
void sparsemax(T* p, const T* s, const uint8_t* valid, int L) {
  thread_local std::vector<double> z;
  const double mx = sorted_shifted(z, s, valid, L, 1.0);
  const double tau = sorted_threshold(z, /*entmax=*/false);
  for (int j = 0; j < L; ++j)
    p[j] = is_valid(valid, j) ? T(std::max(double(s[j]) - mx - tau, 0.0)) : T(0);
}

template <typename T>
void sparsemax_backward(T* ds, const T* g, const T* p, const uint8_t* valid, int L) {
  double sum = 0;
  int support = 0;
  for (int j = 0; j < L; ++j)
    if (is_valid(valid, j) && p[j] > 0) sum += g[j], ++support;
  const double mean = support > 0 ? sum / support : 0;
  for (int j = 0; j < L; ++j) ds[j] = is_valid(valid, j) && p[j] > 0 ? T(g[j] - mean) : T(0);
}

// p = [z - tau]_+^2 with z = (s - max s)/2.
template <typename T>
void entmax15(T* p, const T* s, const uint8_t* valid, int L) {
  thread_local std::vector<double> z;
  const double mx = sorted_shifted(z, s, valid, L, 0.5);
  const double tau = sorted_threshold(z, /*entmax=*/true);
  for (int j = 0; j < L; ++j) {
    const double x = is_valid(valid, j) ? std::max((double(s[j]) - mx) * 0.5 - tau, 0.0) : 0.0;
    p[j] = T(x * x);
  }
}

template <typename T>
void entmax15_backward(T* ds, const T* g, const T* p, const uint8_t* valid, int L) {
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

#define BB_INSTANTIATE(T)                                                           \
  template void sparsemax<T>(T*, const T*, const uint8_t*, int);                    \
  template void sparsemax_backward<T>(T*, const T*, const T*, const uint8_t*, int); \
  template void entmax15<T>(T*, const T*, const uint8_t*, int);                     \
  template void entmax15_backward<T>(T*, const T*, const T*, const uint8_t*, int);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
#undef BB_INSTANTIATE

}  // namespace bb::cpu::rows
