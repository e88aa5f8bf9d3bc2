// cosFormer's re-weighted linear attention (Qin et al. 2022) in its explicit L x L form over one
// query row i: with s_j = relu(q_i) . relu(k_j) >= 0 (attention.cpp computes them) and
// c_j = cos(pi (i - j) / (2M)), M the number of valid keys,
//   a_j = s_j c_j,  Z = sum_j a_j,  p_j = a_j / max(Z, 1e-6).
// Backward: da_j = (g_j - [Z >= 1e-6] sum_k g_k p_k) / max(Z, 1e-6), ds_j = da_j c_j.
// (The linear-time form: cos(x - y) = cos x cos y + sin x sin y splits the sum into two
// products of d-dimensional feature sums; docs/internals.md, "Attention functions".)
#pragma once
#include <algorithm>
#include <cmath>
#include <numbers>

#include "backend/cpu/attention_function_row.h"

namespace bb::cpu::rows {

template <>
struct RowKernel<AttentionFunction::cosformer> {
  static constexpr double kFloor = 1e-6;

  template <typename T>
  static T reweight(int i, int j, int M) {
    return std::cos(T(std::numbers::pi) * T(i - j) / T(2 * M));
  }

  template <typename T>
  static void forward(T* p, const T* s, const uint8_t* valid, int L, int i) {
    const int M = valid_count(valid, L);
    T Z = 0;
    for (int j = 0; j < L; ++j) {
      p[j] = is_valid(valid, j) ? s[j] * reweight<T>(i, j, M) : T(0);
      Z += p[j];
    }
    const T inv = T(1) / std::max(Z, T(kFloor));
    for (int j = 0; j < L; ++j) p[j] *= inv;
  }

  template <typename T>
  static void backward(T* ds, const T* g, const T* p, const T* s, const uint8_t* valid, int L,
                       int i) {
    const int M = valid_count(valid, L);
    T Z = 0, dot = 0;
    for (int j = 0; j < L; ++j) {
      if (!is_valid(valid, j)) continue;
      Z += s[j] * reweight<T>(i, j, M);
      dot += g[j] * p[j];
    }
    const T D = std::max(Z, T(kFloor));
    const T through_sum = Z >= T(kFloor) ? dot : T(0);  // clamp_min passes at equality
    for (int j = 0; j < L; ++j)
      ds[j] = is_valid(valid, j) ? (g[j] - through_sum) / D * reweight<T>(i, j, M) : T(0);
  }
};

}  // namespace bb::cpu::rows
