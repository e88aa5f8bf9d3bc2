// Self-adjusting softmax (SA-softmax, Zheng et al. 2025, arXiv 2502.18277) over one row's valid
// keys: sigma = softmax(s), lo = min(0, min s), hi = max(0, max s), D = hi - lo + eps,
// p_j = sigma_j w_j with w_j = (s_j - lo) / D. Rows do not sum to 1.
//
// Backward, with A = sum g sigma and B = sum g p:
//   ds_k = sigma_k (g_k w_k - B)                 (through sigma: softmax backward of g w)
//        + g_k sigma_k / D                       (through s_k in w_k)
//        + dlo_k (B - A) / D - dhi_k B / D       (through lo and hi)
// where dlo_k = 1/count at the tied minima when min s < 0 (else 0), dhi_k likewise at the maxima
// when max s > 0: PyTorch's amin/amax split a tie evenly, and a 0 extreme passes no gradient.
// (softmax(s) is not stored: backward computes it again from s.)
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/attention_function_row.h"

namespace bb::cpu::rows {

template <>
struct RowKernel<AttentionFunction::sa_softmax> {
  static constexpr double kEps = 1e-6;

  // softmax(s) over the valid keys into sigma (0 elsewhere); the row's min and max.
  template <typename T>
  static void softmax_extremes(std::vector<T>& sigma, T& mn, T& mx, const T* s,
                               const uint8_t* valid, int L) {
    mn = std::numeric_limits<T>::infinity();
    mx = -std::numeric_limits<T>::infinity();
    for (int j = 0; j < L; ++j)
      if (is_valid(valid, j)) mn = std::min(mn, s[j]), mx = std::max(mx, s[j]);
    sigma.assign(L, T(0));
    T sum = 0;
    for (int j = 0; j < L; ++j)
      if (is_valid(valid, j)) sum += sigma[j] = std::exp(s[j] - mx);
    const T inv = sum > 0 ? T(1) / sum : T(0);
    for (int j = 0; j < L; ++j) sigma[j] *= inv;
  }

  template <typename T>
  static void forward(T* p, const T* s, const uint8_t* valid, int L, int /*i*/) {
    thread_local std::vector<T> sigma;
    T mn, mx;
    softmax_extremes(sigma, mn, mx, s, valid, L);
    const T lo = mn < 0 ? mn : T(0), hi = mx > 0 ? mx : T(0);
    const T D = hi - lo + T(kEps);
    for (int j = 0; j < L; ++j) p[j] = is_valid(valid, j) ? sigma[j] * ((s[j] - lo) / D) : T(0);
  }

  template <typename T>
  static void backward(T* ds, const T* g, const T* p, const T* s, const uint8_t* valid, int L,
                       int /*i*/) {
    thread_local std::vector<T> sigma;
    T mn, mx;
    softmax_extremes(sigma, mn, mx, s, valid, L);
    const T lo = mn < 0 ? mn : T(0), hi = mx > 0 ? mx : T(0);
    const T D = hi - lo + T(kEps);
    T A = 0, B = 0;
    int n_min = 0, n_max = 0;
    for (int j = 0; j < L; ++j) {
      if (!is_valid(valid, j)) continue;
      A += g[j] * sigma[j];
      B += g[j] * p[j];
      n_min += s[j] == mn;
      n_max += s[j] == mx;
    }
    for (int j = 0; j < L; ++j) {
      if (!is_valid(valid, j)) {
        ds[j] = T(0);
        continue;
      }
      const T w = (s[j] - lo) / D;
      T d = sigma[j] * (g[j] * w - B) + g[j] * sigma[j] / D;
      if (mn < 0 && s[j] == mn) d += (B - A) / D / T(n_min);
      if (mx > 0 && s[j] == mx) d -= B / D / T(n_max);
      ds[j] = d;
    }
  }
};

}  // namespace bb::cpu::rows
